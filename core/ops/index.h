#pragma once
// Joining and indexing: cat, stack, index_select, gather. Indices are int64; an index out
// of range throws IndexError naming the op, the index and the size.
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

/// Concatenates along dim; all other sizes must agree (ShapeError naming tensors[i]).
EMBER_API Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
/// Stacks equally shaped tensors along a new dim.
EMBER_API Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
/// The slices of input at index (1-D) along dim.
EMBER_API Tensor index_select(const Tensor& input, int64_t dim, const Tensor& index);
/// out[i][j] = input[index[i][j]][j] (dim 0), as torch.gather; index has input's rank.
EMBER_API Tensor gather(const Tensor& input, int64_t dim, const Tensor& index);

}  // namespace ember
