#pragma once
// Products with bfloat16 operands and float sums, for inference (kernels/cpu/bf16_gemm.cpp):
// a linear's weight stored as bfloat16 (half the bytes of float) and multiplied by inputs
// rounded to bfloat16, every product exact in float and summed in float. On CPUs with
// AVX512_BF16 (Intel Cooper Lake and Sapphire Rapids on, AMD Zen 4 on) one instruction adds
// 32 such products to 16 float sums, twice the pairs of a float FMA; elsewhere AVX2 expands
// each half to float and uses FMAs, with the same values up to the order of the sums.
#include <cstdint>

#include "ember/core/export.h"

namespace ember::cpu {

/// Which kernel a product runs on. Best: AVX512_BF16 where the CPU has it, else AVX2.
enum class Bf16Kernel { Best, Avx512Bf16, Avx2 };

/// Whether this CPU (and its operating system) runs AVX512_BF16 instructions.
EMBER_API bool cpu_has_avx512_bf16();

/// Whether kernel can run here: AVX512_BF16 needs the CPU's instruction and a compiler that
/// builds it; AVX2 needs a build for x86-64 with AVX2 and FMA; Best, either.
EMBER_API bool bf16_kernel_available(Bf16Kernel kernel);

/// x rounded to the nearest bfloat16 (ties to even; a NaN stays a NaN), as its 16 bits.
EMBER_API uint16_t to_bf16(float x);
/// The float a bfloat16 holds (exact).
EMBER_API float from_bf16(uint16_t h);

/// Pairs of depths in k: (k + 1) / 2 (0 for k <= 0), the depth of a packed panel in words.
EMBER_API int64_t bf16_pairs(int64_t k);

/// Words of one row of k depths in the left operand's form for kernel (Best: the one Best
/// runs): (k + 1) / 2 for AVX512_BF16 (a pair of bfloat16s a word), twice that for AVX2 (each
/// rounded value as a float's bits); the last depth's partner is zero when k is odd.
EMBER_API int64_t bf16_row_words(int64_t k, Bf16Kernel kernel = Bf16Kernel::Best);

/// Rounds A(i, kk) = a[i * a_rs + kk * a_cs] (m x k) to bfloat16 in kernel's form: row i at
/// dst + i * bf16_row_words(k, kernel). Needs no CPU feature (only the product does).
EMBER_API void bf16_pack_rows(uint32_t* dst, const float* a, int64_t a_rs, int64_t a_cs, int64_t m, int64_t k,
                              Bf16Kernel kernel = Bf16Kernel::Best);

/// Words bf16_pack() writes for a k x n right operand: panels of 16 columns (the last padded
/// with zeros), each bf16_pairs(k) deep.
EMBER_API int64_t bf16_packed_words(int64_t k, int64_t n);

/// Rounds B(kk, j) = b[kk * b_rs + j * b_cs] (k x n) to bfloat16 and packs it, one form for
/// every kernel: panel p's pair q (depths 2q and 2q + 1 in a word's low and high half) of
/// column p * 16 + jj at dst[p * 16 * bf16_pairs(k) + q * 16 + jj].
EMBER_API void bf16_pack(uint32_t* dst, const float* b, int64_t b_rs, int64_t b_cs, int64_t k, int64_t n);

/// c[i * ldc + j] = (bias ? bias[j] : 0) + sum over kk < k of A(i, kk) B(kk, j) for i < m,
/// j < n, with a as bf16_pack_rows() wrote it for the same kernel (row i at a + i * lda) and
/// packed as bf16_pack() wrote it (it may start at any panel, as sgemm_prepacked's operand).
/// Runs on the calling thread; kernel must be available (bf16_kernel_available), else
/// NotImplementedError.
EMBER_API void bf16_gemm_prepacked(float* c, int64_t ldc, const uint32_t* a, int64_t lda,
                                   const uint32_t* packed, int64_t m, int64_t n, int64_t k, const float* bias,
                                   Bf16Kernel kernel = Bf16Kernel::Best);

}  // namespace ember::cpu
