// The CUDA backend's methods called directly against naive float64 loops written here, for
// the families whose front-ends and CPU kernels are written elsewhere (conv, pooling, batch
// norm, indexing, optimizers): these checks do not wait for them. Each reference loop also
// counts the terms summed into every value: that count is the K of the tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/ember.h"
#include "ember/extend/backend.h"
#include "gpu_required.h"
#include "parity.h"
#include "support/cast_cases.h"
#include "support/expect.h"

using namespace ember;
using ember::test::HostValues;

namespace {

Backend& gpu() { return backend_for(Device::cuda(0)); }

// A random float32 tensor in [lo, hi) on the CPU.
Tensor random_cpu(const Shape& shape, double lo = -1, double hi = 1) { return rand(shape) * (hi - lo) + lo; }

Tensor empty_gpu(const Shape& shape, DType dtype = kFloat32) {
  return detail::make_empty(shape, dtype, Device::cuda(0));
}

// A float64 reference with the number of terms behind each value.
struct Ref {
  Shape shape;
  std::vector<double> v;
  std::vector<int64_t> k;
  explicit Ref(Shape s) : shape(std::move(s)), v(static_cast<size_t>(numel_of(shape)), 0.0), k(v.size(), 0) {}
  void add(int64_t i, double x) {
    v[static_cast<size_t>(i)] += x;
    ++k[static_cast<size_t>(i)];
  }
};

::testing::AssertionResult near_ref(const Tensor& cuda_out, const Ref& ref, const std::string& what) {
  HostValues r;
  r.dtype = kFloat64;
  r.shape = ref.shape;
  r.f = ref.v;
  return ember::test::matches(ember::test::host_values(cuda_out), r, ref.k, false, what);
}

std::vector<double> host(const Tensor& t) { return t.to_vector<double>(); }

// Poisons what the backend allocates while a case runs (outputs are allocated poisoned too).
struct Poisoned {
  ember::test::PoisonGuard guard{0xFF};
};

}  // namespace

// ---- convolution -------------------------------------------------------------------------

namespace {
struct ConvCase {
  int64_t n, c, h, w, k, r, s;
  Conv2dParams p;
};

int64_t conv_out(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil) {
  return (in + 2 * pad - dil * (k - 1) - 1) / stride + 1;
}

void check_conv(const ConvCase& cc) {
  Poisoned poison;
  const int64_t P = conv_out(cc.h, cc.r, cc.p.stride_h, cc.p.pad_h, cc.p.dilation_h);
  const int64_t Q = conv_out(cc.w, cc.s, cc.p.stride_w, cc.p.pad_w, cc.p.dilation_w);
  const Tensor x = random_cpu({cc.n, cc.c, cc.h, cc.w}), w = random_cpu({cc.k, cc.c, cc.r, cc.s}),
               b = random_cpu({cc.k}), go = random_cpu({cc.n, cc.k, P, Q});
  const auto X = host(x), W = host(w), B = host(b), GO = host(go);
  Ref out({cc.n, cc.k, P, Q}), gx({cc.n, cc.c, cc.h, cc.w}), gw({cc.k, cc.c, cc.r, cc.s}), gb({cc.k});
  for (int64_t n = 0; n < cc.n; ++n)
    for (int64_t k = 0; k < cc.k; ++k)
      for (int64_t p = 0; p < P; ++p)
        for (int64_t q = 0; q < Q; ++q) {
          const int64_t o = ((n * cc.k + k) * P + p) * Q + q;
          out.add(o, B[k]);
          gb.add(k, GO[o]);
          for (int64_t c = 0; c < cc.c; ++c)
            for (int64_t r = 0; r < cc.r; ++r)
              for (int64_t s = 0; s < cc.s; ++s) {
                const int64_t y = p * cc.p.stride_h - cc.p.pad_h + r * cc.p.dilation_h;
                const int64_t xx = q * cc.p.stride_w - cc.p.pad_w + s * cc.p.dilation_w;
                if (y < 0 || y >= cc.h || xx < 0 || xx >= cc.w) continue;
                const int64_t xi = ((n * cc.c + c) * cc.h + y) * cc.w + xx;
                const int64_t wi = ((k * cc.c + c) * cc.r + r) * cc.s + s;
                out.add(o, X[xi] * W[wi]);
                gx.add(xi, GO[o] * W[wi]);
                gw.add(wi, GO[o] * X[xi]);
              }
        }
  const Tensor xg = x.cuda(), wg = w.cuda(), bg = b.cuda(), gog = go.cuda();
  Tensor y = empty_gpu(out.shape), dx = empty_gpu(gx.shape), dw = empty_gpu(gw.shape),
         db = empty_gpu(gb.shape);
  gpu().conv2d(y, xg, wg, bg, cc.p);
  gpu().conv2d_backward_input(dx, gog, wg, cc.p);
  gpu().conv2d_backward_weight(dw, db, gog, xg, cc.p);
  EXPECT_TRUE(near_ref(y, out, "conv2d"));
  EXPECT_TRUE(near_ref(dx, gx, "conv2d grad input"));
  EXPECT_TRUE(near_ref(dw, gw, "conv2d grad weight"));
  EXPECT_TRUE(near_ref(db, gb, "conv2d grad bias"));
}
}  // namespace

