// The JSON reader of core/io/json.h.
#include "ember/core/io/json.h"

#include <cstdio>

#include "ember/core/error.h"
#include "ember/core/io/file_io.h"
#include "ember/core/io/utf8.h"

namespace ember::io::json {
namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  Value document() {
    Value v = value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected text after the value");
    return v;
  }

 private:
  [[noreturn]] void fail(const char* why) const { raise<IOError>("invalid JSON at byte ", pos_, ": ", why); }
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }
  void skip_ws() {
    while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  void expect(char c, const char* why) {
    if (at_end() || s_[pos_] != c) fail(why);
    ++pos_;
  }
  void literal(const char* word, Value& v, Value::Type type, bool b) {
    for (const char* p = word; *p; ++p) expect(*p, "invalid literal");
    v.type = type;
    v.boolean = b;
  }

  Value value(int depth) {
    if (depth > kMaxDepth) fail("nesting is too deep");
    skip_ws();
    Value v;
    switch (peek()) {
      case '{':
        object(v, depth);
        break;
      case '[':
        array(v, depth);
        break;
      case '"':
        v.type = Value::Type::String;
        v.text = string();
        break;
      case 't':
        literal("true", v, Value::Type::Bool, true);
        break;
      case 'f':
        literal("false", v, Value::Type::Bool, false);
        break;
      case 'n':
        literal("null", v, Value::Type::Null, false);
        break;
      default:
        number(v);
    }
    return v;
  }

  void object(Value& v, int depth) {
    v.type = Value::Type::Object;
    ++pos_;
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      return;
    }
    for (;;) {
      skip_ws();
      if (peek() != '"') fail("expected a string key");
      std::string key = string();
      skip_ws();
      expect(':', "expected ':'");
      v.members.emplace_back(std::move(key), value(depth + 1));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect('}', "expected ',' or '}'");
      return;
    }
  }

  void array(Value& v, int depth) {
    v.type = Value::Type::Array;
    ++pos_;
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      return;
    }
    for (;;) {
      v.items.push_back(value(depth + 1));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']', "expected ',' or ']'");
      return;
    }
  }

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  void number(Value& v) {
    const size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (is_digit(peek())) {
      while (is_digit(peek())) ++pos_;
    } else {
      fail(start == pos_ ? "unexpected character" : "expected a digit");
    }
    if (peek() == '.') {
      ++pos_;
      if (!is_digit(peek())) fail("expected a digit after '.'");
      while (is_digit(peek())) ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!is_digit(peek())) fail("expected a digit in the exponent");
      while (is_digit(peek())) ++pos_;
    }
    v.type = Value::Type::Number;
    v.text = s_.substr(start, pos_ - start);
  }

  unsigned hex4() {
    unsigned u = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = peek();
      unsigned d = 0;
      if (c >= '0' && c <= '9')
        d = static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        d = static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        d = static_cast<unsigned>(c - 'A' + 10);
      else
        fail("invalid \\u escape");
      u = u * 16 + d;
      ++pos_;
    }
    return u;
  }

  std::string string() {
    ++pos_;  // the opening quote
    std::string out;
    for (;;) {
      if (at_end()) fail("unterminated string");
      const char c = s_[pos_];
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      ++pos_;
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_end()) fail("unterminated escape");
      switch (s_[pos_++]) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00) {  // a high surrogate needs its low half
            if (peek() != '\\') fail("unpaired surrogate");
            ++pos_;
            if (peek() != 'u') fail("unpaired surrogate");
            ++pos_;
            const unsigned lo = hex4();
            if (lo < 0xDC00 || lo >= 0xE000) fail("unpaired surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            fail("unpaired surrogate");
          }
          io::append_utf8(out, static_cast<char32_t>(cp));
          break;
        }
        default:
          --pos_;
          fail("invalid escape");
      }
    }
  }

  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

const Value* Value::find(const std::string& key) const {
  for (const auto& m : members)
    if (m.first == key) return &m.second;
  return nullptr;
}

bool Value::as_uint64(uint64_t& out) const {
  if (type != Type::Number || text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

Value parse(const std::string& text) {
  size_t bad = 0;
  if (!io::valid_utf8(text, &bad)) raise<IOError>("invalid JSON at byte ", bad, ": invalid UTF-8");
  return Parser(text).document();
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"')
      out += "\\\"";
    else if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

Value parse_file(const std::string& path, const char* what) {
  const std::string text = io::read_file(path, what);
  try {
    return parse(text);
  } catch (const IOError& e) {
    raise<IOError>(what, ": ", path, " is not valid JSON: ", e.what());
  }
}

Value parse_object_file(const std::string& path, const char* what) {
  Value root = parse_file(path, what);
  if (root.type != Value::Type::Object)
    raise<ValueError>(what, ": ", path, " must hold a JSON object, got ", describe(root));
  return root;
}

std::string describe(const Value& v) {
  switch (v.type) {
    case Value::Type::Null:
      return "null";
    case Value::Type::Bool:
      return v.boolean ? "true" : "false";
    case Value::Type::Number:
      return v.text;
    case Value::Type::String:
      return quote(v.text);
    case Value::Type::Array:
      return "an array";
    case Value::Type::Object:
      return "an object";
  }
  return "?";
}

}  // namespace ember::io::json
