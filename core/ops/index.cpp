// Joining and indexing. cat copies each input into a narrow view of the output (stack is cat
// of unsqueezed inputs); index_select and gather call the backend, and their gradients are
// the matching scatter-adds (index_add, scatter_add) into zeros.
#include "ember/core/ops/index.h"

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/transfer.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

namespace ember {
namespace {

// The list checks cat and stack share: non-empty, defined, one device, one dtype.
void check_list(const char* op, const std::vector<Tensor>& tensors) {
  if (tensors.empty()) raise<ValueError>(op, ": expected a non-empty list of tensors");
  check_defined(op, "tensors", tensors);
  check_same_device(op, "tensors", tensors);
  check_same_dtype(op, "tensors", tensors);
}

class CatNode final : public Node {
 public:
  CatNode(int dim, std::vector<int64_t> sizes) : Node("cat"), dim_(dim), sizes_(std::move(sizes)) {}
  std::vector<Tensor> backward(const Tensor& g) override {
    std::vector<Tensor> grads;
    int64_t start = 0;
    for (size_t i = 0; i < sizes_.size(); ++i) {
      if (needs_grad(i))
        grads.push_back(g.narrow(dim_, start, sizes_[i]));
      else
        grads.emplace_back();
      start += sizes_[i];
    }
    return grads;
  }

 private:
  int dim_;
  std::vector<int64_t> sizes_;
};

Tensor cat_checked(const std::vector<Tensor>& tensors, int d) {
  const Tensor& ref = tensors[0];
  Shape shape = ref.shape();
  std::vector<int64_t> sizes;
  for (const Tensor& t : tensors) sizes.push_back(t.size(d));
  shape[d] = 0;
  for (int64_t s : sizes) shape[d] += s;
  Tensor out = detail::make_empty(shape, ref.dtype(), ref.device());
  int64_t start = 0;
  for (const Tensor& t : tensors) {
    if (t.numel()) {
      Shape part = shape;
      part[d] = t.size(d);
      detail::copy_values(detail::make_view(out, part, out.strides(), start * out.stride(d)), t);
    }
    start += t.size(d);
  }
  bool record = false;
  if (GradMode::is_enabled())
    for (const Tensor& t : tensors) record = record || t.requires_grad();
  if (record) autograd::record(out, autograd::make_node<CatNode>(d, sizes), tensors);
  return out;
}

// The gradient of index_select (index_add) and gather (scatter_add): the output's
// gradient summed into zeros at the positions the forward read.
class ScatterBackNode final : public Node {
 public:
  ScatterBackNode(const char* name, bool gather, int dim, Shape in)
      : Node(name), gather_(gather), dim_(dim), in_(std::move(in)) {}
  std::vector<Tensor> backward(const Tensor& g) override {
    const Tensor& index = saved(0);
    Tensor gi = zeros(in_, TensorOptions(g.dtype()).device(g.device()));
    Backend& backend = backend_for(g.device());
    if (gather_)
      backend.scatter_add(gi, dim_, index, g.contiguous());
    else
      backend.index_add(gi, dim_, index, g.contiguous());
    return {gi, Tensor()};
  }

 private:
  bool gather_;
  int dim_;
  Shape in_;
};

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  check_list("cat", tensors);
  const Tensor& ref = tensors[0];
  if (ref.dim() == 0) raise<ShapeError>("cat: tensors[0] is zero-dimensional and cannot be concatenated");
  const int d = normalize_dim(dim, ref.dim(), "cat");
  for (size_t i = 1; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    bool fits = t.dim() == ref.dim();
    for (int64_t k = 0; fits && k < ref.dim(); ++k) fits = k == d || t.size(k) == ref.size(k);
    if (!fits)
      raise<ShapeError>("shape mismatch in cat: tensors[0] ", shape_str(ref.shape()), " and tensors[", i,
                        "] ", shape_str(t.shape()), " differ outside dim ", d);
  }
  return cat_checked(tensors, d);
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  check_list("stack", tensors);
  const Tensor& ref = tensors[0];
  for (size_t i = 1; i < tensors.size(); ++i)
    if (tensors[i].shape() != ref.shape())
      raise<ShapeError>("shape mismatch in stack: tensors[0] ", shape_str(ref.shape()), " and tensors[", i,
                        "] ", shape_str(tensors[i].shape()), " differ");
  const int d = normalize_dim(dim, ref.dim() + 1, "stack");
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(t.unsqueeze(d));
  return cat_checked(parts, d);
}

Tensor index_select(const Tensor& input, int64_t dim, const Tensor& index) {
  const char* op = "index_select";
  check_defined(op, {{"input", input}, {"index", index}});
  check_same_device(op, {{"input", input}, {"index", index}});
  // int32 indices (as tokenizers give them) are accepted, as PyTorch does: widened to int64.
  if (index.dtype() == kInt32) return index_select(input, dim, index.to(kInt64));
  check_index_dtype(op, {"index", index});
  if (index.dim() > 1)
    raise<ShapeError>("index_select: index must be 1-D, got shape ", shape_str(index.shape()));
  if (input.dim() == 0) {
    normalize_dim(dim, 1, op);
    return index_select(input.reshape({1}), 0, index).reshape(index.shape());
  }
  const int d = normalize_dim(dim, input.dim(), op);
  const Tensor idx = index.reshape({-1}).contiguous();
  Shape shape = input.shape();
  shape[d] = idx.numel();
  Tensor out = detail::make_empty(shape, input.dtype(), input.device());
  if (out.numel() || idx.numel()) backend_for(input.device()).index_select(out, input, d, idx, op);
  if (autograd::any_requires_grad({&input})) {
    auto node = autograd::make_node<ScatterBackNode>(op, false, d, input.shape());
    node->save(idx);
    autograd::record(out, node, {&input, &index});
  }
  return out;
}

Tensor gather(const Tensor& input, int64_t dim, const Tensor& index) {
  const char* op = "gather";
  check_defined(op, {{"input", input}, {"index", index}});
  check_same_device(op, {{"input", input}, {"index", index}});
  if (index.dtype() == kInt32) return gather(input, dim, index.to(kInt64));  // as index_select
  check_index_dtype(op, {"index", index});
  if (index.dim() != input.dim())
    raise<ShapeError>("shape mismatch in gather: index ", shape_str(index.shape()),
                      " must have as many dims as input ", shape_str(input.shape()));
  if (input.dim() == 0) {
    normalize_dim(dim, 1, op);
    return gather(input.reshape({1}), 0, index.reshape({1})).reshape({});
  }
  const int d = normalize_dim(dim, input.dim(), op);
  for (int64_t k = 0; k < input.dim(); ++k)
    if (k != d && index.size(k) > input.size(k))
      raise<ShapeError>("shape mismatch in gather: index ", shape_str(index.shape()),
                        " is larger than input ", shape_str(input.shape()), " in dim ", k);
  Tensor out = detail::make_empty(index.shape(), input.dtype(), input.device());
  if (out.numel()) backend_for(input.device()).gather(out, input, d, index, op);
  if (autograd::any_requires_grad({&input})) {
    auto node = autograd::make_node<ScatterBackNode>(op, true, d, input.shape());
    node->save(index);
    autograd::record(out, node, {&input, &index});
  }
  return out;
}

}  // namespace ember