TEST(CudaConv, MatchesNaiveLoops) {
  EMBER_REQUIRE_GPU();
  {
    manual_seed(1);
    check_conv({2, 3, 7, 6, 4, 3, 3, {}});
    Conv2dParams strided;
    strided.stride_h = 2;
    strided.stride_w = 1;
    strided.pad_h = 1;
    strided.pad_w = 2;
    check_conv({3, 2, 9, 8, 5, 3, 2, strided});
    Conv2dParams dilated;
    dilated.dilation_h = 2;
    dilated.dilation_w = 3;
    dilated.pad_h = dilated.pad_w = 1;
    check_conv({1, 4, 10, 11, 2, 3, 3, dilated});
    check_conv({8, 1, 28, 28, 8, 5, 5, {}});  // the tutorial CNN's first layer
  }
}

TEST(CudaConv, DeterministicSwitchGivesRepeatableGradients) {
  EMBER_REQUIRE_GPU();
  {
    manual_seed(2);
    cuda::set_deterministic(true);
    const Tensor x = random_cpu({4, 8, 12, 12}).cuda(), go = random_cpu({4, 16, 10, 10}).cuda();
    Tensor dw1 = empty_gpu({16, 8, 3, 3}), dw2 = empty_gpu({16, 8, 3, 3});
    gpu().conv2d_backward_weight(dw1, Tensor(), go, x, {});
    gpu().conv2d_backward_weight(dw2, Tensor(), go, x, {});
    cuda::set_deterministic(false);
    EXPECT_EQ(host(dw1), host(dw2));
  }
}

// x[1:3] of a [3, 1, 5, 5] batch starts 100 bytes into its allocation: the algorithm found
// for [2, 1, 5, 5] on aligned buffers (the emulated cuDNN's fastest forward needs 16-byte
// operands) must not be reused for it: the cache keys on the operands' alignment.
TEST(CudaConv, ANarrowedInputIsNotGivenAnAlgorithmFoundOnAlignedBuffers) {
  EMBER_REQUIRE_GPU();
  manual_seed(11);
  const Tensor big = random_cpu({3, 1, 5, 5}), w = random_cpu({2, 1, 3, 3});
  const Tensor big_gpu = big.cuda(), w_gpu = w.cuda();
  for (int64_t start : {0, 1}) {
    const std::vector<double> want = host(conv2d(big.narrow(0, start, 2), w));
    const std::vector<double> got = host(conv2d(big_gpu.narrow(0, start, 2), w_gpu));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5) << "batch from " << start << ", " << i;
  }
}

