#pragma once
// The examples' command lines: "--flag value" or "--flag=value", numbers checked whole, and
// every mistake a std::invalid_argument with a one-line message that names the flag.
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace ember::examples {

class FlagReader {
 public:
  explicit FlagReader(const std::vector<std::string>& args) : args_(args) {}

  /// Moves to the next argument; false when there is none.
  bool next() {
    if (++i_ >= args_.size()) return false;
    flag_ = args_[i_];
    const size_t eq = flag_.find('=');
    inline_value_ = flag_.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value_) {
      value_ = flag_.substr(eq + 1);
      flag_ = flag_.substr(0, eq);
    }
    return true;
  }
  /// The current flag, without an "=value" part.
  const std::string& flag() const { return flag_; }
  /// The current flag's value: after "=", or the next argument.
  std::string value() {
    if (inline_value_) return value_;
    if (i_ + 1 >= args_.size()) throw std::invalid_argument(flag_ + " needs a value");
    return args_[++i_];
  }
  /// The value as a number of type T (int, unsigned long long or double); a negative value
  /// for an integer flag, or trailing characters, are errors.
  template <class T>
  T number() {
    const std::string text = value();
    size_t used = 0;
    T result{};
    try {
      if constexpr (std::is_same<T, double>::value)
        result = std::stod(text, &used);
      else if constexpr (std::is_same<T, int>::value)
        result = std::stoi(text, &used);
      else
        result = static_cast<T>(std::stoull(text, &used));
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() ||
        (!text.empty() && text[0] == '-' && !std::is_same<T, double>::value))
      throw std::invalid_argument(flag_ + " expects a number, got \"" + text + "\"");
    return result;
  }
  [[noreturn]] void unknown() const {
    throw std::invalid_argument("unknown flag \"" + args_[i_] + "\" (see --help)");
  }

 private:
  const std::vector<std::string>& args_;
  size_t i_ = static_cast<size_t>(-1);
  std::string flag_, value_;
  bool inline_value_ = false;
};

}  // namespace ember::examples
