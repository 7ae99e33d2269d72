#pragma once
// A linear's weight packed once for its device's GEMM (inference): the CPU's sgemm otherwise
// copies W^T into its panel layout at every product. linear(input, weight, bias, pack) uses a
// pack only while the weight is exactly what it was packed from; the bits are the same either way.
#include <memory>

#include "ember/core/tensor.h"

namespace ember {

class EMBER_API LinearWeightPack {
 public:
  LinearWeightPack() = default;
  /// Whether this holds a packed copy (the device's backend may have no packed form: CUDA,
  /// float64, a CPU build without Ember's sgemm).
  bool defined() const { return packed_.defined(); }
  /// Whether this was packed from weight as it is now: the same storage, view and version (an
  /// in-place op, an optimizer step, load_state_dict or Module::to since makes it stale).
  /// Writes through data_ptr() bump no version and are not seen, as in PyTorch.
  bool is_current_for(const Tensor& weight) const;
  /// Bytes the packed copy holds (0 when undefined).
  int64_t nbytes() const;

 private:
  friend EMBER_API LinearWeightPack pack_linear_weight(const Tensor& weight);
  friend EMBER_API Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                 const LinearWeightPack& pack);

  Tensor packed_;
  std::weak_ptr<const Storage> source_;  // weak: a freed weight's address may be reused
  uint64_t version_ = 0;
  int64_t offset_ = 0;
  Shape shape_, strides_;
};

/// Packs weight [out, in] for linear(); an undefined pack where its backend has no packed form.
/// Costs one copy of the weight in memory.
EMBER_API LinearWeightPack pack_linear_weight(const Tensor& weight);

/// linear(input, weight, bias), read from pack when pack.is_current_for(weight) (else as if
/// there were no pack). Checks and gradients are linear()'s: the pack changes only the speed.
EMBER_API Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const LinearWeightPack& pack);

}  // namespace ember
