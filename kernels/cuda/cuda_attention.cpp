// scaled_dot_product_attention on CUDA: cuBLAS products (this backend's matmul, strided
// batches, transposed operands read in place) around the row kernels of
// cuda_attention_kernels.h. The L x S scores are materialised, once in the forward and
// twice in the backward (the probabilities, recomputed from the saved log-sum-exps, and
// their gradient).
#include "ember/kernels/cuda/cuda_attention_kernels.h"
#include "ember/kernels/cuda/cuda_backend.h"

namespace ember {
namespace {

// The [B, C, R] transpose of a [B, R, C] tensor, as a view.
Tensor transposed(const Tensor& t) {
  return detail::make_view(t, {t.size(0), t.size(2), t.size(1)}, {t.stride(0), t.stride(2), t.stride(1)},
                           t.offset());
}

}  // namespace

void CudaBackend::attention(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                            const Tensor& v, const Tensor& mask, bool is_causal, double scale) {
  const int64_t B = q.size(0), L = q.size(1), S = k.size(1);
  if (B * L == 0) return;
  CudaDeviceGuard guard(q.device().index);
  Tensor scores = detail::make_empty({B, L, S}, q.dtype(), q.device(), "scaled_dot_product_attention");
  matmul(scores, q, transposed(k), Tensor());  // (matmul reads strided operands in place)
  cuda_detail::attention_softmax(scores, lse, mask, is_causal, scale);
  if (out.is_contiguous()) {
    matmul(out, scores, v, Tensor());
    return;
  }
  // cuBLAS writes rows of one batch entry contiguous, not interleaved with the others'.
  const Tensor dense =
      detail::make_empty(out.shape(), out.dtype(), out.device(), "scaled_dot_product_attention");
  matmul(dense, scores, v, Tensor());
  copy(out, dense);
}

void CudaBackend::attention_backward(const Tensor& grad_q, const Tensor& grad_k, const Tensor& grad_v,
                                     const Tensor& grad_out, const Tensor& q, const Tensor& k,
                                     const Tensor& v, const Tensor&, const Tensor& lse, const Tensor& mask,
                                     bool is_causal, double scale) {
  const int64_t B = q.size(0), L = q.size(1), S = k.size(1);
  CudaDeviceGuard guard(q.device().index);
  Tensor probs = detail::make_empty({B, L, S}, q.dtype(), q.device(), "scaled_dot_product_attention");
  Tensor grad_scores = detail::make_empty({B, L, S}, q.dtype(), q.device(), "scaled_dot_product_attention");
  matmul(probs, q, transposed(k), Tensor());
  cuda_detail::attention_probs(probs, lse, mask, is_causal, scale);
  matmul(grad_v, transposed(probs), grad_out, Tensor());
  matmul(grad_scores, grad_out, transposed(v), Tensor());
  cuda_detail::attention_softmax_backward(grad_scores, probs, scale);
  // (An empty inner dim, L or S = 0, makes matmul write zeros.)
  matmul(grad_q, grad_scores, k, Tensor());
  matmul(grad_k, transposed(grad_scores), q, Tensor());
}

}  // namespace ember
