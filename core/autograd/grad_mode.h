#pragma once
// Whether ops record the graph: thread-local, like torch.no_grad().
#include "ember/core/export.h"

namespace ember {

struct EMBER_API GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// Turns graph recording off for its scope (on this thread), restoring the previous mode.
class EMBER_API NoGradGuard {
 public:
  NoGradGuard() : previous_(GradMode::is_enabled()) { GradMode::set_enabled(false); }
  ~NoGradGuard() { GradMode::set_enabled(previous_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace ember
