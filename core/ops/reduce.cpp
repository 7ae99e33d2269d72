// Reduction front-ends and their gradients.
#include "ember/core/ops/reduce.h"

#include <algorithm>
#include <cmath>

#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/views.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

namespace ember {
namespace {

const char* reduce_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "sum";
    case ReduceOp::Mean:
      return "mean";
    case ReduceOp::Max:
      return "amax";
    case ReduceOp::Min:
      return "amin";
  }
  return "reduce";
}

// Which dims are reduced (a sorted, duplicate-free list); all when dims is empty.
std::vector<int> reduced_dims(const Tensor& t, const std::vector<int64_t>& dims, const char* op) {
  std::vector<int> r;
  if (dims.empty()) {
    for (int d = 0; d < t.dim(); ++d) r.push_back(d);
    return r;
  }
  for (int64_t d : dims) {
    const int nd = normalize_dim(d, t.dim(), op);
    if (std::find(r.begin(), r.end(), nd) != r.end()) raise<ValueError>(op, ": dim ", nd, " is repeated");
    r.push_back(nd);
  }
  std::sort(r.begin(), r.end());
  return r;
}

Shape keepdim_shape(const Tensor& t, const std::vector<int>& dims) {
  Shape s = t.shape();
  for (int d : dims) s[d] = 1;
  return s;
}

Shape final_shape(const Tensor& t, const std::vector<int>& dims, bool keepdim) {
  if (keepdim) return keepdim_shape(t, dims);
  Shape s;
  for (int d = 0; d < t.dim(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) s.push_back(t.size(d));
  return s;
}

class ReduceNode final : public Node {
 public:
  ReduceNode(ReduceOp op, Shape input_shape, Shape keep_shape, int64_t count)
      : Node(reduce_name(op)),
        op_(op),
        in_(std::move(input_shape)),
        keep_(std::move(keep_shape)),
        count_(count) {}
  std::vector<Tensor> backward(const Tensor& g) override {
    Tensor gk = g.reshape(keep_);
    switch (op_) {
      case ReduceOp::Sum:
        return {gk.expand(in_).contiguous()};
      case ReduceOp::Mean:
        return {(gk / static_cast<double>(count_)).expand(in_).contiguous()};
      case ReduceOp::Max:
      case ReduceOp::Min: {
        // Shared evenly between the elements equal to the extremum.
        const Tensor& x = saved(0);
        Tensor hits = eq(x, saved(1).reshape(keep_)).to(x.dtype());
        const std::vector<int64_t> dims = reduced();
        Tensor n = dims.empty() ? hits : sum(hits, dims, true);
        return {hits * (gk / n)};
      }
    }
    return {};  // unreachable for a valid enumerator
  }

 private:
  // The dims that were reduced and had more than one element.
  std::vector<int64_t> reduced() const {
    std::vector<int64_t> d;
    for (size_t i = 0; i < keep_.size(); ++i)
      if (keep_[i] == 1 && in_[i] != 1) d.push_back(static_cast<int64_t>(i));
    return d;
  }
  ReduceOp op_;
  Shape in_, keep_;
  int64_t count_;
};

Tensor reduce(ReduceOp op, const Tensor& t, const std::vector<int64_t>& dims_in, bool keepdim) {
  const char* name = reduce_name(op);
  check_defined(name, {{"input", t}});
  // As PyTorch, a mean of integers or bools is refused rather than guessed at; the hint says
  // how to ask for one ((preds == y).mean() is a common slip).
  if (op == ReduceOp::Mean && !is_floating(t.dtype()))
    raise<DTypeError>("dtype mismatch in mean: input must be float32 or float64, got ", dtype_name(t.dtype()),
                      "; cast with .to(kFloat32) first");
  if (t.dtype() == kBool && op != ReduceOp::Sum) raise<DTypeError>(name, " does not support dtype bool");
  const std::vector<int> dims = reduced_dims(t, dims_in, name);
  int64_t count = 1;
  for (int d : dims) count *= t.size(d);
  if (count == 0 && (op == ReduceOp::Max || op == ReduceOp::Min))
    raise<ShapeError>(name, ": cannot reduce over an empty dim of shape ", shape_str(t.shape()));
  const Shape keep = keepdim_shape(t, dims);
  const DType out_dtype =
      (op == ReduceOp::Sum && (t.dtype() == kBool || t.dtype() == kUInt8 || t.dtype() == kInt32)) ? kInt64
                                                                                                  : t.dtype();
  // Allocated in its final shape (so grad_fn is this op), computed through a keepdim view.
  Tensor out = detail::make_empty(final_shape(t, dims, keepdim), out_dtype, t.device());
  const Tensor out_keep = detail::make_view(out, keep, contiguous_strides(keep), 0);
  if (out.numel()) {
    if (count == 0)
      backend_for(t.device()).fill(out_keep, op == ReduceOp::Sum ? 0.0 : std::nan(""));
    else
      backend_for(t.device()).reduce(op, out_keep, t, dims);
  }
  if (autograd::any_requires_grad({&t})) {
    auto node = autograd::make_node<ReduceNode>(op, t.shape(), keep, count);
    if (op == ReduceOp::Max || op == ReduceOp::Min) {
      node->save(t);
      node->save(out);
    }
    autograd::record(out, node, {&t});
  }
  return out;
}

class IndexReduceNode final : public Node {
 public:
  IndexReduceNode(const char* name, Shape input_shape, int dim)
      : Node(name), in_(std::move(input_shape)), dim_(dim) {}
  std::vector<Tensor> backward(const Tensor& g) override {
    // One-hot along dim at the kept index: compare positions with the saved indices.
    const Tensor& idx = saved(0);  // a keepdim view of the indices
    Shape pos_shape(in_.size(), 1);
    pos_shape[static_cast<size_t>(dim_)] = in_[static_cast<size_t>(dim_)];
    Tensor pos = arange(0, static_cast<double>(in_[static_cast<size_t>(dim_)]), 1,
                        TensorOptions(kInt64).device(g.device()))
                     .reshape(pos_shape);
    Tensor onehot = eq(pos, idx).to(g.dtype());
    return {onehot * g.reshape(idx.shape())};
  }

 private:
  Shape in_;
  int dim_;
};

ValuesIndices reduce_with_index(ReduceOp op, const Tensor& t, int64_t dim_in, bool keepdim,
                                bool want_values) {
  const char* name =
      op == ReduceOp::Max ? (want_values ? "max" : "argmax") : (want_values ? "min" : "argmin");
  check_defined(name, {{"input", t}});
  if (t.dtype() == kBool) raise<DTypeError>(name, " does not support dtype bool");
  // As in PyTorch, a 0-d tensor's only element is found along dim 0 or -1.
  const int dim = normalize_dim(dim_in, std::max<int64_t>(t.dim(), 1), name);
  if (t.dim() > 0 && t.size(dim) == 0)
    raise<ShapeError>(name, ": cannot reduce over an empty dim of shape ", shape_str(t.shape()));
  Shape keep = t.shape(), fin = t.shape();
  if (t.dim() > 0) {
    keep[dim] = 1;
    if (keepdim)
      fin[dim] = 1;
    else
      fin.erase(fin.begin() + dim);
  }
  // Allocated in their final shapes; the backend writes through keepdim views.
  auto keep_view = [&](const Tensor& x) { return detail::make_view(x, keep, contiguous_strides(keep), 0); };
  Tensor values = want_values ? detail::make_empty(fin, t.dtype(), t.device()) : Tensor();
  Tensor indices = detail::make_empty(fin, kInt64, t.device());
  if (indices.numel())
    backend_for(t.device())
        .reduce_with_index(op, want_values ? keep_view(values) : Tensor(), keep_view(indices), t,
                           t.dim() ? dim : 0);
  if (want_values && autograd::any_requires_grad({&t})) {
    auto node = autograd::make_node<IndexReduceNode>(name, t.shape(), t.dim() ? dim : 0);
    node->save(keep_view(indices));
    autograd::record(values, node, {&t});
  }
  return {values, indices};
}

// Two passes: the mean, then the squared deviations from it (E[x^2] - E[x]^2 would cancel).
// The divisor is PyTorch's max(0, N - correction): a correction at or past N gives inf (nan
// where every deviation is 0), an empty reduction nan. Composed of front-ends, so the
// gradient (2 (x - mean) / (N - correction) g) and the CUDA path come with them.
Tensor variance(const char* op, const Tensor& t, const std::vector<int64_t>& dims_in, double correction,
                bool keepdim) {
  check_defined(op, {{"input", t}});
  check_floating(op, {"input", t});
  const std::vector<int> dims = reduced_dims(t, dims_in, op);
  int64_t count = 1;
  for (int d : dims) count *= t.size(d);
  const std::vector<int64_t> dims64(dims.begin(), dims.end());
  const Tensor deviations = t - mean(t, dims64, true);
  const double divisor = std::max(0.0, static_cast<double>(count) - correction);
  return sum(square(deviations), dims64, keepdim) / divisor;
}

}  // namespace

