#pragma once
// Datasets: indexed collections of (data, target) examples that a DataLoader batches.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::data {

/// One example, or a batch of them stacked along a new leading dim.
struct Example {
  Tensor data;
  Tensor target;
};
/// A batch has the same two fields as an example, with a leading batch dim.
using Batch = Example;

/// An indexed dataset. get and get_batch may run on a DataLoader's worker thread, one call
/// at a time, so they must not touch state that the iterating thread changes meanwhile.
class EMBER_API Dataset {
 public:
  virtual ~Dataset() = default;
  /// Number of examples.
  virtual size_t size() const = 0;
  /// Example i (0 <= i < size()), as CPU tensors.
  virtual Example get(size_t index) const = 0;
  /// The examples at indices, stacked. The default calls get() for each and stacks;
  /// datasets that hold their examples in one tensor override it with a gather.
  virtual Batch get_batch(const std::vector<int64_t>& indices) const;
};

/// Stacks the examples' data and their targets along a new dim 0 into CPU tensors. All data
/// must share one shape and dtype, and so must all targets (ShapeError / DTypeError naming
/// the first example that differs); ValueError for an empty list.
EMBER_API Batch default_collate(const std::vector<Example>& examples);

namespace detail {
/// IndexError "<op>: index <i> is out of range for a dataset of size <n>" unless 0 <= i < n.
EMBER_API void check_index(const char* op, int64_t index, size_t size);
}  // namespace detail

}  // namespace ember::data
