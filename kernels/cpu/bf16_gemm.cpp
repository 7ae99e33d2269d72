// bfloat16 products (kernels/cpu/bf16_gemm.h): the roundings, the packing, the CPU check and
// the AVX2 kernel; the AVX512_BF16 kernel is in bf16_gemm_avx512.cpp, the loops both run in
// bf16_gemm_loops.h.
#include "ember/kernels/cpu/bf16_gemm.h"

#include <algorithm>
#include <cstring>

#include "ember/core/error.h"
#include "ember/kernels/cpu/bf16_gemm_avx512.h"
#include "ember/kernels/cpu/bf16_gemm_loops.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define EMBER_BF16_AVX2 1
#else
#define EMBER_BF16_AVX2 0
#endif

namespace ember::cpu {
namespace {

bool detect_avx512_bf16() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) return false;
  unsigned xcr0_low = 0, xcr0_high = 0;
  __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  // The operating system saves the SSE, AVX, opmask and both halves of the ZMM registers.
  if ((xcr0_low & 0xE6u) != 0xE6u) return false;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const unsigned subleaves = a;
  const bool avx512 = (b >> 16 & 1u) && (b >> 30 & 1u) && (b >> 31 & 1u);  // F, BW, VL
  if (!avx512 || subleaves < 1) return false;
  __get_cpuid_count(7, 1, &a, &b, &c, &d);
  return a >> 5 & 1u;  // AVX512_BF16
#else
  return false;
#endif
}

#if EMBER_BF16_AVX2
// The panel's bfloat16s widened to floats (a shift or a mask of a word's bits), the rows'
// values broadcast from memory as the floats they were rounded to, then float FMAs: the
// products are the exact floats vdpbf16ps forms, summed in one chain per column. A block is 4
// rows by one panel: 8 sums, 4 widened halves of the pair and 2 broadcasts in the 16
// registers; per pair, 16 FMAs beside 4 integer instructions and 10 loads.
struct Avx2Lanes {
  static constexpr int kRows = 4, kPanels = 1, kWordsPerPair = 2;
  struct Acc {
    __m256 lo, hi;  // columns 0-7 and 8-15
  };
  struct A {
    __m256 even, odd;  // depth 2q and 2q + 1, in every lane
  };
  struct B {
    __m256 even_lo, odd_lo, even_hi, odd_hi;
  };

  static __m256i mask(int n) {  // lanes below n
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static Acc zero() { return {_mm256_setzero_ps(), _mm256_setzero_ps()}; }
  static Acc load(const float* p, int n) {
    if (n == bf16::kPanel) return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)};
    return {_mm256_maskload_ps(p, mask(n)), _mm256_maskload_ps(p + 8, mask(n - 8))};
  }
  static void store(float* p, const Acc& v, int n) {
    if (n == bf16::kPanel) {
      _mm256_storeu_ps(p, v.lo);
      _mm256_storeu_ps(p + 8, v.hi);
    } else {
      _mm256_maskstore_ps(p, mask(n), v.lo);
      _mm256_maskstore_ps(p + 8, mask(n - 8), v.hi);
    }
  }
  static __m256 even(__m256i w) { return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)); }
  static __m256 odd(__m256i w) {
    return _mm256_castsi256_ps(_mm256_and_si256(w, _mm256_set1_epi32(static_cast<int>(0xFFFF0000u))));
  }
  static B load_b(const uint32_t* p) {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 8));
    return {even(lo), odd(lo), even(hi), odd(hi)};
  }
  static __m256 broadcast_word(const uint32_t* p) {
    return _mm256_castsi256_ps(_mm256_broadcastd_epi32(_mm_loadu_si32(p)));
  }
  static A broadcast(const uint32_t* row, int64_t q) {
    return {broadcast_word(row + 2 * q), broadcast_word(row + 2 * q + 1)};
  }
  static Acc dot(const Acc& acc, const A& a, const B& b) {
    return {_mm256_fmadd_ps(a.odd, b.odd_lo, _mm256_fmadd_ps(a.even, b.even_lo, acc.lo)),
            _mm256_fmadd_ps(a.odd, b.odd_hi, _mm256_fmadd_ps(a.even, b.even_hi, acc.hi))};
  }
};
#endif

Bf16Kernel resolve(Bf16Kernel kernel) {
  if (kernel != Bf16Kernel::Best) return kernel;
  return bf16_kernel_available(Bf16Kernel::Avx512Bf16) ? Bf16Kernel::Avx512Bf16 : Bf16Kernel::Avx2;
}

