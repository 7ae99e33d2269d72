#pragma once
// Validation shared by every op front-end: devices first, then dtypes (docs/DESIGN.md). In the
// extension set, so that nn/, data/ and extensions check their arguments in the front-ends' own
// messages.
#include <initializer_list>
#include <string>
#include <vector>

#include "ember/core/scalar.h"
#include "ember/core/tensor.h"

namespace ember {

/// An op argument for error messages: its parameter name and the tensor (may be undefined,
/// e.g. an absent bias, and is then skipped).
struct Arg {
  const char* name;
  const Tensor& tensor;
};

/// DeviceMismatchError "tensors on different devices: <op> got <a> on <d1> and <b> on <d2>"
/// for the first argument whose device differs from the first defined one. A registered
/// name is shown in parentheses and adds the model.to(device) hint.
EMBER_API void check_same_device(const char* op, std::initializer_list<Arg> args);
/// The same for a list argument, reported as name[i] ("tensors[1]").
EMBER_API void check_same_device(const char* op, const char* list_name, const std::vector<Tensor>& tensors);
/// DTypeError "dtype mismatch in <op>: <a> is float32 but <b> is float64".
EMBER_API void check_same_dtype(const char* op, std::initializer_list<Arg> args);
EMBER_API void check_same_dtype(const char* op, const char* list_name, const std::vector<Tensor>& tensors);
/// DTypeError "dtype mismatch in <op>: <arg> must be <expected>, got <actual>".
EMBER_API void check_dtype(const char* op, const Arg& arg, DType expected);
/// DTypeError "dtype mismatch in <op>: <arg> must be int64 or int32, got <actual>": indices
/// (index_select, gather, embedding take int32 token ids too, widened to int64).
EMBER_API void check_index_dtype(const char* op, const Arg& arg);
/// DTypeError "dtype mismatch in <op>: <arg> must be float32 or float64, got <actual>".
EMBER_API void check_floating(const char* op, const Arg& arg);
/// ValueError "<op>: <arg> is an undefined tensor" for a missing required tensor.
EMBER_API void check_defined(const char* op, std::initializer_list<Arg> args);
/// The same for each tensor of a list, reported as name[i] ("tensors[1]").
EMBER_API void check_defined(const char* op, const char* list_name, const std::vector<Tensor>& tensors);
/// ShapeError unless arg has ndim dims ("<op>: <arg> must be 4-D, got shape [..]").
EMBER_API void check_ndim(const char* op, const Arg& arg, int64_t ndim);
/// ValueError "<op>: <name> <value> cannot be converted to <dtype> without overflow" where a
/// tensor of dtype cannot hold value, as PyTorch refuses it: NaN or an infinity into an
/// integer dtype, a value (truncated toward zero) outside the integer dtype's range, a finite
/// value beyond float32's. Any value fits bool and float64; every fill and factory that takes
/// a value checks it here.
EMBER_API void check_value_fits(const char* op, const char* name, const Scalar& value, DType dtype);
/// "weight (conv1.weight)" or "weight".
EMBER_API std::string describe_arg(const char* name, const Tensor& t);

}  // namespace ember
