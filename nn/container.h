#pragma once
// Sequential: children run in order, each one's output the next one's input.
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

class EMBER_API Sequential : public Module {
 public:
  Sequential() : Module("Sequential") {}
  /// Children named "0", "1", ... in order.
  Sequential(std::initializer_list<std::shared_ptr<Module>> modules);
  /// Children with given names (PyTorch's OrderedDict form).
  explicit Sequential(const NamedModules& modules);

  /// Appends a child named after its position.
  Sequential& push_back(std::shared_ptr<Module> module);
  size_t size() const { return layers_.size(); }
  /// The i-th child; IndexError when out of range.
  std::shared_ptr<Module> operator[](size_t i) const;
  Tensor forward(const Tensor& input) override;

 private:
  std::vector<std::shared_ptr<Module>> layers_;
};

}  // namespace ember::nn