TEST(CudaConv, LibraryErrorsNameTheCall) {
  EMBER_REQUIRE_REAL_GPU();
  {
    // An output whose shape cannot come from this convolution: cuDNN refuses it.
    const Tensor x = random_cpu({1, 2, 5, 5}).cuda(), w = random_cpu({3, 2, 3, 3}).cuda();
    Tensor y = empty_gpu({1, 3, 7, 7});
    try {
      gpu().conv2d(y, x, w, Tensor(), {});
      ADD_FAILURE() << "no error";
    } catch (const CudaError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("cudnn"), std::string::npos) << msg;
      EXPECT_NE(msg.find("failed: "), std::string::npos) << msg;
      EXPECT_NE(msg.find("cuda_conv.cpp:"), std::string::npos) << msg;
    }
  }
}

// ---- pooling -----------------------------------------------------------------------------

namespace {
void check_pool(int64_t n, int64_t c, int64_t h, int64_t w, const Pool2dParams& p) {
  Poisoned poison;
  const int64_t P = (h + 2 * p.pad_h - p.kernel_h) / p.stride_h + 1;
  const int64_t Q = (w + 2 * p.pad_w - p.kernel_w) / p.stride_w + 1;
  const Tensor x = random_cpu({n, c, h, w}), go = random_cpu({n, c, P, Q});
  const auto X = host(x), GO = host(go);
  Ref mx({n, c, P, Q}), avg({n, c, P, Q}), gmax({n, c, h, w}), gavg({n, c, h, w});
  std::vector<int64_t> idx(static_cast<size_t>(n * c * P * Q));
  for (int64_t pl = 0; pl < n * c; ++pl)
    for (int64_t i = 0; i < P; ++i)
      for (int64_t j = 0; j < Q; ++j) {
        const int64_t o = (pl * P + i) * Q + j;
        int64_t best = -1;
        for (int64_t r = 0; r < p.kernel_h; ++r)
          for (int64_t s = 0; s < p.kernel_w; ++s) {
            const int64_t y = i * p.stride_h - p.pad_h + r, xx = j * p.stride_w - p.pad_w + s;
            avg.k[static_cast<size_t>(o)]++;  // padding counts in the divisor
            if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
            const double v = X[static_cast<size_t>((pl * h + y) * w + xx)];
            avg.v[static_cast<size_t>(o)] += v / static_cast<double>(p.kernel_h * p.kernel_w);
            gavg.add((pl * h + y) * w + xx,
                     GO[static_cast<size_t>(o)] / static_cast<double>(p.kernel_h * p.kernel_w));
            if (best < 0 || v > X[static_cast<size_t>(pl * h * w + best)]) best = y * w + xx;
          }
        idx[static_cast<size_t>(o)] = best;
        mx.v[static_cast<size_t>(o)] = X[static_cast<size_t>(pl * h * w + best)];
        gmax.add(pl * h * w + best, GO[static_cast<size_t>(o)]);
      }
  for (auto& k : gmax.k) k = std::max<int64_t>(k, 1);
  const Tensor xg = x.cuda(), gog = go.cuda();
  Tensor y = empty_gpu(mx.shape), ind = empty_gpu(mx.shape, kInt64), ya = empty_gpu(avg.shape);
  Tensor dx = empty_gpu(gmax.shape), dxa = empty_gpu(gavg.shape);
  gpu().max_pool2d(y, ind, xg, p);
  gpu().max_pool2d_backward(dx, gog, xg, y, ind, p);
  gpu().avg_pool2d(ya, xg, p);
  gpu().avg_pool2d_backward(dxa, gog, p);
  EXPECT_TRUE(near_ref(y, mx, "max_pool2d"));
  EXPECT_EQ(ind.to_vector<int64_t>(), idx) << "max_pool2d indices";
  EXPECT_TRUE(near_ref(dx, gmax, "max_pool2d grad"));
  EXPECT_TRUE(near_ref(ya, avg, "avg_pool2d"));
  EXPECT_TRUE(near_ref(dxa, gavg, "avg_pool2d grad"));
}
}  // namespace

