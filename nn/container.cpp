#include "ember/nn/container.h"

#include "ember/core/error.h"

namespace ember::nn {

Sequential::Sequential(std::initializer_list<std::shared_ptr<Module>> modules) : Sequential() {
  for (const auto& m : modules) push_back(m);
}

Sequential::Sequential(const NamedModules& modules) : Sequential() {
  for (const auto& m : modules) layers_.push_back(register_module(m.first, m.second));
}

Sequential& Sequential::push_back(std::shared_ptr<Module> module) {
  layers_.push_back(register_module(std::to_string(layers_.size()), std::move(module)));
  return *this;
}

std::shared_ptr<Module> Sequential::operator[](size_t i) const {
  if (i >= layers_.size())
    raise<IndexError>("Sequential: index ", i, " is out of range for ", layers_.size(), " modules");
  return layers_[i];
}

Tensor Sequential::forward(const Tensor& input) {
  Tensor x = input;
  for (const auto& m : layers_) x = m->forward(x);
  return x;
}

}  // namespace ember::nn
