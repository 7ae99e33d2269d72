// Ember's bfloat16 GEMM (kernels/cpu/bf16_gemm.h): the rounding against hand-checked bits, the
// two packed layouts element by element, and every kernel against a double-precision product
// of the same bfloat16 values: rows not a multiple of a block's, columns not a multiple of 16
// or 32 (masked loads and stores that must not touch the columns past n), depths odd, deeper
// than one pass, and zero. The loops are also run with a scalar model of the AVX-512 lanes (8
// rows by two panels), so their arithmetic is checked on machines without AVX512_BF16.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ember/core/error.h"
#include "ember/kernels/cpu/bf16_gemm.h"
#include "ember/kernels/cpu/bf16_gemm_loops.h"
#include "support/expect.h"

using namespace ember;
using cpu::Bf16Kernel;

namespace {

uint32_t bits_of(float x) {
  uint32_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

float float_of(uint32_t b) {
  float x = 0.0f;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// The AVX-512 kernel's lanes in plain C++: vdpbf16ps as Intel defines it (each lane adds the
// products of a word's two halves), the masked loads and stores as loops over n columns.
struct ScalarAvx512Model {
  static constexpr int kRows = 8, kPanels = 2, kWordsPerPair = 1;
  struct Acc {
    float v[16];
  };
  struct A {
    uint32_t w;
  };
  struct B {
    uint32_t w[16];
  };
  static Acc zero() { return Acc{}; }
  static Acc load(const float* p, int n) {
    Acc a{};
    for (int j = 0; j < n; ++j) a.v[j] = p[j];
    return a;
  }
  static void store(float* p, const Acc& a, int n) {
    for (int j = 0; j < n; ++j) p[j] = a.v[j];
  }
  static B load_b(const uint32_t* p) {
    B b{};
    for (int j = 0; j < 16; ++j) b.w[j] = p[j];
    return b;
  }
  static A broadcast(const uint32_t* row, int64_t q) { return A{row[q]}; }
  static Acc dot(Acc acc, const A& a, const B& b) {
    for (int j = 0; j < 16; ++j)
      acc.v[j] += cpu::from_bf16(static_cast<uint16_t>(a.w)) * cpu::from_bf16(static_cast<uint16_t>(b.w[j])) +
                  cpu::from_bf16(static_cast<uint16_t>(a.w >> 16)) *
                      cpu::from_bf16(static_cast<uint16_t>(b.w[j] >> 16));
    return acc;
  }
};

// A product's operands and its reference: A (m x k, row-major with a padded row) and B (k x n,
// stored as a linear's weight [n, k], which is how Ember packs it), values in [-1, 1].
struct Problem {
  int64_t m, n, k;
  std::vector<float> a, w, bias;
  std::vector<uint32_t> packed;

  Problem(int64_t m_, int64_t n_, int64_t k_, std::mt19937& gen) : m(m_), n(n_), k(k_) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    a.resize(static_cast<size_t>(m * (k + 3) + 1));
    w.resize(static_cast<size_t>(n * k + 1));
    bias.resize(static_cast<size_t>(n));
    for (float& v : a) v = dist(gen);
    for (float& v : w) v = dist(gen);
    for (float& v : bias) v = dist(gen);
    packed.resize(static_cast<size_t>(cpu::bf16_packed_words(k, n)) + 1);
    cpu::bf16_pack(packed.data(), w.data(), 1, k, k, n);  // B(kk, j) = W[j, kk]
  }
  // A's rows in kernel's form, with a word past the end (a kernel must not need it).
  std::vector<uint32_t> rows(Bf16Kernel kernel) const {
    std::vector<uint32_t> out(static_cast<size_t>(m * cpu::bf16_row_words(k, kernel)) + 1, 0xFFFFFFFFu);
    cpu::bf16_pack_rows(out.data(), a.data(), k + 3, 1, m, k, kernel);
    return out;
  }
  float rounded(float x) const { return cpu::from_bf16(cpu::to_bf16(x)); }
  double expected(int64_t i, int64_t j, bool with_bias) const {
    double s = with_bias ? bias[static_cast<size_t>(j)] : 0.0;
    for (int64_t kk = 0; kk < k; ++kk)
      s += double(rounded(a[static_cast<size_t>(i * (k + 3) + kk)])) *
           rounded(w[static_cast<size_t>(j * k + kk)]);
    return s;
  }
};

// Runs product(c, ldc) into a c whose padding columns hold a sentinel, and checks every element
// against the double product (float sums of exact products: k * 2^-24 relative at most) and
// that the padding is untouched.
template <class Product>
void expect_product(const Problem& p, bool with_bias, const Product& product, const std::string& what) {
  const int64_t ldc = p.n + 7;
  std::vector<float> c(static_cast<size_t>(p.m * ldc), 1234.5f);
  product(c.data(), ldc, with_bias ? p.bias.data() : nullptr);
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      const double want = p.expected(i, j, with_bias);
      ASSERT_NEAR(c[static_cast<size_t>(i * ldc + j)], want, 1e-6 * (double(p.k) + 2.0))
          << what << " m=" << p.m << " n=" << p.n << " k=" << p.k << " at (" << i << ", " << j << ")";
    }
    for (int64_t j = p.n; j < ldc; ++j)
      ASSERT_EQ(c[static_cast<size_t>(i * ldc + j)], 1234.5f) << what << ": wrote past column n at " << j;
  }
}

