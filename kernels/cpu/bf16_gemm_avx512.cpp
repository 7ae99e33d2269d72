// bf16_gemm.h's product on AVX512_BF16: vdpbf16ps adds the products of 16 columns' pairs (32
// bfloat16 products) to 16 float sums, where a float FMA adds 16 products. A block is 8 rows
// by two panels (32 columns): 16 sums in registers, 2 loads of the panels' pairs and 8
// broadcasts of the rows' pairs per 16 instructions, enough independent sums to cover the
// instruction's latency at two a cycle (Intel) or one (Zen 4).
//
// CMakeLists.txt compiles this file with -mavx512f -mavx512bw -mavx512vl -mavx512bf16 where
// the compiler takes them: it includes only <cstdint>, <immintrin.h> and the loops (all of
// internal linkage), so no AVX-512 copy of a shared inline function can leak to other code.
#include "ember/kernels/cpu/bf16_gemm_avx512.h"

// clang 16 crashes (a segmentation fault of the compiler) on this file under the sanitizer
// builds' flags: there the kernel is left out, and the AVX2 kernel serves.
#if defined(__AVX512F__) && defined(__AVX512BF16__) && !(defined(__clang__) && __clang_major__ < 17)
#include <immintrin.h>

#include "ember/kernels/cpu/bf16_gemm_loops.h"

namespace ember::cpu::bf16 {
namespace {

struct Avx512Bf16Lanes {
  static constexpr int kRows = 8, kPanels = 2, kWordsPerPair = 1;
  using Acc = __m512;  // 16 columns' float sums
  using A = __m512i;   // one row's pair, in every lane
  using B = __m512i;   // one pair of 16 columns

  static __mmask16 mask(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
  static Acc zero() { return _mm512_setzero_ps(); }
  static Acc load(const float* p, int n) {
    return n == kPanel ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(mask(n), p);
  }
  static void store(float* p, Acc v, int n) {
    if (n == kPanel)
      _mm512_storeu_ps(p, v);
    else
      _mm512_mask_storeu_ps(p, mask(n), v);
  }
  static B load_b(const uint32_t* p) { return _mm512_loadu_si512(p); }
  static A broadcast(const uint32_t* row, int64_t q) { return _mm512_set1_epi32(static_cast<int>(row[q])); }
  // Lane j: acc + a.low * b.low + a.high * b.high (the products of depths 2q and 2q + 1).
  static Acc dot(Acc acc, A a, B b) { return _mm512_dpbf16_ps(acc, (__m512bh)a, (__m512bh)b); }
};

}  // namespace

bool avx512_bf16_compiled() { return true; }

void gemm_avx512_bf16(float* c, int64_t ldc, const uint32_t* a, int64_t lda, const uint32_t* packed,
                      int64_t m, int64_t n, int64_t k, const float* bias) {
  gemm<Avx512Bf16Lanes>(c, ldc, a, lda, packed, m, n, k, bias);
}

}  // namespace ember::cpu::bf16

#else  // a compiler or target without AVX512_BF16 (or clang 16): never called (avx512_bf16_compiled() is
       // false)

namespace ember::cpu::bf16 {

bool avx512_bf16_compiled() { return false; }

void gemm_avx512_bf16(float*, int64_t, const uint32_t*, int64_t, const uint32_t*, int64_t, int64_t, int64_t,
                      const float*) {}

}  // namespace ember::cpu::bf16

#endif
