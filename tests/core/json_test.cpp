// The JSON reader and quoting of core/io/json.h, which nn's checkpoints and configs and data's
// tokenizer files go through.
#include "ember/core/io/json.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "support/expect.h"

using namespace ember;
namespace json = ember::io::json;

TEST(Json, ParsesAndQuotes) {
  const json::Value v = json::parse(R"( {"a": [1, -2.5e3, true, false, null, "x\ty"], "b": {}} )");
  ASSERT_EQ(v.type, json::Value::Type::Object);
  const json::Value* a = v.find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->items.size(), 6u);
  uint64_t n = 0;
  EXPECT_TRUE(a->items[0].as_uint64(n));
  EXPECT_EQ(n, 1u);
  EXPECT_FALSE(a->items[1].as_uint64(n));
  EXPECT_EQ(a->items[1].text, "-2.5e3");
  EXPECT_TRUE(a->items[2].boolean);
  EXPECT_EQ(a->items[4].type, json::Value::Type::Null);
  EXPECT_EQ(a->items[5].text, "x\ty");
  EXPECT_EQ(v.find("c"), nullptr);
  EXPECT_TRUE(json::parse("18446744073709551615").as_uint64(n));
  EXPECT_EQ(n, UINT64_MAX);
  EXPECT_FALSE(json::parse("18446744073709551616").as_uint64(n));
  EXPECT_EQ(json::quote("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  for (const char* bad : {"", "01", "1.", "-", "[1,]", "{\"a\" 1}", "\"abc", "tru", "1e", "\"\\x\"", "{1:2}"})
    EXPECT_THROW_MSG(json::parse(bad), IOError, "invalid JSON at byte");
}

TEST(Json, TextMustBeUtf8AndSurrogatesPaired) {
  EXPECT_EQ(json::parse(R"("\u00e9\ud83d\ude00")").text, "\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_THROW_LINE(json::parse("\"a\xff\""), IOError, "invalid JSON at byte 2: invalid UTF-8");
  EXPECT_THROW_LINE(json::parse(R"("\ud83d")"), IOError, "invalid JSON at byte 7: unpaired surrogate");
  EXPECT_THROW_LINE(json::parse(R"("\ude00")"), IOError, "invalid JSON at byte 7: unpaired surrogate");
}
