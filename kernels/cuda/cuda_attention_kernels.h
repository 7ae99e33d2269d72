#pragma once
// The row kernels around scaled dot-product attention's cuBLAS products
// (cuda_attention.cpp): scores [B, L, S] contiguous, one block per row.
#include "ember/core/tensor.h"

namespace ember::cuda_detail {

/// In place: scores (q k^T) become softmax(scale * scores, masked) row by row, and lse [B, L]
/// each row's log-sum-exp (lse may be undefined: none). A row with every key masked becomes
/// zeros, its lse -inf. mask: undefined, bool (false masks out) or additive, [B, L, S] with
/// any strides.
void attention_softmax(const Tensor& scores, const Tensor& lse, const Tensor& mask, bool is_causal,
                       double scale);
/// In place: scores (q k^T) become the probabilities exp(scale * scores, masked, - lse)
/// (zeros where lse is -inf), the forward's recomputed.
void attention_probs(const Tensor& scores, const Tensor& lse, const Tensor& mask, bool is_causal,
                     double scale);
/// In place: grad_probs (dO v^T) becomes the scores' gradient
/// scale * P o (dP - rowsum(P o dP)).
void attention_softmax_backward(const Tensor& grad_probs, const Tensor& probs, double scale);

}  // namespace ember::cuda_detail
