// Host logic of the CUDA backend, checked on the CPU: the operand swap and leading
// dimensions handed to cuBLAS, and the cuDNN algorithm cache's keys.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ember/kernels/cuda/conv_algo_cache.h"
#include "ember/kernels/cuda/gemm_layout.h"

using namespace ember::cuda_detail;

namespace {

// A strided [rows, cols] matrix inside a buffer.
struct View {
  int64_t rows, cols, rs, cs, offset;
  double at(const std::vector<double>& buf, int64_t i, int64_t j) const {
    return buf[static_cast<size_t>(offset + i * rs + j * cs)];
  }
};

// cuBLAS's column-major GEMM semantics: C[i + j*ldc] = sum_l opA(i, l) * opB(l, j).
void reference_colmajor_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* A, int64_t lda,
                             const double* B, int64_t ldb, double* C, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l) {
        const double a = ta ? A[l + i * lda] : A[i + l * lda];
        const double b = tb ? B[j + l * ldb] : B[l + j * ldb];
        s += a * b;
      }
      C[i + j * ldc] = s;
    }
}

// Runs the planned call on a and b and compares with the row-major product.
void check_product(const View& a, const View& b, const std::vector<double>& abuf,
                   const std::vector<double>& bbuf) {
  const int64_t M = a.rows, K = a.cols, N = b.cols;
  const MatrixLayout la = describe_matrix(M, K, a.rs, a.cs);
  const MatrixLayout lb = describe_matrix(K, N, b.rs, b.cs);
  ASSERT_TRUE(la.ok && lb.ok);
  const GemmPlan p = plan_gemm(M, N, K, la, lb);
  // BLAS's argument rules: ld >= max(1, rows of the stored column-major matrix).
  EXPECT_GE(p.ld_first, std::max<int64_t>(1, p.trans_first ? p.k : p.m));
  EXPECT_GE(p.ld_second, std::max<int64_t>(1, p.trans_second ? p.n : p.k));
  EXPECT_GE(p.ldc, std::max<int64_t>(1, p.m));
  std::vector<double> out(static_cast<size_t>(M * N), -1);
  reference_colmajor_gemm(p.trans_first, p.trans_second, p.m, p.n, p.k, bbuf.data() + b.offset, p.ld_first,
                          abuf.data() + a.offset, p.ld_second, out.data(), p.ldc);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t l = 0; l < K; ++l) s += a.at(abuf, i, l) * b.at(bbuf, l, j);
      EXPECT_NEAR(out[static_cast<size_t>(i * N + j)], s, 1e-12) << "at " << i << ", " << j;
    }
}

std::vector<double> random_buffer(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = d(gen);
  return v;
}

}  // namespace

TEST(GemmLayout, DescribesRowMajorColumnMajorAndNeither) {
  MatrixLayout m = describe_matrix(3, 4, 4, 1);
  EXPECT_TRUE(m.ok && m.row_major);
  EXPECT_EQ(m.ld, 4);
  m = describe_matrix(3, 4, 1, 3);  // a transposed [4, 3]
  EXPECT_TRUE(m.ok && !m.row_major);
  EXPECT_EQ(m.ld, 3);
  m = describe_matrix(3, 4, 8, 1);  // narrowed columns: rows 8 apart
  EXPECT_TRUE(m.ok && m.row_major);
  EXPECT_EQ(m.ld, 8);
  EXPECT_FALSE(describe_matrix(3, 4, 8, 2).ok);  // every other column
  EXPECT_FALSE(describe_matrix(3, 4, 0, 1).ok);  // rows expanded from one: stride 0
  m = describe_matrix(1, 4, 0, 1);               // one row: any row stride
  EXPECT_TRUE(m.ok && m.row_major);
  EXPECT_EQ(m.ld, 4);
  m = describe_matrix(5, 1, 1, 0);  // one column, unit row stride
  EXPECT_TRUE(m.ok && m.row_major);
  EXPECT_EQ(m.ld, 1);
  EXPECT_FALSE(describe_matrix(5, 1, 0, 0).ok);  // a column expanded from one element
}

TEST(GemmLayout, OperandSwapComputesTheRowMajorProduct) {
  const auto abuf = random_buffer(200, 1), bbuf = random_buffer(200, 2);
  // Contiguous, transposed, narrowed, single-row and single-column operands.
  check_product({3, 4, 4, 1, 0}, {4, 5, 5, 1, 0}, abuf, bbuf);
  check_product({3, 4, 1, 3, 0}, {4, 5, 1, 4, 0}, abuf, bbuf);
  check_product({3, 4, 7, 1, 2}, {4, 5, 1, 9, 3}, abuf, bbuf);
  check_product({1, 4, 0, 1, 5}, {4, 1, 1, 0, 1}, abuf, bbuf);
  check_product({6, 1, 1, 0, 0}, {1, 3, 0, 1, 4}, abuf, bbuf);
  check_product({2, 3, 1, 2, 1}, {3, 2, 2, 1, 0}, abuf, bbuf);
}

TEST(ConvAlgoCache, OperandAlignmentIsTheLargestPowerOfTwoDividingEveryAddress) {
  alignas(256) static char block[1024];
  EXPECT_EQ(operand_alignment({block, block + 512}), 256);
  EXPECT_EQ(operand_alignment({block, block + 100}), 4);
  EXPECT_EQ(operand_alignment({block + 48, block + 512, block + 16}), 16);
  EXPECT_EQ(operand_alignment({block + 1}), 1);
}

TEST(ConvAlgoCache, KeysDifferInEveryField) {
  ConvKey base;
  base.n = 8;
  base.c = 3;
  base.h = base.w = 28;
  base.k = 16;
  base.r = base.s = 3;
  std::vector<ConvKey> variants(19, base);
  variants[0].direction = ConvDirection::BackwardData;
  variants[1].device = 1;
  variants[2].dtype = 1;
  variants[3].n = 9;
  variants[4].c = 4;
  variants[5].h = 27;
  variants[6].w = 27;
  variants[7].k = 17;
  variants[8].r = 5;
  variants[9].s = 5;
  variants[10].stride_h = 2;
  variants[11].stride_w = 2;
  variants[12].pad_h = 1;
  variants[13].pad_w = 1;
  variants[14].dilation_h = 2;
  variants[15].dilation_w = 2;
  variants[16].tf32 = true;
  variants[17].deterministic = true;
  variants[18].alignment = 4;
  ConvAlgoCache cache;
  cache.insert(base, {1, 2, 100});
  for (size_t i = 0; i < variants.size(); ++i) {
    EXPECT_NE(variants[i], base) << "field " << i;
    EXPECT_FALSE(cache.find(variants[i]).has_value()) << "field " << i;
    cache.insert(variants[i], {static_cast<int>(i), 0, 0});
  }
  EXPECT_EQ(cache.size(), 20u);
  ConvKey same = base;
  ASSERT_TRUE(cache.find(same).has_value());
  EXPECT_EQ(cache.find(same)->algo, 1);
  EXPECT_EQ(cache.find(same)->workspace, 100u);
  EXPECT_EQ(ConvKeyHash()(same), ConvKeyHash()(base));
}
