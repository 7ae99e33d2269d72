#pragma once
// A small JSON reader and string quoting, for the files nn and data read and write
// (safetensors headers, config.json, tokenizer.json). Strict (RFC 8259) and safe on hostile
// input: malformed text throws IOError with the byte position, nesting is limited, nothing
// recurses without bound. Internal: not installed (the tests use it, hence EMBER_API).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/export.h"

namespace ember::io::json {

struct EMBER_API Value {
  enum class Type { Null, Bool, Number, String, Array, Object };
  Type type = Type::Null;
  bool boolean = false;
  std::string text;                                    // a string's value or a number's lexeme
  std::vector<Value> items;                            // Array
  std::vector<std::pair<std::string, Value>> members;  // Object, in document order

  /// The member named key, or nullptr (also for non-objects).
  const Value* find(const std::string& key) const;
  /// A number written as a plain non-negative integer that fits in 64 bits.
  bool as_uint64(uint64_t& out) const;
};

/// Parses one JSON value followed only by whitespace; the text must be UTF-8 (RFC 8259).
/// IOError "invalid JSON at byte N: why".
EMBER_API Value parse(const std::string& text);
/// The JSON file at path, parsed: IOError "<what>: <path> is not valid JSON: invalid JSON at
/// byte N: why", or read_file's IOError when it cannot be read.
EMBER_API Value parse_file(const std::string& path, const char* what);
/// parse_file of a file that must hold an object (a config file): ValueError "<what>: <path> must
/// hold a JSON object, got <describe(value)>" otherwise.
EMBER_API Value parse_object_file(const std::string& path, const char* what);
/// s as a JSON string literal, quotes included (control characters escaped).
EMBER_API std::string quote(const std::string& s);
/// A value as an error message shows it: numbers and strings as written, null, true and false,
/// "an array", "an object".
EMBER_API std::string describe(const Value& v);

}  // namespace ember::io::json
