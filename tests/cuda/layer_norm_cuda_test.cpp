// layer_norm on cuda:0 beyond the catalog's parity cases: rows with a large common offset
// through each block size of kernels/cuda/cuda_layer_norm.cu (32, 128 and 512 threads a
// row), and the weight and bias gradients' column reduction in its largest number of chunks,
// the same bits from run to run; add_layer_norm through the Backend's default. The reference
// is the CPU's in float64 from the same float32 values, under docs/DESIGN.md's tolerance
// (parity.h).
#include <gtest/gtest.h>

#include <vector>

#include "ember/ember.h"
#include "gpu_required.h"
#include "parity.h"

using namespace ember;

namespace {

::testing::AssertionResult near_cpu(const Tensor& cuda_out, const Tensor& ref, int64_t k,
                                    const std::string& what) {
  const ember::test::HostValues x = ember::test::host_values(cuda_out);
  const std::vector<int64_t> ks(x.size(), k);
  return ember::test::matches(x, ember::test::host_values(ref), ks, false, what);
}

}  // namespace

TEST(CudaLayerNorm, LargeOffsetRowsInEveryBlockSize) {
  EMBER_REQUIRE_GPU();
  for (int64_t cols : {20, 300, 3000}) {
    manual_seed(static_cast<uint64_t>(cols));
    // 10^4 + z: a variance taken as E[x^2] - E[x]^2 in float32 (whose spacing is 8 near
    // 10^8) would be noise, and deviations about a float-rounded mean (off by up to 2^-11)
    // would be off by far more than the tolerance.
    const Tensor x = randn({5, cols}) + 1e4, w = randn({cols}), b = randn({cols}), g = randn({5, cols});
    const Tensor x64 = x.to(kFloat64).requires_grad_(true), w64 = w.to(kFloat64).requires_grad_(true),
                 b64 = b.to(kFloat64).requires_grad_(true);
    const Tensor ref = layer_norm(x64, {cols}, w64, b64);
    ref.backward(g.to(kFloat64));

    ember::test::PoisonGuard poison(0xFF);
    const Tensor xg = x.cuda().requires_grad_(true), wg = w.cuda().requires_grad_(true),
                 bg = b.cuda().requires_grad_(true);
    const Tensor out = layer_norm(xg, {cols}, wg, bg);
    out.backward(g.cuda());
    const std::string at = " (rows of " + std::to_string(cols) + ")";
    EXPECT_TRUE(near_cpu(out, ref.detach(), cols, "output" + at));
    EXPECT_TRUE(near_cpu(xg.grad(), x64.grad(), cols, "grad input" + at));
    EXPECT_TRUE(near_cpu(wg.grad(), w64.grad(), 5, "grad weight" + at));
    EXPECT_TRUE(near_cpu(bg.grad(), b64.grad(), 5, "grad bias" + at));
  }
}

TEST(CudaLayerNorm, ColumnReductionInManyChunksIsDeterministic) {
  EMBER_REQUIRE_GPU();
  // 9000 rows: 64 chunks (the most) of about 140 rows; 40 columns: a second tile of 32 whose
  // last 24 columns lie past the end.
  manual_seed(9);
  const int64_t rows = 9000, cols = 40;
  const Tensor x = randn({rows, cols}), w = randn({cols}), b = randn({cols}), g = randn({rows, cols});
  const Tensor w64 = w.to(kFloat64).requires_grad_(true), b64 = b.to(kFloat64).requires_grad_(true);
  layer_norm(x.to(kFloat64), {cols}, w64, b64).backward(g.to(kFloat64));

  ember::test::PoisonGuard poison(0xFF);
  auto grads = [&] {
    const Tensor wg = w.cuda().requires_grad_(true), bg = b.cuda().requires_grad_(true);
    layer_norm(x.cuda(), {cols}, wg, bg).backward(g.cuda());
    return std::make_pair(wg.grad(), bg.grad());
  };
  const auto first = grads(), second = grads();
  EXPECT_TRUE(near_cpu(first.first, w64.grad(), rows, "grad weight"));
  EXPECT_TRUE(near_cpu(first.second, b64.grad(), rows, "grad bias"));
  EXPECT_EQ(first.first.to_vector<float>(), second.first.to_vector<float>());
  EXPECT_EQ(first.second.to_vector<float>(), second.second.to_vector<float>());
}

// Without autograd a contiguous input of any rank goes to the kernel in its own shape (rows
// from the statistics' count): the bits of the recorded path, which reshapes it to [rows, cols].
TEST(CudaLayerNorm, AContiguousInputOfAnyRankGivesTheRecordedPathsBits) {
  EMBER_REQUIRE_GPU();
  manual_seed(7);
  const Tensor x = randn({2, 3, 4, 40}).cuda(), w = randn({4, 40}).cuda(), b = randn({4, 40}).cuda();
  for (const Shape& normalized : {Shape{40}, Shape{4, 40}}) {
    const Tensor wn = normalized.size() == 1 ? w.select(0, 1) : w,
                 bn = normalized.size() == 1 ? b.select(0, 2) : b;
    Tensor plain;
    {
      NoGradGuard no_grad;
      plain = layer_norm(x, normalized, wn, bn);
    }
    const Tensor recorded = layer_norm(x.detach().requires_grad_(true), normalized, wn, bn);
    ASSERT_EQ(plain.shape(), x.shape());
    EXPECT_EQ(plain.cpu().to_vector<float>(), recorded.detach().cpu().to_vector<float>())
        << "over " << shape_str(normalized);
  }
}

// add_layer_norm on cuda:0 takes the Backend's default (the sum into a tensor, then the
// layer norm): the two ops' bits.
TEST(CudaLayerNorm, AddLayerNormGivesTheTwoOpsBits) {
  EMBER_REQUIRE_GPU();
  manual_seed(8);
  const Tensor x = randn({3, 5, 40}).cuda(), r = randn({3, 5, 40}).cuda(), w = randn({40}).cuda(),
               b = randn({40}).cuda();
  NoGradGuard no_grad;
  const Tensor fused = add_layer_norm(x, r, {40}, w, b), two_ops = layer_norm(x + r, {40}, w, b);
  ASSERT_EQ(fused.device(), Device::cuda(0));
  EXPECT_EQ(fused.cpu().to_vector<float>(), two_ops.cpu().to_vector<float>());
  // A residual short of the input's leading ones (BERT's position rows at batch 1).
  const Tensor x1 = x.narrow(0, 1, 1), r1 = r.select(0, 1);  // [1, 5, 40], [5, 40]
  const Tensor got = add_layer_norm(x1, r1, {40}, w, b);
  ASSERT_EQ(got.shape(), (Shape{1, 5, 40}));
  EXPECT_EQ(got.cpu().to_vector<float>(), layer_norm(x1 + r1, {40}, w, b).cpu().to_vector<float>());
}
