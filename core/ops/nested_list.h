#pragma once
// What tensor({...}) takes: numbers in braced lists nested to any depth, flattened as the
// lists are built. One class with an initializer-list constructor, rather than an overload
// per depth: GCC 12 finds tensor({{1}, {2}}) ambiguous between a list of doubles and a list
// of lists of doubles, while a list of NestedList has one reading at every depth.
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "ember/core/export.h"
#include "ember/core/shape.h"

namespace ember {

class EMBER_API NestedList {
 public:
  /// What the numbers are, lowest first: a list takes the highest of its items' kinds
  /// (Empty for a list without numbers).
  enum class Kind : uint8_t { Empty, Bool, Integer, Floating };

  /// One number (a 0-dim tensor when it is the whole argument).
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  NestedList(T value) {  // NOLINT: implicit, so that a number is an item of a braced list
    if constexpr (std::is_same_v<T, bool>) {
      kind_ = Kind::Bool;
      integers_.push_back(value ? 1 : 0);
    } else if constexpr (std::is_floating_point_v<T>) {
      kind_ = Kind::Floating;
      floats_.push_back(static_cast<double>(value));
    } else if constexpr (std::is_signed_v<T>) {
      kind_ = Kind::Integer;
      integers_.push_back(static_cast<int64_t>(value));
    } else {
      set_unsigned(static_cast<uint64_t>(value));
    }
  }
  /// A list of numbers, or of lists of one shape (ValueError otherwise); {} has shape [0].
  NestedList(std::initializer_list<NestedList> items);

  const Shape& shape() const { return shape_; }
  Kind kind() const { return kind_; }
  /// The values in row-major order: integers() for Bool and Integer, floats() for Floating.
  const std::vector<int64_t>& integers() const { return integers_; }
  const std::vector<double>& floats() const { return floats_; }

 private:
  void set_unsigned(uint64_t value);  // ValueError beyond int64's range

  Shape shape_;
  Kind kind_ = Kind::Empty;
  std::vector<int64_t> integers_;
  std::vector<double> floats_;
};

}  // namespace ember
