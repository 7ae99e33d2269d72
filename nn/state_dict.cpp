#include "ember/nn/state_dict.h"

#include "ember/core/error.h"

namespace ember::nn {

StateDict::StateDict(std::initializer_list<Item> items) {
  for (const Item& it : items) insert(it.first, it.second);
}

void StateDict::insert(const std::string& key, const Tensor& value) {
  auto found = index_.find(key);
  if (found != index_.end()) {
    items_[found->second].second = value;
    return;
  }
  index_.emplace(key, items_.size());
  items_.emplace_back(key, value);
}

const Tensor& StateDict::at(const std::string& key) const {
  const Tensor* t = find(key);
  if (!t) raise<ValueError>("state dict has no entry \"", key, "\"");
  return *t;
}

const Tensor* StateDict::find(const std::string& key) const {
  auto found = index_.find(key);
  return found == index_.end() ? nullptr : &items_[found->second].second;
}

std::vector<std::string> StateDict::keys() const {
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const Item& it : items_) out.push_back(it.first);
  return out;
}

StateDict StateDict::with_prefix(const std::string& prefix) const {
  StateDict out;
  for (const Item& it : items_) out.insert(prefix + it.first, it.second);
  return out;
}

StateDict StateDict::sub(const std::string& prefix) const {
  StateDict out;
  for (const Item& it : items_)
    if (it.first.compare(0, prefix.size(), prefix) == 0)
      out.insert(it.first.substr(prefix.size()), it.second);
  return out;
}

void StateDict::merge(const StateDict& other) {
  for (const Item& it : other) {
    if (contains(it.first)) raise<ValueError>("state dict merge: duplicate entry \"", it.first, "\"");
    insert(it.first, it.second);
  }
}

}  // namespace ember::nn
