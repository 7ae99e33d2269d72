#pragma once
// A vocabulary's token -> id lookup by string_view, so that WordPiece can try every candidate
// piece of a word without building a string for it (the tokenizer's hash lookups of fresh
// strings were a quarter of batch_encode's time). Open addressing over the tokens' bytes, kept
// in one buffer and referred to by offset: copying the table keeps it valid.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ember::data {

class TokenTable {
 public:
  TokenTable() = default;
  /// keys[i] -> ids[i]; a repeated key keeps the last id.
  TokenTable(const std::vector<std::string_view>& keys, const std::vector<int64_t>& ids);

  /// The id of key, or -1.
  int64_t find(std::string_view key) const;
  /// The longest key in bytes (no longer piece need be looked up).
  size_t max_key_bytes() const { return max_key_bytes_; }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    uint32_t offset, length;
    int64_t id;
  };
  static uint64_t hash(std::string_view key);

  std::string bytes_;           // the keys, back to back
  std::vector<Entry> entries_;  // one per distinct key
  std::vector<int32_t> slots_;  // index into entries_, or -1; a power of two, at most half full
  size_t max_key_bytes_ = 0;
};

}  // namespace ember::data
