#include "ember/data/parse.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"

namespace ember::data {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

[[noreturn]] void bad_token(const std::string& token, size_t position, DType dtype) {
  raise<ValueError>("parse_values: \"", token, "\" (position ", position, ") is not a valid ",
                    dtype_name(dtype), " number");
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text + ' ') {
    if (!is_space(c)) {
      cur += c;
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  return out;
}

// The tokens of text: whitespace-separated words, or, when there are commas, the fields
// between them (each may hold several words); a field with no word is an empty token.
std::vector<std::string> tokens(const std::string& text) {
  if (text.find(',') == std::string::npos) return words(text);
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::vector<std::string> field = words(text.substr(start, comma - start));
    if (field.empty()) out.emplace_back();
    out.insert(out.end(), field.begin(), field.end());
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// The tokens as numbers of options' dtype; token i (0-based) is at position i + 1 in errors.
Tensor values_of_tokens(const std::vector<std::string>& toks, TensorOptions options) {
  const DType dtype = options.dtype();
  std::vector<double> values;
  std::vector<int64_t> ints;
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string& tok = toks[i];
    if (tok.empty()) bad_token(tok, i + 1, dtype);
    const char* begin = tok.c_str();
    char* end = nullptr;
    errno = 0;
    if (is_floating(dtype)) {
      const double v = std::strtod(begin, &end);
      if (*end != '\0' || errno == ERANGE) bad_token(tok, i + 1, dtype);
      values.push_back(v);
    } else {
      const long long v = std::strtoll(begin, &end, 10);
      if (*end != '\0' || errno == ERANGE) bad_token(tok, i + 1, dtype);
      if (dtype == kUInt8 && (v < 0 || v > 255)) bad_token(tok, i + 1, dtype);
      if (dtype == kInt32 && (v < INT32_MIN || v > INT32_MAX)) bad_token(tok, i + 1, dtype);
      if (dtype == kBool && v != 0 && v != 1) bad_token(tok, i + 1, dtype);
      ints.push_back(static_cast<int64_t>(v));
    }
  }
  Tensor t = is_floating(dtype)
                 ? from_vector(values, {static_cast<int64_t>(values.size())}, TensorOptions(kFloat64))
                 : from_vector(ints, {static_cast<int64_t>(ints.size())}, TensorOptions(kInt64));
  return t.to(dtype).to(options.device());
}

}  // namespace

Tensor parse_values(const std::string& text, TensorOptions options) {
  return values_of_tokens(tokens(text), options);
}

Tensor parse_values(const std::vector<std::string>& texts, TensorOptions options) {
  std::vector<std::string> toks;
  toks.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::vector<std::string> w = words(texts[i]);
    if (w.size() != 1) bad_token(texts[i], i + 1, options.dtype());  // one number per element
    toks.push_back(w[0]);
  }
  return values_of_tokens(toks, options);
}

}  // namespace ember::data
