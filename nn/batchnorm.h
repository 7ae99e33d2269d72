#pragma once
// BatchNorm2d: per-channel normalisation of NCHW input, as torch.nn.BatchNorm2d.
#include "ember/nn/module.h"

namespace ember::nn {

class EMBER_API BatchNorm2d : public Module {
 public:
  /// affine: learnable weight (ones) and bias (zeros). track_running_stats: buffers
  /// running_mean (zeros), running_var (ones) and num_batches_tracked (int64 0), used in eval.
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                       bool track_running_stats = true);
  /// Training: batch statistics, running stats updated; eval: the running statistics.
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  /// Running mean 0, variance 1, count 0.
  void reset_running_stats();

  const int64_t num_features;
  const double eps, momentum;
  Tensor weight, bias;                                    // undefined unless affine
  Tensor running_mean, running_var, num_batches_tracked;  // undefined unless tracked
};

}  // namespace ember::nn
