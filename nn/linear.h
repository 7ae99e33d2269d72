#pragma once
// Linear: y = x W^T + b, as torch.nn.Linear.
#include <memory>
#include <optional>

#include "ember/core/ops/linear_pack.h"
#include "ember/nn/module.h"

namespace ember::nn {

class EMBER_API Linear : public Module {
 public:
  /// weight [out_features, in_features] and bias [out_features], PyTorch's default init.
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  ~Linear() override;
  /// input [..., in_features] -> [..., out_features].
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  /// Re-draws weight and bias from the default generator.
  void reset_parameters();

  /// Keeps a copy of the weight packed for the device's GEMM (core/ops/linear_pack.h), which
  /// forward then reads: for inference, where one weight serves many inputs (4-9% of a
  /// batch-1 BERT forward's time on the CPU). Float32 gives the same bits; BFloat16 rounds
  /// the weight and each input to bfloat16 and sums in float32 (PackFormat::BFloat16: half the
  /// memory, about twice the rate on CPUs with AVX512_BF16). forward packs again once the
  /// weight has changed (an optimizer step, load_state_dict, to()), so training stays correct,
  /// only without the gain. Costs the weight's size again in memory (half for bfloat16); a weight
  /// on pages that map_file mapped gives them back, so that only the pack stays resident.
  /// forward, pack_weight and unpacking may run on several threads at once: a forward uses the
  /// pack in force when it starts. Errors are pack_linear_weight's, with the pack unchanged.
  void pack_weight(PackFormat format);
  /// pack_weight(PackFormat::Float32), or with false, back to the weight as it is (the pack
  /// freed).
  void pack_weight(bool on = true);
  /// Whether a pack is in force.
  bool weight_packed() const;
  /// The pack's format; nullopt when none is in force.
  std::optional<PackFormat> packed_format() const;

  const int64_t in_features, out_features;
  Tensor weight;
  Tensor bias;  // undefined without bias

 private:
  friend int64_t pack_linear_weights(Module& root, PackFormat format);
  struct Pack;  // linear.cpp
  std::unique_ptr<Pack> pack_;
};

/// pack_weight(on) for every Linear in root (root included); returns how many there are.
EMBER_API int64_t pack_linear_weights(Module& root, bool on = true);
/// pack_weight(format) for every Linear in root (root included); returns how many there are.
/// On an error (a device or CPU without the format), no Linear's pack has changed.
EMBER_API int64_t pack_linear_weights(Module& root, PackFormat format);

}  // namespace ember::nn