TEST(CudaPool, MatchesNaiveLoops) {
  EMBER_REQUIRE_GPU();
  {
    manual_seed(3);
    Pool2dParams two;
    two.kernel_h = two.kernel_w = two.stride_h = two.stride_w = 2;
    check_pool(2, 3, 8, 6, two);  // the tutorial CNN's pooling
    Pool2dParams overlap;
    overlap.kernel_h = 3;
    overlap.kernel_w = 2;
    overlap.stride_h = 2;
    overlap.stride_w = 1;
    overlap.pad_h = 1;
    overlap.pad_w = 1;
    check_pool(1, 4, 9, 7, overlap);
  }
}

// ---- batch norm --------------------------------------------------------------------------

TEST(CudaBatchNorm, TrainingAndInferenceMatchNaiveLoops) {
  EMBER_REQUIRE_GPU();
  {
    manual_seed(4);
    // [6, 3, 4, 5] goes to cuDNN, [16, 7] to Ember's kernels; eps 0.1 must reach the
    // backward too (the emulated cuDNN checks the saved statistics against it).
    for (const Shape& shape : {Shape{6, 3, 4, 5}, Shape{16, 7}})
      for (const double eps : {1e-5, 0.1}) {
        Poisoned poison;
        const int64_t N = shape[0], C = shape[1], R = numel_of(shape) / (N * C), M = N * R;
        const double momentum = 0.1;
        const Tensor x = random_cpu(shape, -2, 3), w = random_cpu({C}, 0.5, 1.5), b = random_cpu({C}),
                     go = random_cpu(shape), rm0 = random_cpu({C}), rv0 = random_cpu({C}, 0.5, 2);
        const auto X = host(x), W = host(w), B = host(b), GO = host(go), RM = host(rm0), RV = host(rv0);
        auto at = [&](int64_t n, int64_t c, int64_t r) { return static_cast<size_t>((n * C + c) * R + r); };
        Ref out(shape), mean({C}), invstd({C}), rm({C}), rv({C}), gi(shape), gw({C}), gbias({C});
        Ref eout(shape), egi(shape), egw({C}), egb({C});
        for (int64_t c = 0; c < C; ++c) {
          double s = 0, ss = 0;
          for (int64_t n = 0; n < N; ++n)
            for (int64_t r = 0; r < R; ++r) s += X[at(n, c, r)];
          const double mu = s / M;
          for (int64_t n = 0; n < N; ++n)
            for (int64_t r = 0; r < R; ++r) ss += (X[at(n, c, r)] - mu) * (X[at(n, c, r)] - mu);
          const double var = ss / M, is = 1 / std::sqrt(var + eps);
          const double eis = 1 / std::sqrt(RV[c] + eps);
          mean.v[c] = mu;
          invstd.v[c] = is;
          rm.v[c] = (1 - momentum) * RM[c] + momentum * mu;
          rv.v[c] = (1 - momentum) * RV[c] + momentum * ss / (M - 1);
          mean.k[c] = invstd.k[c] = rm.k[c] = rv.k[c] = M;
          double sg = 0, sgx = 0, esgx = 0;
          for (int64_t n = 0; n < N; ++n)
            for (int64_t r = 0; r < R; ++r) {
              const size_t i = at(n, c, r);
              const double xhat = (X[i] - mu) * is;
              out.v[i] = xhat * W[c] + B[c];
              out.k[i] = M;
              eout.v[i] = (X[i] - RM[c]) * eis * W[c] + B[c];
              eout.k[i] = 4;  // x, mean, scale and shift meet in one affine map
              sg += GO[i];
              sgx += GO[i] * xhat;
              esgx += GO[i] * (X[i] - RM[c]) * eis;
              egi.v[i] = GO[i] * W[c] * eis;
            }
          gw.v[c] = sgx;
          gbias.v[c] = egb.v[c] = sg;
          egw.v[c] = esgx;
          gw.k[c] = gbias.k[c] = egw.k[c] = egb.k[c] = M;
          for (int64_t n = 0; n < N; ++n)
            for (int64_t r = 0; r < R; ++r) {
              const size_t i = at(n, c, r);
              const double xhat = (X[i] - mu) * is;
              gi.v[i] = W[c] * is / M * (M * GO[i] - sg - xhat * sgx);
              gi.k[i] = M;
            }
        }
        const Tensor xg = x.cuda(), wg = w.cuda(), bg = b.cuda(), gog = go.cuda();
        Tensor rmg = rm0.cuda(), rvg = rv0.cuda();
        Tensor y = empty_gpu(shape), sm = empty_gpu({C}), si = empty_gpu({C});
        gpu().batch_norm(y, sm, si, xg, wg, bg, rmg, rvg, true, momentum, eps);
        EXPECT_TRUE(near_ref(y, out, "batch_norm training"));
        EXPECT_TRUE(near_ref(sm, mean, "batch_norm save_mean"));
        EXPECT_TRUE(near_ref(si, invstd, "batch_norm save_invstd"));
        EXPECT_TRUE(near_ref(rmg, rm, "batch_norm running_mean"));
        EXPECT_TRUE(near_ref(rvg, rv, "batch_norm running_var (unbiased)"));
        Tensor dx = empty_gpu(shape), dw = empty_gpu({C}), db = empty_gpu({C});
        gpu().batch_norm_backward(dx, dw, db, gog, xg, wg, sm, si, true, eps);
        EXPECT_TRUE(near_ref(dx, gi, "batch_norm grad input"));
        EXPECT_TRUE(near_ref(dw, gw, "batch_norm grad weight"));
        EXPECT_TRUE(near_ref(db, gbias, "batch_norm grad bias"));

        // Inference: the running statistics normalise; their gradient treats them as constants.
        const Tensor rm_in = rm0.cuda(), rv_in = rv0.cuda();
        Tensor ye = empty_gpu(shape), em = empty_gpu({C}), ei = empty_gpu({C});
        gpu().batch_norm(ye, em, ei, xg, wg, bg, rm_in, rv_in, false, momentum, eps);
        EXPECT_TRUE(near_ref(ye, eout, "batch_norm inference"));
        Tensor edx = empty_gpu(shape), edw = empty_gpu({C}), edb = empty_gpu({C});
        gpu().batch_norm_backward(edx, edw, edb, gog, xg, wg, em, ei, false, eps);
        EXPECT_TRUE(near_ref(edx, egi, "batch_norm inference grad input"));
        EXPECT_TRUE(near_ref(edw, egw, "batch_norm inference grad weight"));
        EXPECT_TRUE(near_ref(edb, egb, "batch_norm inference grad bias"));
      }
  }
}

