// Float matmul and linear on the CPU (Ember's sgemm, kernels/cpu/sgemm.h) give bits that depend
// on nothing but the row's own operands: not on the thread count (matmul cuts one product into
// column blocks, or row blocks when it has many rows or one column block, and spreads them over
// the pool), and
// not on the other rows of the call. The packed BERT path relies on the second: a sequence's
// tokens get the same linears whether padding rows sit beside them or not.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "ember/ember.h"
#include "support/threads_guard.h"

namespace {
using namespace ember;

std::vector<float> values(const Tensor& t) { return t.contiguous().to_vector<float>(); }

TEST(MatmulBits, TheThreadCountDoesNotChangeTheBits) {
  manual_seed(3);
  // 300 x 200 from depth 256: cut into row blocks; 40 x 1000 and 128 x 128 (taller than
  // wide, but too few rows to pack b once per row block): column blocks; 200 x 16 from depth
  // 2000, one column block: row blocks. The depth 600 takes three packed panels per column block.
  for (const auto& [m, k, n] : std::vector<std::array<int64_t, 3>>{
           {300, 256, 200}, {40, 600, 1000}, {128, 128, 128}, {200, 2000, 16}}) {
    const Tensor a = randn({m, k}), b = randn({k, n}), w = randn({n, k}), bias = randn({n});
    auto run = [&](int threads) {
      test::ThreadsGuard guard(threads);
      return std::vector<std::vector<float>>{
          values(matmul(a, b)), values(linear(a, w, bias)),
          values(matmul(a.transpose(0, 1).contiguous().transpose(0, 1), b))};
    };
    const auto one = run(1), four = run(4);
    for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(one[i], four[i]) << "m " << m << " result " << i;
  }
}

TEST(MatmulBits, ARowsBitsDoNotDependOnTheOtherRows) {
  manual_seed(4);
  const Tensor x = randn({2, 57, 128}), w = randn({512, 128}), bias = randn({512});
  const std::vector<float> all = values(linear(x, w, bias));
  // Rows 5..13 of the second batch alone, as the packed path computes a sequence's tokens.
  const std::vector<float> part = values(linear(x.select(0, 1).narrow(0, 5, 9), w, bias));
  const std::vector<float> want(all.begin() + (57 + 5) * 512, all.begin() + (57 + 14) * 512);
  EXPECT_EQ(part, want);
}

}  // namespace

namespace {

TEST(MatmulBits, ABroadcastOperandGivesTheResultOfItsCopy) {
  // expand gives stride 0 over the broadcast rows or columns: matmul read the operand as if
  // its rows were a whole row apart (past the end of its storage) before it copied such
  // operands.
  manual_seed(5);
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor row = randn({1, 40}, dtype).expand({30, 40}), col = randn({40, 1}, dtype).expand({40, 20});
    const Tensor b = randn({40, 20}, dtype), a = randn({30, 40}, dtype);
    EXPECT_EQ(matmul(row, b).to_vector<double>(), matmul(row.contiguous(), b).to_vector<double>())
        << dtype_name(dtype);
    EXPECT_EQ(matmul(a, col).to_vector<double>(), matmul(a, col.contiguous()).to_vector<double>())
        << dtype_name(dtype);
    const Tensor scalar = randn({1, 1}, dtype).expand({30, 40});
    EXPECT_EQ(matmul(scalar, b).to_vector<double>(), matmul(scalar.contiguous(), b).to_vector<double>())
        << dtype_name(dtype);
  }
}

}  // namespace
