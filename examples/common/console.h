#pragma once
// What the examples share on the console: the --device flag, a progress bar on terminals,
// one-line error reports.
#include <algorithm>
#include <cstdio>
#include <string>

#include "ember/ember.h"

namespace ember::examples {

/// "auto" is cuda:0 when a GPU is usable, else the CPU; any other spec is checked now, with
/// a clear message, by allocating on it.
inline Device resolve_device(const std::string& spec) {
  if (spec == "auto") return cuda::is_available() ? Device::cuda(0) : Device::cpu();
  const Device d(spec);
  zeros({1}, d);
  return d;
}

/// "\r  epoch 3 [=========>          ] 61/125" on a terminal, nothing otherwise.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled) {}
  void show(int epoch, size_t done, size_t total) { show("epoch " + std::to_string(epoch), done, total); }
  /// "\r  <label> [======      ] done/total<tail>".
  void show(const std::string& label, size_t done, size_t total, const std::string& tail = "") {
    if (!enabled_) return;
    const int width = 30, filled = static_cast<int>(width * done / std::max<size_t>(total, 1));
    std::printf("\r  %s [%s%s] %zu/%zu%s", label.c_str(), std::string(filled, '=').c_str(),
                std::string(width - filled, ' ').c_str(), done, total, tail.c_str());
    std::fflush(stdout);
    visible_ = true;
  }
  void clear() {
    if (!visible_) return;
    std::printf("\r%*s\r", 79, "");
    visible_ = false;
  }

 private:
  bool enabled_, visible_ = false;
};

/// The first line of a message: errors are reported on one line.
inline std::string first_line(const char* what) {
  std::string s = what;
  return s.substr(0, s.find('\n'));
}

}  // namespace ember::examples