const std::vector<int64_t> kRows = {1, 2, 4, 5, 8, 9, 17};
const std::vector<int64_t> kCols = {1, 15, 16, 17, 31, 32, 33, 50};
const std::vector<int64_t> kDepths = {0, 1, 2, 7, 255, 256, 258};

}  // namespace

TEST(Bf16Rounding, RoundsToNearestEvenAndKeepsNaNAndInfinity) {
  EXPECT_EQ(cpu::to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(cpu::to_bf16(-2.5f), 0xC020);
  // 1 + 2^-8 lies half-way between 1 (0x3F80, even) and 1 + 2^-7 (0x3F81): the even one.
  EXPECT_EQ(cpu::to_bf16(1.0f + 0x1p-8f), 0x3F80);
  // 1 + 3 * 2^-8 lies half-way between 0x3F81 and 0x3F82: the even one, up.
  EXPECT_EQ(cpu::to_bf16(1.0f + 0x3p-8f), 0x3F82);
  EXPECT_EQ(cpu::to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81);          // past half-way: up
  EXPECT_EQ(cpu::to_bf16(std::numeric_limits<float>::max()), 0x7F80);  // overflows to infinity
  EXPECT_EQ(cpu::to_bf16(-std::numeric_limits<float>::infinity()), 0xFF80);
  const uint16_t nan = cpu::to_bf16(float_of(0x7F800001u));  // a NaN whose payload rounding would lose
  EXPECT_TRUE(std::isnan(cpu::from_bf16(nan)));
  EXPECT_EQ(cpu::from_bf16(0x3F80), 1.0f);
  EXPECT_EQ(bits_of(cpu::from_bf16(0xC020)), 0xC0200000u);
}

TEST(Bf16Pack, LaysOutPairsAndPanelsAsDocumented) {
  // A 2 x 3 left operand: row i's words hold depths (0, 1) and (2, pad 0).
  const float a[] = {1.0f, 2.0f, 3.0f, -1.0f, -2.0f, -3.0f};
  std::vector<uint32_t> rows(4);
  cpu::bf16_pack_rows(rows.data(), a, 3, 1, 2, 3, Bf16Kernel::Avx512Bf16);
  EXPECT_EQ(cpu::bf16_row_words(3, Bf16Kernel::Avx512Bf16), 2);
  EXPECT_EQ(rows[0], 0x40003F80u);  // 2.0 high, 1.0 low
  EXPECT_EQ(rows[1], 0x00004040u);  // 3.0, and a zero half
  EXPECT_EQ(rows[2], 0xC000BF80u);
  // AVX2's form: each rounded value as a float's bits, two words a pair.
  std::vector<uint32_t> floats(8, 7u);
  cpu::bf16_pack_rows(floats.data(), a, 3, 1, 2, 3, Bf16Kernel::Avx2);
  EXPECT_EQ(cpu::bf16_row_words(3, Bf16Kernel::Avx2), 4);
  EXPECT_EQ(floats, (std::vector<uint32_t>{bits_of(1.0f), bits_of(2.0f), bits_of(3.0f), 0u, bits_of(-1.0f),
                                           bits_of(-2.0f), bits_of(-3.0f), 0u}));
  // A right operand of k = 3 and n = 18: two panels of 16 columns, two pairs deep each.
  std::vector<float> b(3 * 18);
  for (int64_t kk = 0; kk < 3; ++kk)
    for (int64_t j = 0; j < 18; ++j) b[static_cast<size_t>(kk * 18 + j)] = float(kk * 100 + j);
  ASSERT_EQ(cpu::bf16_packed_words(3, 18), 2 * 16 * 2);
  std::vector<uint32_t> packed(static_cast<size_t>(cpu::bf16_packed_words(3, 18)));
  cpu::bf16_pack(packed.data(), b.data(), 18, 1, 3, 18);
  const auto word = [](float lo, float hi) {
    return uint32_t(cpu::to_bf16(lo)) | uint32_t(cpu::to_bf16(hi)) << 16;
  };
  EXPECT_EQ(packed[5], word(5.0f, 105.0f));            // panel 0, pair 0, column 5
  EXPECT_EQ(packed[16 + 5], word(205.0f, 0.0f));       // panel 0, pair 1: depth 2 and padding
  EXPECT_EQ(packed[32 + 1], word(17.0f, 117.0f));      // panel 1, pair 0, column 17
  EXPECT_EQ(packed[32 + 2], 0u);                       // column 18 does not exist
  EXPECT_EQ(packed[32 + 16 + 1], word(217.0f, 0.0f));  // panel 1, pair 1, column 17
}

TEST(Bf16Gemm, TheLoopsWithAScalarModelOfTheAvx512LanesGiveTheDoubleProduct) {
  std::mt19937 gen(11);
  for (int64_t m : kRows)
    for (int64_t n : kCols)
      for (int64_t k : kDepths) {
        const Problem p(m, n, k, gen);
        const std::vector<uint32_t> rows = p.rows(Bf16Kernel::Avx512Bf16);  // the model's form
        expect_product(
            p, k % 2 == 0,
            [&](float* c, int64_t ldc, const float* bias) {
              cpu::bf16::gemm<ScalarAvx512Model>(c, ldc, rows.data(),
                                                 cpu::bf16_row_words(k, Bf16Kernel::Avx512Bf16),
                                                 p.packed.data(), m, n, k, bias);
            },
            "scalar model");
      }
}

TEST(Bf16Gemm, EveryKernelThisCpuRunsGivesTheDoubleProduct) {
  int ran = 0;
  for (Bf16Kernel kernel : {Bf16Kernel::Avx2, Bf16Kernel::Avx512Bf16, Bf16Kernel::Best}) {
    if (!cpu::bf16_kernel_available(kernel)) continue;
    ++ran;
    std::mt19937 gen(12);
    for (int64_t m : kRows)
      for (int64_t n : kCols)
        for (int64_t k : kDepths) {
          const Problem p(m, n, k, gen);
          const std::vector<uint32_t> rows = p.rows(kernel);
          for (bool with_bias : {false, true})
            expect_product(
                p, with_bias,
                [&](float* c, int64_t ldc, const float* bias) {
                  cpu::bf16_gemm_prepacked(c, ldc, rows.data(), cpu::bf16_row_words(k, kernel),
                                           p.packed.data(), m, n, k, bias, kernel);
                },
                "kernel " + std::to_string(static_cast<int>(kernel)));
        }
  }
#if (defined(__x86_64__) || defined(__i386__)) && defined(__AVX2__) && defined(__FMA__)
  EXPECT_GE(ran, 2) << "an x86-64 build with AVX2 and FMA runs the AVX2 kernel";
#endif
  if (ran == 0) GTEST_SKIP() << "no bfloat16 kernel in this build";
}

// A panel may be the second of a pair or start the operand anywhere (a thread's columns).
TEST(Bf16Gemm, AProductFromAColumnOffsetIsThoseColumnsOfTheWholeProduct) {
  if (!cpu::bf16_kernel_available(Bf16Kernel::Best)) GTEST_SKIP() << "no bfloat16 kernel in this build";
  std::mt19937 gen(13);
  const Problem p(7, 80, 33, gen);
  const std::vector<uint32_t> rows = p.rows(Bf16Kernel::Best);
  const int64_t words = cpu::bf16_row_words(p.k), pairs = (p.k + 1) / 2;
  std::vector<float> whole(static_cast<size_t>(p.m * p.n)), part(static_cast<size_t>(p.m * p.n));
  cpu::bf16_gemm_prepacked(whole.data(), p.n, rows.data(), words, p.packed.data(), p.m, p.n, p.k,
                           p.bias.data());
  for (int64_t j0 : {int64_t(0), int64_t(16), int64_t(48)}) {
    const int64_t n = j0 == 48 ? p.n - 48 : 16;
    cpu::bf16_gemm_prepacked(part.data() + j0, p.n, rows.data(), words, p.packed.data() + j0 * pairs, p.m, n,
                             p.k, p.bias.data() + j0);
  }
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < 32; ++j)
      ASSERT_NEAR(part[i * p.n + j], whole[i * p.n + j], 1e-5) << i << ", " << j;
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 48; j < p.n; ++j)
      ASSERT_NEAR(part[i * p.n + j], whole[i * p.n + j], 1e-5) << i << ", " << j;
}

TEST(Bf16Gemm, AKernelThisCpuCannotRunIsANotImplementedError) {
  for (Bf16Kernel kernel : {Bf16Kernel::Avx2, Bf16Kernel::Avx512Bf16}) {
    if (cpu::bf16_kernel_available(kernel)) continue;
    float c = 0.0f;
    const uint32_t word = 0;
    EXPECT_THROW_MSG(cpu::bf16_gemm_prepacked(&c, 1, &word, 1, &word, 1, 1, 1, nullptr, kernel),
                     NotImplementedError, "bfloat16 products: the ");
  }
}

// The CPUID check says what Linux says of the CPU (its flag avx512_bf16).
TEST(Bf16Gemm, TheCpuCheckAgreesWithTheKernelsFlags) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line) && line.rfind("flags", 0) != 0) {
  }
  if (line.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags here";
  const bool flag = (line + " ").find(" avx512_bf16 ") != std::string::npos;
  EXPECT_EQ(cpu::cpu_has_avx512_bf16(), flag) << line;
}
