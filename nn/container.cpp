#include "ember/nn/container.h"

namespace ember::nn {

ModuleList::ModuleList(std::initializer_list<std::shared_ptr<Module>> modules) : ModuleList() {
  for (const auto& m : modules) append(m);
}

void ModuleList::add(const std::string& name, std::shared_ptr<Module> module) {
  layers_.push_back(register_module(name, std::move(module)));
}

ModuleList& ModuleList::append(std::shared_ptr<Module> module) {
  add(std::to_string(layers_.size()), std::move(module));
  return *this;
}

ModuleList& ModuleList::extend(const std::vector<std::shared_ptr<Module>>& modules) {
  for (const auto& m : modules) append(m);
  return *this;
}

std::shared_ptr<Module> ModuleList::operator[](int64_t i) const {
  const auto n = static_cast<int64_t>(layers_.size());
  if (i < -n || i >= n) raise<IndexError>(type_name(), ": index ", i, " is out of range for ", n, " modules");
  return layers_[static_cast<size_t>(i < 0 ? i + n : i)];
}

Tensor ModuleList::forward(const Tensor&) {
  raise<NotImplementedError>(type_name(), " has no forward: call its modules from your own forward");
}

Sequential::Sequential(std::initializer_list<std::shared_ptr<Module>> modules) : Sequential() {
  for (const auto& m : modules) append(m);
}

Sequential::Sequential(const NamedModules& modules) : Sequential() {
  for (const auto& m : modules) add(m.first, m.second);
}

Tensor Sequential::forward(const Tensor& input) {
  Tensor x = input;
  for (const auto& m : *this) x = m->forward(x);
  return x;
}

}  // namespace ember::nn
