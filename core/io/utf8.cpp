// The UTF-8 codec of core/io/utf8.h.
#include "ember/core/io/utf8.h"

#include <cstdint>

#include "ember/core/error.h"

namespace ember::io {
namespace {

// The length of the well-formed sequence at s[i] and its code point in cp, or 0 where s holds
// none at i. The one check behind valid_utf8 and decode_utf8.
size_t checked_sequence(std::string_view s, size_t i, char32_t& cp) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  size_t len = 0;
  uint32_t v = 0, min = 0;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2, v = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF)
    len = 3, v = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4)
    len = 4, v = c & 0x07, min = 0x10000;
  if (len == 0 || len > s.size() - i) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000)) return 0;
  cp = static_cast<char32_t>(v);
  return len;
}

}  // namespace

bool valid_utf8(std::string_view s, size_t* bad_at) {
  char32_t cp = 0;
  for (size_t i = 0; i < s.size();) {
    const size_t n = checked_sequence(s, i, cp);
    if (n == 0) {
      if (bad_at) *bad_at = i;
      return false;
    }
    i += n;
  }
  return true;
}

std::u32string decode_utf8(std::string_view s, const char* what) {
  std::u32string out;
  out.reserve(s.size());
  char32_t cp = 0;
  for (size_t i = 0; i < s.size();) {
    const size_t n = checked_sequence(s, i, cp);
    if (n == 0) raise<ValueError>(what, ": invalid UTF-8 at byte ", i);
    out.push_back(cp);
    i += n;
  }
  return out;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string encode_utf8(const std::u32string& s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) append_utf8(out, c);
  return out;
}

}  // namespace ember::io
