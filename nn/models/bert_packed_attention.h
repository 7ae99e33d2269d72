#pragma once
// Self-attention over packed sequences (Bert::set_skip_padding): q, k and v are [N, H], the
// projections of N real tokens, sequence after sequence (offsets: where each starts, and N at
// the end); each sequence attends to its own tokens only, in num_heads heads, with dropout on
// the attention weights while training. Returns [N, H].
//
// Recording autograd, the whole loop is one node. Slicing each sequence out of q, k and v with
// autograd's views made every slice's gradient a full [N, H] tensor of zeros around it, summed
// over the batch: O(batch x N x H) per projection, a tenth of the BERT step. The node's
// backward computes each sequence's gradients from the weights and dropout masks it kept and
// concatenates them. Without autograd, each sequence goes through
// scaled_dot_product_attention (its fused kernel).
#include <cstdint>
#include <vector>

#include "ember/core/export.h"
#include "ember/core/tensor.h"

namespace ember::nn::models {

EMBER_API Tensor packed_self_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                       const std::vector<int64_t>& offsets, int64_t num_heads,
                                       double dropout_p);

}  // namespace ember::nn::models
