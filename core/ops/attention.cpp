// scaled_dot_product_attention. The fused path hands the backends [B, L, E] queries, [B, S, E]
// keys and [B, S, Ev] values, the batch dims broadcast and flattened, as views wherever the
// strides allow (copied only when the last dim's stride is not 1 or the batch dims do not
// merge): heads split from [N, L, H * E] by a transpose, or keys broadcast across heads, are
// read where they are. The mask is a [B, L, S] view whose strides are 0 where it broadcasts,
// so a [..., 1, S] or [L, S] mask is never expanded in memory. The node saves the row
// log-sum-exps, and the backward recomputes the probabilities from them.
// With dropout the weights must exist to be dropped: that path is written with ops (matmul,
// softmax, dropout), and autograd differentiates it.
#include "ember/core/ops/attention.h"

#include <cmath>
#include <limits>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/dropout.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/linalg.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/softmax.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

namespace ember {
namespace {

constexpr const char* kOp = "scaled_dot_product_attention";

class AttentionNode final : public Node {
 public:
  AttentionNode(bool is_causal, double scale) : Node(kOp), is_causal_(is_causal), scale_(scale) {}
  // saved: q, k, v, out, lse, mask (undefined when there is none).
  std::vector<Tensor> backward(const Tensor& g) override {
    const Tensor &q = saved(0), &k = saved(1), &v = saved(2);
    std::vector<Tensor> grads{detail::make_empty(q.shape(), q.dtype(), q.device()),
                              detail::make_empty(k.shape(), k.dtype(), k.device()),
                              detail::make_empty(v.shape(), v.dtype(), v.device())};
    backend_for(q.device())
        .attention_backward(grads[0], grads[1], grads[2], g.contiguous(), q, k, v, saved(3).contiguous(),
                            saved(4), saved(5), is_causal_, scale_);
    for (size_t i = 0; i < grads.size(); ++i)
      if (!needs_grad(i)) grads[i] = Tensor();
    return grads;
  }

 private:
  bool is_causal_;
  double scale_;
};

Shape leading(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end() - 2); }

// The batch dims of query, key and value broadcast together (numpy rules).
Shape batch_shape(const Tensor& q, const Tensor& k, const Tensor& v) {
  Shape out;
  for (const Tensor* t : {&q, &k, &v}) {
    const Shape s = leading(*t);
    if (s.size() > out.size()) out.insert(out.begin(), s.size() - out.size(), 1);
    const size_t shift = out.size() - s.size();
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& o = out[shift + d];
      if (s[d] == o || s[d] == 1) continue;
      if (o != 1)
        raise<ShapeError>("shape mismatch in ", kOp, ": the batch dims of query ", shape_str(q.shape()),
                          ", key ", shape_str(k.shape()), " and value ", shape_str(v.shape()),
                          " do not broadcast");
      o = s[d];
    }
  }
  return out;
}

void check_shapes(const Tensor& q, const Tensor& k, const Tensor& v) {
  for (const Arg& a : {Arg{"query", q}, Arg{"key", k}, Arg{"value", v}})
    if (a.tensor.dim() < 2)
      raise<ShapeError>(kOp, ": ", a.name, " must have at least 2 dims, got shape ",
                        shape_str(a.tensor.shape()));
  if (q.size(-1) != k.size(-1))
    raise<ShapeError>("shape mismatch in ", kOp, ": query ", shape_str(q.shape()), " and key ",
                      shape_str(k.shape()), " differ in their last dim (E)");
  if (k.size(-2) != v.size(-2))
    raise<ShapeError>("shape mismatch in ", kOp, ": key ", shape_str(k.shape()), " and value ",
                      shape_str(v.shape()), " differ in their number of keys (dim -2)");
}

