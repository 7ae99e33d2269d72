#pragma once
// Scaled dot-product attention with PyTorch's semantics
// (torch.nn.functional.scaled_dot_product_attention).
#include <optional>

#include "ember/core/tensor.h"

namespace ember {

/// softmax(query key^T * scale + mask) value over the last two dims: query [..., L, E],
/// key [..., S, E], value [..., S, Ev] give [..., L, Ev]; the leading (batch, head) dims
/// broadcast. scale defaults to 1 / sqrt(E) (1 when E is 0).
///
/// attn_mask: bool (true attends, false is masked out) or an additive mask of query's dtype,
/// broadcastable to [..., L, S]; it gets no gradient (one that requires grad is a ValueError).
/// is_causal masks key j > query i (top-left aligned, torch.ones(L, S).tril() when L != S);
/// it cannot be combined with attn_mask (ValueError). dropout_p > 0 drops attention weights
/// (scaled by 1 / (1 - dropout_p)) from the default generator, whatever the module's mode, as
/// PyTorch's function does.
///
/// query, key and value are read where they are, not copied, when their last dim has unit
/// stride and their batch dims merge (heads split by a transpose, keys broadcast across
/// heads). Heads split from one sequence's [1, L, H * E] (transpose of [1, L, H, E]) give an
/// output in that interleaved layout, so transpose(1, 2) and reshape back to [1, L, H * Ev] is
/// a view. Those inputs are saved as they are: writing to them in place after the forward makes
/// the backward raise AutogradError, as for any saved tensor.
///
/// A query row whose keys are all masked out (by attn_mask, or additive -inf everywhere)
/// gives zeros in the output and zero gradients, as FlashAttention does, never NaN
/// (PyTorch's math path gives NaN there).
///
/// Errors, in this order: undefined tensors (ValueError); devices (DeviceMismatchError
/// naming query, key, value or attn_mask); dtypes (DTypeError: query floating, key and value
/// of its dtype, attn_mask bool or query's dtype); argument values (ValueError); shapes
/// (ShapeError: fewer than 2 dims, E or S differing, batch dims that do not broadcast, a mask
/// that does not broadcast to [..., L, S]).
EMBER_API Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                              const Tensor& attn_mask = Tensor(), double dropout_p = 0.0,
                                              bool is_causal = false,
                                              std::optional<double> scale = std::nullopt);

}  // namespace ember