// ---- indexing ----------------------------------------------------------------------------

TEST(CudaIndex, SelectAddGatherScatterMatchNaiveLoops) {
  EMBER_REQUIRE_GPU();
  manual_seed(5);
  Poisoned poison;
  // index_select along dim 1 of a transposed (strided) input, with a repeated index.
  const Tensor in = random_cpu({5, 4}).t();  // [4, 5], strides (1, 4)
  const Tensor index = from_vector(std::vector<int64_t>{4, 0, 4, 2}, {4}, kInt64);
  Tensor sel = empty_gpu({4, 4});
  gpu().index_select(sel, in.cuda(), 1, index.cuda(), "index_select");
  Ref rsel({4, 4});
  const auto IN = in.contiguous().to_vector<double>();
  const std::vector<int64_t> I{4, 0, 4, 2};
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t j = 0; j < 4; ++j)
      rsel.add(r * 4 + j, IN[static_cast<size_t>(r * 5 + I[static_cast<size_t>(j)])]);
  EXPECT_TRUE(near_ref(sel, rsel, "index_select"));

  // index_add: repeated indices sum.
  const Tensor base = random_cpu({4, 5}), src = random_cpu({4, 4});
  Tensor acc = base.cuda();
  gpu().index_add(acc, 1, index.cuda(), src.cuda());
  Ref radd({4, 5});
  const auto BASE = host(base), SRC = host(src);
  for (size_t e = 0; e < BASE.size(); ++e) radd.add(static_cast<int64_t>(e), BASE[e]);
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t j = 0; j < 4; ++j)
      radd.add(r * 5 + I[static_cast<size_t>(j)], SRC[static_cast<size_t>(r * 4 + j)]);
  EXPECT_TRUE(near_ref(acc, radd, "index_add"));

  // gather / scatter_add along dim 0 with an index smaller than the input.
  const Tensor gidx = from_vector(std::vector<int64_t>{3, 0, 1, 1, 2, 3}, {2, 3}, kInt64);
  const Tensor gin = random_cpu({4, 5});
  Tensor g = empty_gpu({2, 3});
  gpu().gather(g, gin.cuda(), 0, gidx.cuda(), "gather");
  Ref rg({2, 3});
  const auto GIN = host(gin);
  const std::vector<int64_t> GI{3, 0, 1, 1, 2, 3};
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      rg.add(i * 3 + j, GIN[static_cast<size_t>(GI[static_cast<size_t>(i * 3 + j)] * 5 + j)]);
  EXPECT_TRUE(near_ref(g, rg, "gather"));

  const Tensor ssrc = random_cpu({2, 3});
  Tensor sacc = gin.cuda();
  gpu().scatter_add(sacc, 0, gidx.cuda(), ssrc.cuda());
  Ref rs({4, 5});
  const auto SS = host(ssrc);
  for (size_t e = 0; e < GIN.size(); ++e) rs.add(static_cast<int64_t>(e), GIN[e]);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      rs.add(GI[static_cast<size_t>(i * 3 + j)] * 5 + j, SS[static_cast<size_t>(i * 3 + j)]);
  EXPECT_TRUE(near_ref(sacc, rs, "scatter_add"));
}

