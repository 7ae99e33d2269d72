#pragma once
// Reductions over all dims or the given ones (keepdim keeps them as size 1).
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

struct ValuesIndices {
  Tensor values;
  Tensor indices;  // int64
};

/// Sum of all elements (bool and uint8 sum into int64).
EMBER_API Tensor sum(const Tensor& t);
/// Sum over dims (all dims when empty).
EMBER_API Tensor sum(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim = false);
/// Mean (floating dtypes only).
EMBER_API Tensor mean(const Tensor& t);
EMBER_API Tensor mean(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim = false);
/// Variance over dims (all dims when empty) with divisor max(0, N - correction), as
/// torch.var(input, dim, correction=1, keepdim=False): floating only; a correction at or past
/// N gives inf (nan where the values are equal), an empty reduction nan.
EMBER_API Tensor var(const Tensor& t);
EMBER_API Tensor var(const Tensor& t, const std::vector<int64_t>& dims, double correction = 1,
                     bool keepdim = false);
/// Standard deviation: the square root of var with the same arguments.
EMBER_API Tensor std(const Tensor& t);
EMBER_API Tensor std(const Tensor& t, const std::vector<int64_t>& dims, double correction = 1,
                     bool keepdim = false);
/// Largest / smallest element (NaN wins); the gradient is shared evenly between ties.
EMBER_API Tensor max(const Tensor& t);
EMBER_API Tensor min(const Tensor& t);
/// Largest / smallest over dims (the gradient is shared evenly between ties).
EMBER_API Tensor amax(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim = false);
EMBER_API Tensor amin(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim = false);
/// Largest / smallest along dim with the index of the first one.
EMBER_API ValuesIndices max(const Tensor& t, int64_t dim, bool keepdim = false);
EMBER_API ValuesIndices min(const Tensor& t, int64_t dim, bool keepdim = false);
/// Index of the first largest / smallest along dim.
EMBER_API Tensor argmax(const Tensor& t, int64_t dim, bool keepdim = false);
EMBER_API Tensor argmin(const Tensor& t, int64_t dim, bool keepdim = false);
/// Index into the flattened tensor.
EMBER_API Tensor argmax(const Tensor& t);
EMBER_API Tensor argmin(const Tensor& t);

}  // namespace ember