Tensor sum(const Tensor& t) { return reduce(ReduceOp::Sum, t, {}, false); }
Tensor sum(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim) {
  return reduce(ReduceOp::Sum, t, dims, keepdim);
}
Tensor mean(const Tensor& t) { return reduce(ReduceOp::Mean, t, {}, false); }
Tensor mean(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim) {
  return reduce(ReduceOp::Mean, t, dims, keepdim);
}
Tensor var(const Tensor& t) { return variance("var", t, {}, 1, false); }
Tensor var(const Tensor& t, const std::vector<int64_t>& dims, double correction, bool keepdim) {
  return variance("var", t, dims, correction, keepdim);
}
Tensor std(const Tensor& t) { return sqrt(variance("std", t, {}, 1, false)); }
Tensor std(const Tensor& t, const std::vector<int64_t>& dims, double correction, bool keepdim) {
  return sqrt(variance("std", t, dims, correction, keepdim));
}
Tensor max(const Tensor& t) { return reduce(ReduceOp::Max, t, {}, false); }
Tensor min(const Tensor& t) { return reduce(ReduceOp::Min, t, {}, false); }
Tensor amax(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim) {
  return reduce(ReduceOp::Max, t, dims, keepdim);
}
Tensor amin(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim) {
  return reduce(ReduceOp::Min, t, dims, keepdim);
}
ValuesIndices max(const Tensor& t, int64_t dim, bool keepdim) {
  return reduce_with_index(ReduceOp::Max, t, dim, keepdim, true);
}
ValuesIndices min(const Tensor& t, int64_t dim, bool keepdim) {
  return reduce_with_index(ReduceOp::Min, t, dim, keepdim, true);
}
Tensor argmax(const Tensor& t, int64_t dim, bool keepdim) {
  return reduce_with_index(ReduceOp::Max, t, dim, keepdim, false).indices;
}
Tensor argmin(const Tensor& t, int64_t dim, bool keepdim) {
  return reduce_with_index(ReduceOp::Min, t, dim, keepdim, false).indices;
}
Tensor argmax(const Tensor& t) { return argmax(t.reshape({-1}), 0, false); }
Tensor argmin(const Tensor& t) { return argmin(t.reshape({-1}), 0, false); }

}  // namespace ember