TEST(CudaIndex, BadIndicesRaiseIndexErrorNamingTheOpWhenRead) {
  EMBER_REQUIRE_REAL_GPU();
  const Tensor in = random_cpu({3, 4}).cuda();
  const Tensor bad = from_vector(std::vector<int64_t>{1, 7}, {2}, kInt64).cuda();
  Tensor out = empty_gpu({3, 2});
  gpu().index_select(out, in, 1, bad, "index_select");  // queued: no error yet
  EXPECT_THROW_LINE((void)out.cpu(), IndexError, "index_select: index 7 is out of range for dim 1 of size 4");
  // The flag is cleared: the device keeps working.
  EXPECT_EQ(in.cpu().numel(), 12);
  Tensor acc = empty_gpu({3, 4});
  gpu().fill(acc, 0);
  gpu().scatter_add(acc, 0, from_vector(std::vector<int64_t>{-1}, {1, 1}, kInt64).cuda(), in);
  EXPECT_THROW_LINE(cuda::synchronize(), IndexError,
                    "scatter_add: index -1 is out of range for dim 0 of size 3");
}

TEST(CudaIndex, BadTargetsRaiseIndexErrorNamingTheLoss) {
  EMBER_REQUIRE_REAL_GPU();
  const Tensor logits = random_cpu({3, 5}).cuda();
  const Tensor target = from_vector(std::vector<int64_t>{0, 5, 2}, {3}, kInt64).cuda();
  Tensor loss = cross_entropy(logits, target);  // queued
  EXPECT_THROW_LINE(loss.item<float>(), IndexError,
                    "cross_entropy: target 5 is out of range for 5 classes (expected 0 <= target < 5)");
  EXPECT_NO_THROW(
      cross_entropy(logits, from_vector(std::vector<int64_t>{0, 4, 2}, {3}, kInt64).cuda()).item<float>());
}

