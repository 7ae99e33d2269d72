#include "ember/data/token_table.h"

#include <limits>

#include "ember/core/error.h"

namespace ember::data {

uint64_t TokenTable::hash(std::string_view key) {
  // FNV-1a, then a final mix so that the low bits (the slot) depend on every byte.
  uint64_t h = 1469598103934665603ull;
  for (const char c : key) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h ^ (h >> 29);
}

TokenTable::TokenTable(const std::vector<std::string_view>& keys, const std::vector<int64_t>& ids) {
  size_t capacity = 16;
  while (capacity < 2 * keys.size()) capacity *= 2;
  slots_.assign(capacity, -1);
  const size_t mask = capacity - 1;
  for (size_t k = 0; k < keys.size(); ++k) {
    const std::string_view key = keys[k];
    size_t s = hash(key) & mask;
    for (; slots_[s] >= 0; s = (s + 1) & mask) {
      const Entry& e = entries_[static_cast<size_t>(slots_[s])];
      if (std::string_view(bytes_).substr(e.offset, e.length) == key) break;
    }
    if (slots_[s] >= 0) {
      entries_[static_cast<size_t>(slots_[s])].id = ids[k];  // a repeat: the last id wins
      continue;
    }
    if (bytes_.size() + key.size() > std::numeric_limits<uint32_t>::max())
      raise<ValueError>("TokenTable: the vocabulary's tokens exceed 4 GiB");
    slots_[s] = static_cast<int32_t>(entries_.size());
    entries_.push_back({static_cast<uint32_t>(bytes_.size()), static_cast<uint32_t>(key.size()), ids[k]});
    bytes_.append(key);
    if (key.size() > max_key_bytes_) max_key_bytes_ = key.size();
  }
}

int64_t TokenTable::find(std::string_view key) const {
  if (slots_.empty() || key.size() > max_key_bytes_) return -1;
  const size_t mask = slots_.size() - 1;
  for (size_t s = hash(key) & mask; slots_[s] >= 0; s = (s + 1) & mask) {
    const Entry& e = entries_[static_cast<size_t>(slots_[s])];
    if (e.length == key.size() && std::string_view(bytes_).substr(e.offset, e.length) == key) return e.id;
  }
  return -1;
}

}  // namespace ember::data
