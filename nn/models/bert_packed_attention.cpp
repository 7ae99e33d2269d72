#include "ember/nn/models/bert_packed_attention.h"

#include <cmath>
#include <memory>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/ops/attention.h"
#include "ember/core/ops/dropout.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/index.h"
#include "ember/core/ops/linalg.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/softmax.h"
#include "ember/core/ops/views.h"
#include "ember/extend/autograd_node.h"

namespace ember::nn::models {
namespace {

// [n, H] rows [start, start + n) of x -> [heads, n, H / heads].
Tensor heads_of(const Tensor& x, int64_t start, int64_t n, int64_t num_heads) {
  return transpose(reshape(x.narrow(0, start, n), {n, num_heads, x.size(1) / num_heads}), 0, 1);
}

// [heads, n, d] -> [n, heads * d].
Tensor rows_of(const Tensor& x) { return reshape(transpose(x, 0, 1), {x.size(1), x.size(0) * x.size(2)}); }

// Per sequence: P = softmax(scale q k^T), the dropout mask M (undefined without dropout) and
// out = (P o M) v. The backward, with dO the output's gradient and W = P o M:
//   dV = W^T dO,  dP = (dO v^T) o M,  dS = P o (dP - rowsum(dP o P)),
//   dQ = scale dS k,  dK = scale dS^T q.
class PackedAttentionNode final : public Node {
 public:
  PackedAttentionNode() : Node("packed_self_attention") {}

  std::vector<Tensor> backward(const Tensor& grad_out) override {
    const Tensor& q = saved(0);
    const Tensor& k = saved(1);
    const Tensor& v = saved(2);
    std::vector<Tensor> dq, dk, dv;
    for (size_t s = 0; s < starts.size(); ++s) {
      const int64_t start = starts[s], n = lengths[s];
      const Tensor qs = heads_of(q, start, n, num_heads), ks = heads_of(k, start, n, num_heads),
                   vs = heads_of(v, start, n, num_heads), go = heads_of(grad_out, start, n, num_heads);
      const Tensor& p = probabilities[s];
      const Tensor& m = masks[s];
      const Tensor w = m.defined() ? p * m : p;
      Tensor dp = matmul(go, vs.transpose(-2, -1));
      if (m.defined()) dp = dp * m;
      const Tensor ds = p * (dp - sum(dp * p, {-1}, /*keepdim=*/true));
      if (needs_grad(0)) dq.push_back(rows_of(matmul(ds, ks) * scale));
      if (needs_grad(1)) dk.push_back(rows_of(matmul(ds.transpose(-2, -1), qs) * scale));
      if (needs_grad(2)) dv.push_back(rows_of(matmul(w.transpose(-2, -1), go)));
    }
    const auto joined = [](const std::vector<Tensor>& parts) {
      return parts.empty() ? Tensor() : cat(parts, 0);
    };
    return {joined(dq), joined(dk), joined(dv)};
  }

  void release() override {
    probabilities.clear();
    masks.clear();
    Node::release();
  }

  int64_t num_heads = 1;
  double scale = 1;
  std::vector<int64_t> starts, lengths;      // the sequences with tokens
  std::vector<Tensor> probabilities, masks;  // per sequence, [heads, n, n]
};

}  // namespace

Tensor packed_self_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                             const std::vector<int64_t>& offsets, int64_t num_heads, double dropout_p) {
  const int64_t H = q.size(1), head_size = H / num_heads;
  std::vector<Tensor> outs;
  outs.reserve(offsets.size());
  if (!autograd::any_requires_grad({&q, &k, &v})) {
    for (size_t b = 0; b + 1 < offsets.size(); ++b) {
      const int64_t start = offsets[b], n = offsets[b + 1] - start;
      if (n == 0) continue;  // an all-padding sequence has no token to compute
      // Every key of the sequence is real: no mask.
      outs.push_back(rows_of(
          scaled_dot_product_attention(heads_of(q, start, n, num_heads), heads_of(k, start, n, num_heads),
                                       heads_of(v, start, n, num_heads), Tensor(), dropout_p)));
    }
    return cat(outs, 0);
  }
  auto node = autograd::make_node<PackedAttentionNode>();
  node->num_heads = num_heads;
  node->scale = 1.0 / std::sqrt(static_cast<double>(head_size));
  Tensor out;
  {
    NoGradGuard no_grad;
    for (size_t b = 0; b + 1 < offsets.size(); ++b) {
      const int64_t start = offsets[b], n = offsets[b + 1] - start;
      if (n == 0) continue;
      const Tensor qs = heads_of(q, start, n, num_heads), ks = heads_of(k, start, n, num_heads),
                   vs = heads_of(v, start, n, num_heads);
      // As scaled_dot_product_attention's dropout path computes it, draws in the same order.
      const Tensor p = softmax(matmul(qs, ks.transpose(-2, -1)) * node->scale, -1);
      Tensor m;
      if (dropout_p >= 1)
        m = p * 0.0;  // everything dropped, as dropout(x, 1) gives
      else if (dropout_p > 0)
        m = dropout_mask(p.shape(), dropout_p, TensorOptions(p.dtype()).device(p.device()));
      outs.push_back(rows_of(matmul(m.defined() ? p * m : p, vs)));
      node->starts.push_back(start);
      node->lengths.push_back(n);
      node->probabilities.push_back(p);
      node->masks.push_back(m);
    }
    out = cat(outs, 0);
  }
  node->save(q);
  node->save(k);
  node->save(v);
  autograd::record(out, node, {&q, &k, &v});
  return out;
}

}  // namespace ember::nn::models