// PTX's cvt saturates and x86 wraps: kernels/cast.h defines one answer for both devices.
TEST(CudaCast, FloatEdgesToIntegersAndBoolMatchTheCpu) {
  EMBER_REQUIRE_GPU();
  const test::CastCases c = test::cast_edge_cases();
  for (DType from : {kFloat32, kFloat64}) {
    const Tensor x = from_vector(c.in, {static_cast<int64_t>(c.in.size())}, kFloat64).to(from).cuda();
    EXPECT_EQ(x.to(kInt64).to_vector<int64_t>(), c.to_int64) << dtype_name(from);
    EXPECT_EQ(x.to(kUInt8).to_vector<uint8_t>(), c.to_uint8) << dtype_name(from);
    EXPECT_EQ(x.to(kBool).to_vector<bool>(), c.to_bool) << dtype_name(from);
    EXPECT_EQ(x.to(kInt32).to_vector<int32_t>(), c.to_int32) << dtype_name(from);
  }
  const TensorOptions u8 = TensorOptions().dtype(kUInt8).device(Device::cuda(0));
  EXPECT_THROW(full({2}, 300.7, u8), ValueError);  // refused before any device work, as on the CPU
  EXPECT_EQ(full({2}, 200.7, u8).to_vector<uint8_t>(), (std::vector<uint8_t>{200, 200}));
  const Tensor ones = full({1}, 1.0, TensorOptions().dtype(kInt64).device(Device::cuda(0)));
  EXPECT_EQ((ones + 2).to_vector<int64_t>(), std::vector<int64_t>{3});
  EXPECT_EQ((ones + 2.5).to_vector<float>(), std::vector<float>{3.5f});  // promoted, as PyTorch
}

TEST(CudaIndex, BadTargetsInTheBackwardNameTheLossOnBothDevices) {
  EMBER_REQUIRE_REAL_GPU();
  const Tensor logits = random_cpu({3, 5});
  const Tensor bad = from_vector(std::vector<int64_t>{0, 5, 2}, {3}, kInt64);
  const Tensor g = from_vector(std::vector<float>{1, 1, 1}, {3});
  const char* msg = "cross_entropy: target 5 is out of range for 5 classes (expected 0 <= target < 5)";
  Tensor gi_cpu = zeros({3, 5});
  EXPECT_THROW_LINE(backend_for(Device::cpu())
                        .class_loss_backward(gi_cpu, g, logits, bad, ClassLossParams{}, "cross_entropy"),
                    IndexError, msg);
  Tensor gi = empty_gpu({3, 5});
  gpu().class_loss_backward(gi, g.cuda(), logits.cuda(), bad.cuda(), ClassLossParams{},
                            "cross_entropy");  // queued
  EXPECT_THROW_LINE(cuda::synchronize(), IndexError, msg);
}

// ---- optimizers --------------------------------------------------------------------------

