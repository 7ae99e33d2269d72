#pragma once
// parse_values: numbers written as text ("1,0,1" from a label file) as a 1-D tensor. C++ has
// no run-time twin of a Python program's "a list where a tensor was needed", but text that
// should have been a tensor is the same mistake; this turns it into one, or says which token
// is wrong.
#include <initializer_list>
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::data {

/// The numbers in text, separated by commas and/or whitespace (newlines included), as a 1-D
/// tensor of options' dtype (int64 by default, as labels are). ValueError naming the first
/// token that is not a number of that dtype (a fraction for an integer dtype, a value out of
/// range, an empty field between two commas), with its 1-based position.
EMBER_API Tensor parse_values(const std::string& text, TensorOptions options = TensorOptions(kInt64));
/// A list of texts of one number each (Python's ['1', '0']; surrounding whitespace allowed)
/// as a 1-D tensor, as parse_values(text) reads each; ValueError naming an element that is
/// not one number of the dtype, with its 1-based position.
EMBER_API Tensor parse_values(const std::vector<std::string>& texts,
                              TensorOptions options = TensorOptions(kInt64));
/// parse_values({"1", "0"}): a braced list is a list of texts (not std::string's iterator pair).
inline Tensor parse_values(std::initializer_list<std::string> texts,
                           TensorOptions options = TensorOptions(kInt64)) {
  return parse_values(std::vector<std::string>(texts), options);
}

}  // namespace ember::data
