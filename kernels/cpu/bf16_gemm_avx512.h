#pragma once
// The AVX512_BF16 kernel of bf16_gemm.h, in a file of its own (bf16_gemm_avx512.cpp) that is
// compiled for AVX-512 whatever the build's -march: bf16_gemm.cpp calls it only on a CPU that
// has the instruction.
#include <cstdint>

namespace ember::cpu::bf16 {

/// Whether the compiler built the kernel (false: gemm_avx512_bf16 must not be called).
bool avx512_bf16_compiled();

/// bf16_gemm_prepacked's product on AVX512_BF16, same arguments.
void gemm_avx512_bf16(float* c, int64_t ldc, const uint32_t* a, int64_t lda, const uint32_t* packed,
                      int64_t m, int64_t n, int64_t k, const float* bias);

}  // namespace ember::cpu::bf16