TEST(CudaOptim, SgdMatchesPyTorchFormulas) {
  EMBER_REQUIRE_GPU();
  manual_seed(6);
  for (bool nesterov : {false, true})
    for (bool first : {true, false}) {
      SgdParams p;
      p.lr = 0.1;
      p.momentum = 0.9;
      p.dampening = nesterov ? 0.0 : 0.2;
      p.weight_decay = 0.01;
      p.nesterov = nesterov;
      p.first_step = first;
      // Two tensors, one spanning several chunks, so the multi-tensor launch is exercised.
      std::vector<Tensor> params, grads, bufs, pc, gc, bc;
      for (int64_t n : {int64_t(7), int64_t(150000)}) {
        pc.push_back(random_cpu({n}));
        gc.push_back(random_cpu({n}));
        bc.push_back(random_cpu({n}));
        params.push_back(pc.back().cuda());
        grads.push_back(gc.back().cuda());
        bufs.push_back(bc.back().cuda());
      }
      gpu().sgd_step(params, grads, bufs, p);
      for (size_t t = 0; t < params.size(); ++t) {
        const auto P = host(pc[t]), G = host(gc[t]), M = host(bc[t]);
        Ref rp({pc[t].numel()}), rb({pc[t].numel()});
        for (size_t i = 0; i < P.size(); ++i) {
          double d = G[i] + p.weight_decay * P[i];
          const double b = first ? d : p.momentum * M[i] + (1 - p.dampening) * d;
          d = nesterov ? d + p.momentum * b : b;
          rp.v[i] = P[i] - p.lr * d;
          rb.v[i] = b;
          rp.k[i] = rb.k[i] = 1;
        }
        EXPECT_TRUE(near_ref(params[t], rp, "sgd_step param"));
        EXPECT_TRUE(near_ref(bufs[t], rb, "sgd_step momentum buffer"));
      }
    }
  // Without momentum there are no buffers.
  SgdParams plain;
  plain.lr = 0.5;
  const Tensor p0 = random_cpu({33}), g0 = random_cpu({33});
  std::vector<Tensor> ps{p0.cuda()}, gs{g0.cuda()};
  gpu().sgd_step(ps, gs, {}, plain);
  Ref r({33});
  const auto P = host(p0), G = host(g0);
  for (size_t i = 0; i < P.size(); ++i) r.add(static_cast<int64_t>(i), P[i] - 0.5 * G[i]);
  EXPECT_TRUE(near_ref(ps[0], r, "sgd_step without momentum"));
}

TEST(CudaOptim, AdamAndAdamWMatchPyTorchFormulas) {
  EMBER_REQUIRE_GPU();
  manual_seed(7);
  for (bool decoupled : {false, true}) {
    AdamParams p;
    p.lr = 0.01;
    p.weight_decay = 0.1;
    p.decoupled_weight_decay = decoupled;
    p.step = 3;
    const int64_t n = 70000;
    const Tensor pc = random_cpu({n}), gc = random_cpu({n}), mc = random_cpu({n}, -0.1, 0.1),
                 vc = random_cpu({n}, 0, 0.01);
    std::vector<Tensor> ps{pc.cuda()}, gs{gc.cuda()}, ms{mc.cuda()}, vs{vc.cuda()};
    gpu().adam_step(ps, gs, ms, vs, p);
    const auto P = host(pc), G = host(gc), M = host(mc), V = host(vc);
    Ref rp({n}), rm({n}), rv({n});
    const double bc1 = 1 - std::pow(p.beta1, 3), bc2 = 1 - std::pow(p.beta2, 3);
    for (size_t i = 0; i < P.size(); ++i) {
      double g = G[i], param = P[i];
      if (decoupled)
        param *= 1 - p.lr * p.weight_decay;
      else
        g += p.weight_decay * param;
      const double m = p.beta1 * M[i] + (1 - p.beta1) * g;
      const double v = p.beta2 * V[i] + (1 - p.beta2) * g * g;
      rm.add(static_cast<int64_t>(i), m);
      rv.add(static_cast<int64_t>(i), v);
      rp.add(static_cast<int64_t>(i), param - p.lr / bc1 * m / (std::sqrt(v) / std::sqrt(bc2) + p.eps));
    }
    EXPECT_TRUE(near_ref(ms[0], rm, "adam exp_avg"));
    EXPECT_TRUE(near_ref(vs[0], rv, "adam exp_avg_sq"));
    EXPECT_TRUE(near_ref(ps[0], rp, "adam param"));
  }
}
