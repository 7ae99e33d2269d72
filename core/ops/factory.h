#pragma once
// Tensor factories. Options give dtype (float32 by default), device and requires_grad.
#include <initializer_list>
#include <vector>

#include "ember/core/ops/nested_list.h"
#include "ember/core/tensor.h"

namespace ember {

/// Uninitialised values.
EMBER_API Tensor empty(const Shape& shape, TensorOptions options = {});
EMBER_API Tensor zeros(const Shape& shape, TensorOptions options = {});
EMBER_API Tensor ones(const Shape& shape, TensorOptions options = {});
/// value converted to options' dtype (float32 unless given: the dtype is not inferred from
/// the value); an integer value reaches an int64 tensor exactly.
EMBER_API Tensor full(const Shape& shape, Scalar value, TensorOptions options = {});
/// [start, end) in steps of step (ValueError for step 0); 1-D.
EMBER_API Tensor arange(double start, double end, double step = 1, TensorOptions options = {});
EMBER_API Tensor arange(double end, TensorOptions options = {});
/// Uniform on [0, 1) from the default generator.
EMBER_API Tensor rand(const Shape& shape, TensorOptions options = {});
/// Standard normal from the default generator.
EMBER_API Tensor randn(const Shape& shape, TensorOptions options = {});
/// Integers uniform on [low, high) (int64 unless options say otherwise).
EMBER_API Tensor randint(int64_t low, int64_t high, const Shape& shape,
                         TensorOptions options = TensorOptions(kInt64));
/// Uniform on [low, high), filling t in place (no autograd record); used by nn init.
EMBER_API Tensor& uniform_(Tensor& t, double low, double high);
EMBER_API Tensor& normal_(Tensor& t, double mean, double std);

EMBER_API Tensor empty_like(const Tensor& t);
EMBER_API Tensor zeros_like(const Tensor& t);
EMBER_API Tensor ones_like(const Tensor& t);
EMBER_API Tensor full_like(const Tensor& t, Scalar value);
EMBER_API Tensor rand_like(const Tensor& t);
EMBER_API Tensor randn_like(const Tensor& t);

/// A tensor of the numbers in nested braced lists: tensor({1, 2}) is int64 [2],
/// tensor({{1.5}, {2}}) float32 [2, 1], tensor({true, false}) bool [2]. As torch.tensor: any
/// floating number makes the whole float32, else any integer int64, else bool; {} is
/// float32 [0]. A dtype in options overrides that (the values converted to it, as from_vector
/// converts). ValueError for rows of unequal length.
EMBER_API Tensor tensor(const NestedList& values, TensorOptions options = {});
/// A tensor of shape from row-major values (ShapeError when the counts differ), converted to
/// options' dtype.
template <class T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape, TensorOptions options);
/// As above with the dtype of T.
template <class T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape) {
  return from_vector(values, shape, TensorOptions(dtype_of<T>::value));
}
/// A 1-D tensor with the dtype of T.
template <class T>
Tensor from_vector(const std::vector<T>& values) {
  return from_vector(values, Shape{static_cast<int64_t>(values.size())});
}
/// A scalar (0-dim) tensor.
EMBER_API Tensor scalar_tensor(Scalar value, TensorOptions options = {});

}  // namespace ember
