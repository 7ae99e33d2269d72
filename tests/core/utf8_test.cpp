// The UTF-8 codec of core/io/utf8.h: one check behind valid_utf8 and decode_utf8, so that
// what one rejects the other rejects at the same byte.
#include "ember/core/io/utf8.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/expect.h"

using namespace ember;

TEST(Utf8, EncodesAndDecodesEveryLengthAtItsBounds) {
  const std::u32string points = {0x0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF};
  const std::string bytes = io::encode_utf8(points);
  EXPECT_EQ(bytes, std::string("\0\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf"
                               "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf",
                               26));
  EXPECT_TRUE(io::valid_utf8(bytes));
  EXPECT_EQ(io::decode_utf8(bytes, "test"), points);
  size_t i = 0;
  std::u32string fast;
  while (i < bytes.size()) fast.push_back(io::next_code_point(bytes, i));
  EXPECT_EQ(fast, points);
}

TEST(Utf8, DecodeRejectsWhatValidUtf8RejectsAtTheSameByte) {
  const std::vector<std::string> bad = {
      "ab\xff",            // not a lead byte
      "a\x80",             // a stray continuation byte
      "\xc0\xaf",          // overlong '/'
      "\xe0\x80\xaf",      // overlong, three bytes
      "x\xed\xa0\x80",     // a surrogate
      "\xf4\x90\x80\x80",  // past U+10FFFF
      "ok \xe5\xa5",       // truncated 好
      "\xe5\x41\xbd",      // a continuation byte missing
  };
  for (const std::string& s : bad) {
    size_t at = 99;
    EXPECT_FALSE(io::valid_utf8(s, &at)) << s;
    EXPECT_THROW_LINE(io::decode_utf8(s, "decode"), ValueError,
                      "decode: invalid UTF-8 at byte " + std::to_string(at));
  }
}
