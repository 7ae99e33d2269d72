#pragma once
// A linear's weight packed once for its device's GEMM (inference): the CPU's sgemm otherwise
// copies W^T into its panel layout at every product. linear(input, weight, bias, pack) uses a
// pack only while the weight is exactly what it was packed from. A float32 pack gives the bits
// of the unpacked product; a bfloat16 pack, which a user asks for, rounds (PackFormat).
#include <memory>

#include "ember/core/tensor.h"

namespace ember {

/// The form a packed weight is kept in.
enum class PackFormat {
  /// The weight's float32 values: the same bits as the unpacked product, faster.
  Float32,
  /// bfloat16 (8 bits of mantissa): the weight and, at each product, the input are rounded to
  /// bfloat16 and their products summed in float32 (kernels/cpu/bf16_gemm.h). Half the
  /// weight's memory, and about twice the product rate on CPUs with AVX512_BF16; on other
  /// x86-64 CPUs with AVX2 the products expand to float (about float32's rate). Results move
  /// by about 1e-2 relative per product; for inference (under autograd, the gradients are
  /// the float32 product's). CPU only: NotImplementedError on CUDA and where no kernel runs.
  BFloat16,
};

/// "float32" or "bfloat16".
EMBER_API const char* pack_format_name(PackFormat format);

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
  /// The form it was packed in.
  PackFormat format() const { return format_; }

 private:
  friend EMBER_API LinearWeightPack pack_linear_weight(const Tensor& weight, PackFormat format);
  friend EMBER_API Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                 const LinearWeightPack& pack);

  Tensor packed_;
  std::weak_ptr<const Storage> source_;  // weak: a freed weight's address may be reused
  uint64_t version_ = 0;
  int64_t offset_ = 0;
  Shape shape_, strides_;
  PackFormat format_ = PackFormat::Float32;
};

/// Packs weight [out, in] for linear(); for float32, an undefined pack where its backend has
/// no packed form. Costs one copy of the weight in memory (half of one for bfloat16).
/// bfloat16: DTypeError for a weight that is not float32, NotImplementedError off the CPU or
/// on a CPU without a bfloat16 kernel.
EMBER_API LinearWeightPack pack_linear_weight(const Tensor& weight, PackFormat format = PackFormat::Float32);

/// linear(input, weight, bias), read from pack when pack.is_current_for(weight) (else as if
/// there were no pack). Checks and gradients are linear()'s: a float32 pack changes only the
/// speed, a bfloat16 one the forward's values too (PackFormat::BFloat16).
EMBER_API Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const LinearWeightPack& pack);

}  // namespace ember
