#pragma once
// Ember's own single-precision GEMM for the CPU (kernels/cpu/sgemm.cpp): the products of a
// transformer at batch 1 and the blocks of attention are small (tens to hundreds of rows),
// where Eigen's GEMM spends a fifth of its time packing the left operand at every call. This
// one reads the left operand in place (any strides), packs only the right one, and runs a
// 6 x 16 AVX2/FMA register block. Each output element is one chain of fused multiply-adds
// over k in order, wherever it falls in the blocking: a row's result does not depend on the
// other rows of the call, nor on how a caller splits the rows or columns across threads.
#include <cstdint>

#include "ember/core/export.h"

namespace ember::cpu {

/// Whether sgemm() has its vector kernel in this build (x86-64 with AVX2 and FMA). Callers
/// keep Eigen's GEMM otherwise.
EMBER_API bool sgemm_available();

/// c[i * ldc + j] = (accumulate ? c[...] : bias ? bias[j] : 0) + sum_k A(i, k) B(k, j) for
/// i < m, j < n, where A(i, k) = a[i * a_rs + k * a_cs] and B(k, j) = b[k * b_rs + j * b_cs].
/// bias is ignored when accumulating. Runs on the calling thread. Exported for the tests.
EMBER_API void sgemm(float* c, int64_t ldc, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
                     int64_t b_rs, int64_t b_cs, int64_t m, int64_t n, int64_t k, bool accumulate,
                     const float* bias = nullptr);

/// Floats that sgemm_pack() writes for a k x n right operand: panels of 16 columns (the last
/// one padded with zeros), each k rows deep.
EMBER_API int64_t sgemm_packed_floats(int64_t k, int64_t n);

/// Packs B(kk, j) = b[kk * b_rs + j * b_cs] (k x n) once, into the form sgemm() makes of it at
/// every call: panel p's element (kk, jj) at dst[p * 16 * k + kk * 16 + jj], zero for columns
/// past n. dst holds sgemm_packed_floats(k, n) floats. For right operands used many times (a
/// linear's weight in inference).
EMBER_API void sgemm_pack(float* dst, const float* b, int64_t b_rs, int64_t b_cs, int64_t k, int64_t n);

/// sgemm() with a right operand that sgemm_pack() packed: the same bits as sgemm() of the
/// unpacked operand. `packed` may start at any panel (packed + (j0 / 16) * 16 * k for the
/// columns from j0, a multiple of 16), so a caller may split the columns in whole panels.
EMBER_API void sgemm_prepacked(float* c, int64_t ldc, const float* a, int64_t a_rs, int64_t a_cs,
                               const float* packed, int64_t m, int64_t n, int64_t k, bool accumulate,
                               const float* bias = nullptr);

}  // namespace ember::cpu
