#pragma once
// ModuleList: children held in order and named "0", "1", ... (PyTorch's nn.ModuleList), for
// layers a forward walks itself (the encoder's N layers). Sequential: a ModuleList whose
// forward runs the children in order, each one's output the next one's input.
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/nn/module.h"

namespace ember::nn {

class EMBER_API ModuleList : public Module {
 public:
  ModuleList() : ModuleList("ModuleList") {}
  /// Children named "0", "1", ... in order.
  ModuleList(std::initializer_list<std::shared_ptr<Module>> modules);

  /// Appends a child named after its position.
  ModuleList& append(std::shared_ptr<Module> module);
  ModuleList& push_back(std::shared_ptr<Module> module) { return append(std::move(module)); }
  ModuleList& extend(const std::vector<std::shared_ptr<Module>>& modules);
  size_t size() const { return layers_.size(); }
  bool empty() const { return layers_.empty(); }
  /// The i-th child, negative i counting from the end as Python's; IndexError when out of range.
  std::shared_ptr<Module> operator[](int64_t i) const;
  /// The i-th child as M; ValueError naming its type when it is another module.
  template <class M>
  std::shared_ptr<M> at(int64_t i) const {
    std::shared_ptr<Module> m = (*this)[i];
    auto typed = std::dynamic_pointer_cast<M>(m);
    if (!typed)
      raise<ValueError>(type_name(), ": module ", i, " is a ", m->type_name(), ", not the type asked for");
    return typed;
  }
  auto begin() const { return layers_.begin(); }
  auto end() const { return layers_.end(); }
  /// A ModuleList has no forward of its own (NotImplementedError, as PyTorch's).
  Tensor forward(const Tensor& input) override;

 protected:
  explicit ModuleList(std::string type_name) : Module(std::move(type_name)) {}
  /// Registers module under name and keeps it in order.
  void add(const std::string& name, std::shared_ptr<Module> module);

 private:
  std::vector<std::shared_ptr<Module>> layers_;
};

class EMBER_API Sequential : public ModuleList {
 public:
  Sequential() : ModuleList("Sequential") {}
  /// Children named "0", "1", ... in order.
  Sequential(std::initializer_list<std::shared_ptr<Module>> modules);
  /// Children with given names (PyTorch's OrderedDict form).
  explicit Sequential(const NamedModules& modules);

  Sequential& push_back(std::shared_ptr<Module> module) {
    append(std::move(module));
    return *this;
  }
  Tensor forward(const Tensor& input) override;
};

}  // namespace ember::nn