void check_mask_shape(const Tensor& mask, const Shape& target) {
  const Shape& m = mask.shape();
  bool ok = m.size() <= target.size();
  for (size_t d = 0; ok && d < m.size(); ++d) {
    const int64_t t = target[target.size() - m.size() + d];
    ok = m[d] == t || m[d] == 1;
  }
  if (!ok)
    raise<ShapeError>("shape mismatch in ", kOp, ": attn_mask ", shape_str(m), " does not broadcast to ",
                      shape_str(target));
}

// The mask as the backends read it: [B, L, S], stride 0 where it broadcasts. Batch dims that
// broadcast partly (a [N, 1, 1, S] mask for [N, H, L, S]) are copied out to [B, Lm, Sm], which
// is at most H times the mask itself.
Tensor mask_for_backend(const Tensor& mask, const Shape& batch, int64_t L, int64_t S) {
  if (!mask.defined()) return mask;
  const size_t rank = batch.size() + 2, pad = rank - static_cast<size_t>(mask.dim());
  Shape sizes(rank, 1), strides(rank, 0);
  for (size_t d = pad; d < rank; ++d) {
    sizes[d] = mask.size(static_cast<int64_t>(d - pad));
    strides[d] = sizes[d] == 1 ? 0 : mask.stride(static_cast<int64_t>(d - pad));
  }
  int64_t B = 1;
  bool batch_broadcast = true;
  for (size_t d = 0; d < batch.size(); ++d) {
    B *= batch[d];
    batch_broadcast = batch_broadcast && sizes[d] == 1;
  }
  const int64_t Lm = sizes[rank - 2], Sm = sizes[rank - 1];
  if (batch_broadcast)
    return detail::make_view(mask, {B, L, S}, {0, strides[rank - 2], strides[rank - 1]}, mask.offset());
  Shape full = batch;
  full.push_back(Lm);
  full.push_back(Sm);
  Tensor dense = detail::make_empty(full, mask.dtype(), mask.device(), kOp);
  backend_for(mask.device()).copy(dense, detail::make_view(mask, full, strides, mask.offset()));
  return detail::make_view(dense, {B, L, S}, {Lm * Sm, Lm == 1 ? 0 : Sm, Sm == 1 ? 0 : 1}, 0);
}

