#include "ember/data/unicode.h"

#include <utf8proc.h>

#include <vector>

#include "ember/core/error.h"
#include "ember/core/io/utf8.h"

namespace ember::data::unicode {
namespace {

utf8proc_category_t category(char32_t c) { return utf8proc_category(static_cast<utf8proc_int32_t>(c)); }

}  // namespace

bool is_other(char32_t c) {
  switch (category(c)) {
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO:
      return true;
    default:
      return false;
  }
}

bool is_white_space(char32_t c) {
  if ((c >= 0x09 && c <= 0x0D) || c == 0x85) return true;
  const utf8proc_category_t cat = category(c);
  return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
}

bool is_punctuation(char32_t c) {
  const utf8proc_category_t cat = category(c);
  return cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO;
}

bool is_nonspacing_mark(char32_t c) { return category(c) == UTF8PROC_CATEGORY_MN; }

int combining_class(char32_t c) {
  return utf8proc_get_property(static_cast<utf8proc_int32_t>(c))->combining_class;
}

std::u32string nfd(const std::u32string& s) {
  // utf8proc orders combining marks only in its whole-string form, which reads UTF-8.
  const std::string utf8 = io::encode_utf8(s);
  const auto* src = reinterpret_cast<const utf8proc_uint8_t*>(utf8.data());
  const auto len = static_cast<utf8proc_ssize_t>(utf8.size());
  const auto options = static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE);
  std::vector<utf8proc_int32_t> buf(s.size() + 8);
  while (true) {
    const utf8proc_ssize_t n =
        utf8proc_decompose(src, len, buf.data(), static_cast<utf8proc_ssize_t>(buf.size()), options);
    if (n < 0) raise<ValueError>("unicode::nfd: ", utf8proc_errmsg(n));
    if (static_cast<size_t>(n) <= buf.size()) return std::u32string(buf.begin(), buf.begin() + n);
    buf.resize(static_cast<size_t>(n));
  }
}

void append_lower(std::u32string& out, char32_t c) {
  if (c == 0x130) {
    out.push_back(U'i');
    out.push_back(0x307);
    return;
  }
  out.push_back(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
}

}  // namespace ember::data::unicode
