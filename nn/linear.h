#pragma once
// Linear: y = x W^T + b, as torch.nn.Linear.
#include <memory>

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
  /// batch-1 BERT forward's time on the CPU). The results are the same bits. forward
  /// packs again once the weight has changed (an optimizer step, load_state_dict, to()), so
  /// training stays correct, only without the gain. Costs the weight's size again in memory;
  /// pack_weight(false) frees it. forward may run on several threads at once (the first to
  /// find the pack stale packs it again); pack_weight itself must not run beside a forward.
  void pack_weight(bool on = true);
  /// Whether pack_weight(true) is in force.
  bool weight_packed() const;

  const int64_t in_features, out_features;
  Tensor weight;
  Tensor bias;  // undefined without bias

 private:
  struct Pack;  // linear.cpp
  std::unique_ptr<Pack> pack_;
};

/// pack_weight(on) for every Linear in root (root included); returns how many there are.
EMBER_API int64_t pack_linear_weights(Module& root, bool on = true);

}  // namespace ember::nn
