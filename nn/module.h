#pragma once
// Module: the base of every layer and model. It owns named parameters, buffers and child
// modules (in registration order), moves them between devices and dtypes in place, switches
// train/eval mode, and saves and loads its state.
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/state_dict.h"

namespace ember::nn {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
class Module;
using NamedModules = std::vector<std::pair<std::string, std::shared_ptr<Module>>>;

class EMBER_API Module : public std::enable_shared_from_this<Module> {
 public:
  /// type_name is the class name that repr() prints ("Net").
  explicit Module(std::string type_name = "Module");
  virtual ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// The class name shown by repr().
  const std::string& type_name() const { return type_name_; }

  /// The computation; the default throws NotImplementedError.
  virtual Tensor forward(const Tensor& input);
  /// forward(input). Modules whose forward takes other arguments derive from
  /// ForwardingModule (below) for the same call syntax.
  Tensor operator()(const Tensor& input);

  // ---- registration (names: non-empty, no '.', unique within this module) ----
  /// Makes t a parameter (a leaf; requires grad unless requires_grad is false) and names it.
  Tensor register_parameter(const std::string& name, Tensor t, bool requires_grad = true);
  /// Makes t a buffer: state that is saved and moved but not trained (running statistics).
  Tensor register_buffer(const std::string& name, Tensor t);
  /// Adds a child; its parameters' and buffers' names gain the prefix "name.".
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    static_assert(std::is_base_of<Module, M>::value, "register_module needs a Module");
    add_child(name, module);
    return module;
  }

  // ---- traversal (pre-order, registration order; shared tensors and modules once) ----
  NamedTensors named_parameters(bool recurse = true) const;
  std::vector<Tensor> parameters(bool recurse = true) const;
  NamedTensors named_buffers(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  /// Direct children in registration order.
  NamedModules named_children() const;
  std::vector<std::shared_ptr<Module>> children() const;
  /// This module ("") and every descendant by path ("features.0"). A root that is not owned
  /// by a shared_ptr is returned through a non-owning pointer.
  NamedModules named_modules() const;
  std::vector<std::shared_ptr<Module>> modules() const;

  /// The parameter registered under a dotted path from this module ("conv1.weight");
  /// ValueError naming the known paths when there is none.
  Tensor parameter(const std::string& path) const;
  /// The buffer registered under a dotted path ("bn.running_mean"); ValueError otherwise.
  Tensor buffer(const std::string& path) const;

  // ---- state ----
  /// Whether to(device) has moved this module, directly or through a parent. A device
  /// mismatch on a tensor of a never-moved module, while a module that was moved is alive,
  /// names the module left behind (a sub-model held but not registered), however its
  /// forward was called.
  bool was_moved() const;
  /// Moves every parameter, gradient and buffer to device in place: handles held elsewhere
  /// (optimizers) follow, and names survive.
  Module& to(Device device);
  Module& to(const char* device) { return to(Device(device)); }
  /// Converts every floating parameter, gradient and buffer to dtype (float32 or float64).
  Module& to(DType dtype);
  /// Training mode for this module and every descendant (Dropout, BatchNorm2d read it).
  Module& train(bool on = true);
  Module& eval() { return train(false); }
  bool is_training() const { return training_; }
  /// Clears every parameter's gradient (undefined when set_to_none, zeros otherwise).
  void zero_grad(bool set_to_none = true);
  /// Freezes (false) or unfreezes every parameter of this subtree.
  Module& requires_grad_(bool requires_grad = true);

  /// Parameters then buffers of each module, pre-order, keyed by path; every registration of
  /// a shared tensor appears. Values share storage with the model (detached views).
  StateDict state_dict() const;
  /// Copies values into the existing tensors (across devices and dtypes). strict: missing or
  /// unexpected keys -> ValueError listing them all; a shape mismatch -> ShapeError naming
  /// the key and both shapes. Nothing is copied unless every check passes. assign (PyTorch's
  /// assign=True): the model's tensors take the state's storage instead of a copy (set_data),
  /// converted only where the device or dtype differs; for tensors on a mapped file (map_file),
  /// whose pages a copy would read in.
  void load_state_dict(const StateDict& state, bool strict = true, bool assign = false);

  /// PyTorch-style tree: "Net(\n  (conv1): Conv2d(1, 32, kernel_size=(3, 3), ...)\n)".
  std::string repr() const;
  /// The text inside the parentheses of this module's own line.
  virtual std::string extra_repr() const { return ""; }

 private:
  void add_child(const std::string& name, std::shared_ptr<Module> child);
  void check_new_name(const char* what, const std::string& name) const;
  std::shared_ptr<Module> self() const;
  // name as its path from the outermost module ("layers.1.weight"), whenever it is registered.
  std::string path_of(const std::string& name) const;
  // Every registration below this module with its relative path, in state_dict order
  // (each module's parameters, then its buffers, then its children), duplicates included.
  void collect(const std::string& prefix, NamedTensors& out) const;

  std::string type_name_;
  // What registered tensors point at, for device hints (core/module_tag.h). A shared_ptr of
  // its own because registration runs in constructors, before any shared_ptr owns the module.
  std::shared_ptr<ModuleTag> tag_;
  bool training_ = true;
  NamedTensors params_;
  NamedTensors buffers_;
  NamedModules children_;
};

/// The base of modules whose forward takes several tensors or other arguments (token ids, a
/// mask, token types): `(*model)(ids, mask, types)` calls Derived::forward(ids, mask, types), as
/// LibTorch's module holders forward any arguments. Device hints name a sub-model left behind
/// however forward is reached (core/module_tag.h).
///   struct Bert : nn::ForwardingModule<Bert> {
///     Bert() : ForwardingModule("Bert") {}
///     using Module::forward;  // the one-tensor virtual stays visible (clang's -Woverloaded-virtual)
///     Tensor forward(const Tensor& ids, const Tensor& mask);
///   };
template <class Derived, class Base = Module>
class ForwardingModule : public Base {
 public:
  using Base::Base;
  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    return static_cast<Derived&>(*this).forward(std::forward<Args>(args)...);
  }
};

EMBER_API std::ostream& operator<<(std::ostream& os, const Module& m);

namespace detail {
/// "0.1", "1e-05", "0.5": Python's shortest repr of a float, as PyTorch's reprs print.
EMBER_API std::string py_float(double v);
/// "(2, 3)": a pair as Python prints a tuple.
EMBER_API std::string py_pair(int64_t h, int64_t w);
/// Clears the gradients of params: undefined when set_to_none, zeros otherwise.
EMBER_API void clear_grads(const std::vector<Tensor>& params, bool set_to_none);
}  // namespace detail

}  // namespace ember::nn
