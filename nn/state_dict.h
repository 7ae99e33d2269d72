#pragma once
// StateDict: an ordered name -> tensor map, the common currency of modules, optimizers,
// schedulers and checkpoint files.
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn {

class EMBER_API StateDict {
 public:
  using Item = std::pair<std::string, Tensor>;
  using const_iterator = std::vector<Item>::const_iterator;

  StateDict() = default;
  StateDict(std::initializer_list<Item> items);

  /// Adds key at the end, or replaces its value in place (keeping its position).
  void insert(const std::string& key, const Tensor& value);
  bool contains(const std::string& key) const { return index_.count(key) != 0; }
  /// The value of key; ValueError naming the key when it is absent.
  const Tensor& at(const std::string& key) const;
  /// The value of key, or nullptr.
  const Tensor* find(const std::string& key) const;
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  /// The keys in insertion order.
  std::vector<std::string> keys() const;
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }

  /// Every entry with prefix prepended to its key ("model." + "conv1.weight").
  StateDict with_prefix(const std::string& prefix) const;
  /// The entries whose key starts with prefix, the prefix removed.
  StateDict sub(const std::string& prefix) const;
  /// Appends every entry of other; ValueError when a key is already present.
  void merge(const StateDict& other);

 private:
  std::vector<Item> items_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace ember::nn
