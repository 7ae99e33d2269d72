#pragma once
// TensorDataset: examples are the rows of a data tensor and of a targets tensor.
#include "ember/data/dataset.h"

namespace ember::data {

/// Example i is (data[i], targets[i]). Both tensors are kept as contiguous CPU tensors
/// (copied there if given elsewhere: a DataLoader's device option moves batches instead),
/// so a batch is gathered row by row with memcpy.
class EMBER_API TensorDataset : public Dataset {
 public:
  /// ShapeError unless both have at least one dim and the same size along dim 0.
  TensorDataset(Tensor data, Tensor targets);

  size_t size() const override;
  Example get(size_t index) const override;
  Batch get_batch(const std::vector<int64_t>& indices) const override;

  /// All data, [N, ...].
  const Tensor& data() const { return data_; }
  /// All targets, [N, ...].
  const Tensor& targets() const { return targets_; }

 private:
  Tensor data_;
  Tensor targets_;
};

}  // namespace ember::data