const char* kernel_name(Bf16Kernel kernel) {
  return kernel == Bf16Kernel::Avx512Bf16 ? "AVX512_BF16" : kernel == Bf16Kernel::Avx2 ? "AVX2" : "any";
}

}  // namespace

bool cpu_has_avx512_bf16() {
  static const bool has = detect_avx512_bf16();
  return has;
}

bool bf16_kernel_available(Bf16Kernel kernel) {
  switch (kernel) {
    case Bf16Kernel::Avx512Bf16:
      return bf16::avx512_bf16_compiled() && cpu_has_avx512_bf16();
    case Bf16Kernel::Avx2:
      return EMBER_BF16_AVX2 != 0;
    case Bf16Kernel::Best:
      break;
  }
  return bf16_kernel_available(Bf16Kernel::Avx512Bf16) || bf16_kernel_available(Bf16Kernel::Avx2);
}

uint16_t to_bf16(float x) {
  uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>(bits >> 16 | 0x40u);  // quiet NaN
  // Adding 0x7FFF plus the kept part's lowest bit rounds half-way cases to the even one; a
  // carry out of the mantissa raises the exponent (to infinity past the largest bfloat16).
  bits += 0x7FFFu + (bits >> 16 & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

float from_bf16(uint16_t h) {
  const uint32_t bits = uint32_t(h) << 16;
  float x = 0.0f;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

int64_t bf16_pairs(int64_t k) { return (std::max<int64_t>(k, 0) + 1) / 2; }

int64_t bf16_row_words(int64_t k, Bf16Kernel kernel) {
  return resolve(kernel) == Bf16Kernel::Avx2 ? 2 * bf16_pairs(k) : bf16_pairs(k);
}

void bf16_pack_rows(uint32_t* dst, const float* a, int64_t a_rs, int64_t a_cs, int64_t m, int64_t k,
                    Bf16Kernel kernel) {
  const int64_t words = bf16_row_words(k, kernel);
  const bool as_floats = resolve(kernel) == Bf16Kernel::Avx2;
  for (int64_t i = 0; i < m; ++i) {
    const float* row = a + i * a_rs;
    uint32_t* out = dst + i * words;
    if (as_floats) {
      for (int64_t kk = 0; kk < k; ++kk) out[kk] = uint32_t(to_bf16(row[kk * a_cs])) << 16;
      if (k % 2) out[k] = 0;
      continue;
    }
    for (int64_t q = 0; q < k / 2; ++q)
      out[q] = uint32_t(to_bf16(row[2 * q * a_cs])) | uint32_t(to_bf16(row[(2 * q + 1) * a_cs])) << 16;
    if (k % 2) out[words - 1] = to_bf16(row[(k - 1) * a_cs]);
  }
}

int64_t bf16_packed_words(int64_t k, int64_t n) {
  return (std::max<int64_t>(n, 0) + bf16::kPanel - 1) / bf16::kPanel * bf16::kPanel * bf16_pairs(k);
}

void bf16_pack(uint32_t* dst, const float* b, int64_t b_rs, int64_t b_cs, int64_t k, int64_t n) {
  const int64_t pairs = bf16_pairs(k);
  const auto at = [&](int64_t kk, int64_t j) -> uint32_t {
    return kk < k && j < n ? to_bf16(b[kk * b_rs + j * b_cs]) : 0u;
  };
  for (int64_t j0 = 0; j0 < n; j0 += bf16::kPanel)
    for (int64_t q = 0; q < pairs; ++q)
      for (int64_t jj = 0; jj < bf16::kPanel; ++jj)
        dst[j0 * pairs + q * bf16::kPanel + jj] = at(2 * q, j0 + jj) | at(2 * q + 1, j0 + jj) << 16;
}

void bf16_gemm_prepacked(float* c, int64_t ldc, const uint32_t* a, int64_t lda, const uint32_t* packed,
                         int64_t m, int64_t n, int64_t k, const float* bias, Bf16Kernel kernel) {
  kernel = resolve(kernel);
  if (!bf16_kernel_available(kernel))
    raise<NotImplementedError>("bfloat16 products: the ", kernel_name(kernel),
                               " kernel cannot run on this CPU or was not built");
  if (kernel == Bf16Kernel::Avx512Bf16) return bf16::gemm_avx512_bf16(c, ldc, a, lda, packed, m, n, k, bias);
#if EMBER_BF16_AVX2
  bf16::gemm<Avx2Lanes>(c, ldc, a, lda, packed, m, n, k, bias);
#endif
}

}  // namespace ember::cpu
