#pragma once
// The library's one UTF-8 codec: checking, decoding and encoding, for the JSON reader
// (core/io/json.h), data's text readers and BertTokenizer. Well-formed means RFC 3629: no
// overlong forms, surrogates or code points past U+10FFFF. Internal: not installed.
#include <cstddef>
#include <string>
#include <string_view>

#include "ember/core/export.h"

namespace ember::io {

/// Whether s is well-formed UTF-8; where it is not, *bad_at (when given) is the byte offset of
/// the first sequence that is not.
EMBER_API bool valid_utf8(std::string_view s, size_t* bad_at = nullptr);

/// The code points of s. ValueError "<what>: invalid UTF-8 at byte N" where s is not
/// well-formed (the offset valid_utf8 gives).
EMBER_API std::u32string decode_utf8(std::string_view s, const char* what);

/// code_point (at most U+10FFFF) appended to out as UTF-8.
EMBER_API void append_utf8(std::string& out, char32_t code_point);
/// The UTF-8 of a code point sequence.
EMBER_API std::string encode_utf8(const std::u32string& s);

/// The code point at text[i], which must start a well-formed sequence (text checked with
/// valid_utf8 first); i moves past it. Unchecked: for a tokenizer's inner loop.
inline char32_t next_code_point(std::string_view text, size_t& i) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  const size_t n = b0 < 0x80 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
  char32_t c = n == 1 ? b0 : n == 2 ? (b0 & 0x1F) : n == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (size_t k = 1; k < n; ++k) c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
  i += n;
  return c;
}

}  // namespace ember::io
