// A linear's weight packed once for Ember's GEMMs, and products from it. sgemm packs its right
// operand at every call: for a linear, W^T in panels of 16 columns. At batch 1 the products
// are small (48 tokens x 128 features), and that copy was 4-9% of a BERT forward's time;
// inference with a fixed weight makes it once (nn::Linear::pack_weight). A bfloat16 pack
// (kernels/cpu/bf16_gemm.h) keeps W^T's panels as bfloat16 pairs, and each product rounds its
// input's rows to bfloat16 once before the blocks run.
#include <algorithm>
#include <memory>

#include "ember/core/error.h"
#include "ember/kernels/cpu/bf16_gemm.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/gemm_blocks.h"
#include "ember/kernels/cpu/sgemm.h"
#include "ember/kernels/gemm_layout.h"

namespace ember {

Tensor CpuBackend::pack_linear_weight(const Tensor& weight, PackFormat format) {
  const int64_t N = weight.size(0), K = weight.size(1);
  if (format == PackFormat::BFloat16) {
    if (!cpu::bf16_kernel_available(cpu::Bf16Kernel::Best))
      raise<NotImplementedError>(
          "pack_linear_weight: bfloat16 weights need an x86-64 CPU with AVX512_BF16 or "
          "AVX2 and FMA, and a build for it; use PackFormat::Float32");
    Tensor packed = detail::make_empty({cpu::bf16_packed_words(K, N)}, DType::Int32, weight.device());
    cpu::bf16_pack(reinterpret_cast<uint32_t*>(packed.data_ptr<int32_t>()), weight.data_ptr<float>(),
                   weight.stride(1), weight.stride(0), K, N);
    return packed;
  }
  if (weight.dtype() != DType::Float32 || !cpu::sgemm_available()) return Tensor();
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
  const bool bf16 = packed.dtype() == DType::Int32;
  const int64_t expected = bf16 ? cpu::bf16_packed_words(K, N) : cpu::sgemm_packed_floats(K, N);
  if (packed.numel() != expected)
    raise<ValueError>("linear_packed: the packed weight holds ", packed.numel(), bf16 ? " words" : " floats",
                      ", not the ", expected, " of a [", N, ", ", K, "] weight");
  Tensor x = x_in;
  MatrixLayout lx =
      x.dim() == 2 ? describe_matrix(M, K, x.stride(0), x.stride(1)) : describe_matrix(M, K, K, 1);
  if (!lx.ok) lx = describe_matrix(M, K, (x = contiguous(x_in)).stride(0), x.stride(1));
  const int64_t x_rs = lx.row_major ? lx.ld : 1, x_cs = lx.row_major ? 1 : lx.ld;
  const float* px = x.data_ptr<float>();
  const Tensor bias_c = contiguous(bias);
  const float* pb = bias_c.defined() ? bias_c.data_ptr<float>() : nullptr;
  float* po = out.data_ptr<float>();
  if (bf16) {
    // The input's rows rounded to bfloat16 once, for every block that reads them.
    // (Left uninitialized: bf16_pack_rows writes every word a block reads.)
    const int64_t words = cpu::bf16_row_words(K), pairs = cpu::bf16_pairs(K);
    const std::unique_ptr<uint32_t[]> rows(new uint32_t[static_cast<size_t>(M * words)]);
    parallel_for(M, std::max<int64_t>(1, kMinTaskMacs / 16 / std::max<int64_t>(1, K)),
                 [&](int64_t lo, int64_t hi) {
                   cpu::bf16_pack_rows(rows.get() + lo * words, px + lo * x_rs, x_rs, x_cs, hi - lo, K);
                 });
    const uint32_t* pw = reinterpret_cast<const uint32_t*>(packed.data_ptr<int32_t>());
    cpu::for_each_gemm_block(M, N, K, [&](int64_t i0, int64_t m, int64_t j0, int64_t n) {
      cpu::bf16_gemm_prepacked(po + i0 * N + j0, N, rows.get() + i0 * words, words, pw + j0 * pairs, m, n, K,
                               pb ? pb + j0 : nullptr);
    });
    return;
  }
  const float* pw = packed.data_ptr<float>();
  cpu::for_each_gemm_block(M, N, K, [&](int64_t i0, int64_t m, int64_t j0, int64_t n) {
    cpu::sgemm_prepacked(po + i0 * N + j0, N, px + i0 * x_rs, x_rs, x_cs, pw + j0 * K, m, n, K, false,
                         pb ? pb + j0 : nullptr);
  });
}

}  // namespace ember
