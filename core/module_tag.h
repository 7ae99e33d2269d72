#pragma once
// What core keeps about the module that registered a parameter or buffer, so that a
// device-mismatch message can name a sub-model that model.to(device) left behind. nn::Module
// makes one tag per module and points its registered tensors at it (Tensor::set_owner); core
// formats the hint itself (core/ops/check.cpp), so no call goes back up into nn.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "ember/core/export.h"

namespace ember {

class EMBER_API ModuleTag {
 public:
  explicit ModuleTag(std::string type_name);
  ~ModuleTag();
  ModuleTag(const ModuleTag&) = delete;
  ModuleTag& operator=(const ModuleTag&) = delete;

  /// The module's class name ("Encoder").
  const std::string& type_name() const { return type_name_; }
  /// The module this one was first registered under, and its name there; later
  /// registrations keep the first.
  void set_parent_once(const std::shared_ptr<const ModuleTag>& parent, const std::string& name);
  /// The class name of the outermost module above this one (its own when it has no parent).
  std::string root_type_name() const;
  /// The dotted path from the outermost module ("encoder.layers.1"; "" for a root), so that a
  /// tensor registered or a child added after the module was itself registered is still named
  /// from the root.
  std::string path() const;

  /// Records that to(device) moved the module (directly or through a parent), and in each
  /// module above it that a part of it was moved.
  void mark_moved();
  bool moved() const { return moved_.load(); }
  /// Whether the outermost module above this one (this one when it has none) was not moved
  /// itself while to(device) moved a module inside it: the model forgotten, its sub-model moved.
  bool root_partly_moved() const;
  /// Whether a module that to(device) moved is alive now, in this process. A device mismatch
  /// on a tensor of a never-moved module names that module only then: otherwise nothing was
  /// moved and the generic "model.to(device)" advice fits.
  static bool any_alive_moved();

 private:
  // Calls visit(parent, name in parent) from this tag up to the root; returns the root.
  template <class Visit>
  const ModuleTag* walk_up(Visit visit) const;

  const std::string type_name_;
  std::atomic<bool> moved_{false};
  mutable std::atomic<bool> part_moved_{false};  // a module below this one was moved
  mutable std::mutex parent_mutex_;              // registration and error messages may run on two threads
  std::weak_ptr<const ModuleTag> parent_;
  std::string name_in_parent_;
};

}  // namespace ember
