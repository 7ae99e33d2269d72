// A linear's weight packed once for Ember's sgemm (kernels/cpu/sgemm.h), and products from it.
// sgemm packs its right operand at every call: for a linear, W^T in panels of 16 columns. At
// batch 1 the products are small (48 tokens x 128 features), and that copy was 4-9% of a
// BERT forward's time; inference with a fixed weight makes it once (nn::Linear::pack_weight).
#include "ember/core/error.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/gemm_blocks.h"
#include "ember/kernels/cpu/sgemm.h"
#include "ember/kernels/gemm_layout.h"

namespace ember {

Tensor CpuBackend::pack_linear_weight(const Tensor& weight) {
  if (weight.dtype() != DType::Float32 || !cpu::sgemm_available()) return Tensor();
  const int64_t N = weight.size(0), K = weight.size(1);
  Tensor packed = detail::make_empty({cpu::sgemm_packed_floats(K, N)}, DType::Float32, weight.device());
  // The right operand is W^T: B(k, j) = W[j, k].
  cpu::sgemm_pack(packed.data_ptr<float>(), weight.data_ptr<float>(), weight.stride(1), weight.stride(0), K,
                  N);
  return packed;
}

void CpuBackend::linear_packed(const Tensor& out, const Tensor& x_in, const Tensor& packed,
                               const Tensor& bias) {
  // Tensors of more than two dims come contiguous (the contract): rows of their last dim.
  const int64_t N = out.size(-1), K = x_in.size(-1),
                M = out.dim() == 2 ? out.size(0)
                    : N            ? out.numel() / N
                                   : 0;
  if (packed.numel() != cpu::sgemm_packed_floats(K, N))
    raise<ValueError>("linear_packed: the packed weight holds ", packed.numel(), " floats, not the ",
                      cpu::sgemm_packed_floats(K, N), " of a [", N, ", ", K, "] weight");
  Tensor x = x_in;
  MatrixLayout lx =
      x.dim() == 2 ? describe_matrix(M, K, x.stride(0), x.stride(1)) : describe_matrix(M, K, K, 1);
  if (!lx.ok) lx = describe_matrix(M, K, (x = contiguous(x_in)).stride(0), x.stride(1));
  const int64_t x_rs = lx.row_major ? lx.ld : 1, x_cs = lx.row_major ? 1 : lx.ld;
  const float* px = x.data_ptr<float>();
  const float* pw = packed.data_ptr<float>();
  const Tensor bias_c = contiguous(bias);
  const float* pb = bias_c.defined() ? bias_c.data_ptr<float>() : nullptr;
  float* po = out.data_ptr<float>();
  cpu::for_each_gemm_block(M, N, K, [&](int64_t i0, int64_t m, int64_t j0, int64_t n) {
    cpu::sgemm_prepacked(po + i0 * N + j0, N, px + i0 * x_rs, x_rs, x_cs, pw + j0 * K, m, n, K, false,
                         pb ? pb + j0 : nullptr);
  });
}

}  // namespace ember