// With dropout: the weights are materialised (the dropout must see them), with ops. A row
// with every key masked is set to zeros before softmax (so it has no NaN) and to zeros after.
Tensor attention_with_dropout(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                              double dropout_p, bool is_causal, double scale) {
  const int64_t L = q.size(-2), S = k.size(-2);
  Tensor scores = matmul(q, k.transpose(-2, -1)) * scale;
  Tensor keep;
  if (is_causal) {
    const TensorOptions on(q.device());
    keep = ge(arange(double(L), on).unsqueeze(1), arange(double(S), on).unsqueeze(0));
  } else if (mask.defined() && mask.dtype() == kBool) {
    keep = mask;
  } else if (mask.defined()) {
    scores = scores + mask;
  }
  const double inf = std::numeric_limits<double>::infinity();
  if (keep.defined())
    scores = where(keep, scores, full({}, -inf, TensorOptions(q.dtype()).device(q.device())));
  // Without a mask every row has a key to attend (the caller has S > 0; a causal row sees key
  // 0): a plain softmax, without the guards for rows with none.
  if (!mask.defined()) return matmul(dropout(softmax(scores, -1), dropout_p, /*training=*/true), v);
  Tensor attended;
  {
    NoGradGuard no_grad;
    attended = gt(amax(scores.detach(), {-1}, /*keepdim=*/true), -inf);
  }
  const Tensor zero = zeros({}, TensorOptions(q.dtype()).device(q.device()));
  Tensor weights = where(attended, softmax(where(attended, scores, zero), -1), zero);
  return matmul(dropout(weights, dropout_p, /*training=*/true), v);
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  check_defined(kOp, {{"query", query}, {"key", key}, {"value", value}});
  check_same_device(kOp, {{"query", query}, {"key", key}, {"value", value}, {"attn_mask", attn_mask}});
  check_floating(kOp, {"query", query});
  check_same_dtype(kOp, {{"query", query}, {"key", key}, {"value", value}});
  if (attn_mask.defined() && attn_mask.dtype() != kBool && attn_mask.dtype() != query.dtype())
    raise<DTypeError>("dtype mismatch in ", kOp, ": attn_mask must be bool or ", dtype_name(query.dtype()),
                      ", got ", dtype_name(attn_mask.dtype()));
  if (!(dropout_p >= 0 && dropout_p <= 1))
    raise<ValueError>(kOp, ": dropout_p must be in [0, 1], got ", dropout_p);
  if (is_causal && attn_mask.defined())
    raise<ValueError>(kOp, ": is_causal cannot be combined with attn_mask (put the causal mask into it)");
  if (attn_mask.defined() && attn_mask.requires_grad())
    raise<ValueError>(kOp, ": attn_mask requires grad, but masks get no gradient (detach it)");
  check_shapes(query, key, value);
  const Shape batch = batch_shape(query, key, value);
  const int64_t L = query.size(-2), S = key.size(-2), E = query.size(-1), Ev = value.size(-1);
  Shape scores_shape = batch;
  scores_shape.push_back(L);
  scores_shape.push_back(S);
  if (attn_mask.defined()) check_mask_shape(attn_mask, scores_shape);
  const double sc = scale ? *scale : E > 0 ? 1.0 / std::sqrt(double(E)) : 1.0;

  // (Without keys every row is masked: zeros, which dropout leaves alone.)
  if (dropout_p > 0 && S > 0)
    return attention_with_dropout(query, key, value, attn_mask, dropout_p, is_causal, sc);

  const int64_t B = numel_of(batch);
  auto flat = [&](const Tensor& t, int64_t rows, int64_t cols) {
    Shape full = batch;
    full.push_back(rows);
    full.push_back(cols);
    // (No expand where there is nothing to broadcast: each view is a tensor, shape and strides.)
    const Tensor f = (t.shape() == full ? t : t.expand(full)).reshape({B, rows, cols});
    return f.stride(2) == 1 ? f : f.contiguous();
  };
  const Tensor q = flat(query, L, E), k = flat(key, S, E), v = flat(value, S, Ev);
  const Tensor mask = mask_for_backend(attn_mask, batch, L, S);
  // Queries whose rows interleave the batch entries (heads split from [L, H * E] by a
  // transpose: batch stride E, row stride B * E) get their output in the same layout, [L, B,
  // Ev] in memory, so that merging the heads back (transpose, then reshape) is a view.
  const bool interleaved = B > 1 && L > 1 && q.stride(0) == E && q.stride(1) == B * E;
  // (A plain tensor at those strides, not a view of another: nothing for autograd to track.)
  Tensor out =
      detail::make_empty(interleaved ? Shape{L, B, Ev} : Shape{B, L, Ev}, q.dtype(), q.device(), kOp);
  if (interleaved) out = detail::make_view(out, {B, L, Ev}, {Ev, B * Ev, 1}, out.offset());
  // The log-sum-exps only for the backward: without one, a log per row and a tensor saved.
  const bool recorded = autograd::any_requires_grad({&q, &k, &v});
  const Tensor lse = recorded ? detail::make_empty({B, L}, q.dtype(), q.device(), kOp) : Tensor();
  backend_for(q.device()).attention(out, lse, q, k, v, mask, is_causal, sc);
  if (recorded) {
    auto node = autograd::make_node<AttentionNode>(is_causal, sc);
    for (const Tensor& t : {q, k, v, out, lse, mask}) node->save(t);
    autograd::record(out, node, {&q, &k, &v});
  }
  Shape out_shape = batch;
  out_shape.push_back(L);
  out_shape.push_back(Ev);
  return out.reshape(out_shape);
}

}  // namespace ember
