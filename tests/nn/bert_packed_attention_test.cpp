// packed_self_attention (nn/models/bert_packed_attention.cpp) against the loop it replaces:
// each sequence sliced out of q, k and v with autograd's views and run through
// scaled_dot_product_attention (its dropout path), the outputs concatenated. From the same
// generator state the two draw the same dropout masks, so outputs and gradients agree.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/nn/models/bert_packed_attention.h"
#include "support/expect.h"

namespace {
using namespace ember;

struct Result {
  Tensor out, dq, dk, dv;
};

Tensor heads(const Tensor& x, int64_t start, int64_t n, int64_t num_heads) {
  return transpose(reshape(x.narrow(0, start, n), {n, num_heads, x.size(1) / num_heads}), 0, 1);
}

Result reference(const Tensor& q0, const Tensor& k0, const Tensor& v0, const std::vector<int64_t>& offsets,
                 int64_t num_heads, double p, const Tensor& grad) {
  Tensor q = q0.detach().requires_grad_(), k = k0.detach().requires_grad_(), v = v0.detach().requires_grad_();
  std::vector<Tensor> outs;
  for (size_t b = 0; b + 1 < offsets.size(); ++b) {
    const int64_t start = offsets[b], n = offsets[b + 1] - start;
    if (n == 0) continue;
    const Tensor o =
        scaled_dot_product_attention(heads(q, start, n, num_heads), heads(k, start, n, num_heads),
                                     heads(v, start, n, num_heads), Tensor(), p);
    outs.push_back(reshape(transpose(o, 0, 1), {n, q.size(1)}));
  }
  const Tensor out = cat(outs, 0);
  out.backward(grad);
  return {out.detach(), q.grad(), k.grad(), v.grad()};
}

Result packed(const Tensor& q0, const Tensor& k0, const Tensor& v0, const std::vector<int64_t>& offsets,
              int64_t num_heads, double p, const Tensor& grad) {
  Tensor q = q0.detach().requires_grad_(), k = k0.detach().requires_grad_(), v = v0.detach().requires_grad_();
  const Tensor out = nn::models::packed_self_attention(q, k, v, offsets, num_heads, p);
  out.backward(grad);
  return {out.detach(), q.grad(), k.grad(), v.grad()};
}

void expect_close(const Tensor& got, const Tensor& want, double tol, const char* what) {
  EXPECT_TRUE(test::all_close(got, want, tol, tol)) << what;
}

TEST(PackedSelfAttention, MatchesTheLoopOverSequencesWithAndWithoutDropout) {
  // Five sequences, one of them empty, one a single token; 4 heads of 3.
  const std::vector<int64_t> offsets = {0, 7, 7, 8, 20, 33};
  for (DType dtype : {kFloat64, kFloat32})
    for (double p : {0.0, 0.3}) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " p=" + std::to_string(p));
      manual_seed(5);
      const Tensor q = randn({33, 12}, dtype), k = randn({33, 12}, dtype), v = randn({33, 12}, dtype),
                   grad = randn({33, 12}, dtype);
      manual_seed(11);
      const Result want = reference(q, k, v, offsets, 4, p, grad);
      manual_seed(11);
      const Result got = packed(q, k, v, offsets, 4, p, grad);
      const double tol = dtype == kFloat64 ? 1e-12 : 2e-5;
      expect_close(got.out, want.out, tol, "out");
      expect_close(got.dq, want.dq, tol, "dq");
      expect_close(got.dk, want.dk, tol, "dk");
      expect_close(got.dv, want.dv, tol, "dv");
      if (p > 0) {  // the masks were drawn: some weights dropped, so the output moved
        manual_seed(11);
        const Result undropped = packed(q, k, v, offsets, 4, 0.0, grad);
        EXPECT_FALSE(
            test::values_near(got.out, undropped.out.to_vector<double>(), undropped.out.shape(), 1e-3));
      }
    }
}

TEST(PackedSelfAttention, GradientsOnlyForTheInputsThatNeedThem) {
  const std::vector<int64_t> offsets = {0, 5, 9};
  manual_seed(3);
  const Tensor q = randn({9, 8}, kFloat64).requires_grad_(), k = randn({9, 8}, kFloat64),
               v = randn({9, 8}, kFloat64).requires_grad_();
  nn::models::packed_self_attention(q, k, v, offsets, 2, 0.0).sum().backward();
  EXPECT_TRUE(q.grad().defined());
  EXPECT_FALSE(k.grad().defined());
  EXPECT_TRUE(v.grad().defined());
  // The sum's gradient reaches v as the column sums of the weights: each sequence's weights sum
  // to one per query row, so each sequence's rows of dv sum to its length.
  const Tensor dv = v.grad();
  EXPECT_NEAR(dv.narrow(0, 0, 5).sum().item<double>(), 5.0 * 8, 1e-12);
  EXPECT_NEAR(dv.narrow(0, 5, 4).sum().item<double>(), 4.0 * 8, 1e-12);
}

TEST(PackedSelfAttention, GradcheckAgainstFiniteDifferences) {
  const std::vector<int64_t> offsets = {0, 3, 7};
  manual_seed(8);
  const Tensor q = randn({7, 4}, kFloat64), k = randn({7, 4}, kFloat64), v = randn({7, 4}, kFloat64),
               w = randn({7, 4}, kFloat64);
  const auto loss = [&](const Tensor& qq, const Tensor& kk, const Tensor& vv) {
    return (nn::models::packed_self_attention(qq, kk, vv, offsets, 2, 0.0) * w).sum();
  };
  Tensor qg = q.detach().requires_grad_(), kg = k.detach().requires_grad_(), vg = v.detach().requires_grad_();
  loss(qg, kg, vg).backward();
  const double eps = 1e-6;
  for (int which = 0; which < 3; ++which) {
    const Tensor& base = which == 0 ? q : which == 1 ? k : v;
    const Tensor analytic = which == 0 ? qg.grad() : which == 1 ? kg.grad() : vg.grad();
    const std::vector<double> a = analytic.to_vector<double>();
    for (int64_t i = 0; i < base.numel(); ++i) {
      std::vector<double> plus = base.to_vector<double>(), minus = plus;
      plus[i] += eps;
      minus[i] -= eps;
      const Tensor tp = from_vector(plus, base.shape()), tm = from_vector(minus, base.shape());
      const double fp = which == 0   ? loss(tp, k, v).item<double>()
                        : which == 1 ? loss(q, tp, v).item<double>()
                                     : loss(q, k, tp).item<double>();
      const double fm = which == 0   ? loss(tm, k, v).item<double>()
                        : which == 1 ? loss(q, tm, v).item<double>()
                                     : loss(q, k, tm).item<double>();
      EXPECT_NEAR(a[i], (fp - fm) / (2 * eps), 1e-6) << "input " << which << " element " << i;
    }
  }
}

}  // namespace
