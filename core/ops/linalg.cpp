// matmul and linear: batch dims are broadcast with differentiable views, so one batched
// product node (bmm) carries the gradient for every case.
#include "ember/core/ops/linalg.h"
#include "ember/core/ops/linear_pack.h"

#include "ember/core/checked_math.h"
#include "ember/core/error.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/views.h"
#include "ember/core/tensor_impl_access.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

namespace ember {
namespace {

// out[b] = a[b] @ b[b] for 3-D a [B, M, K] and b [B, K, N]; no checks, no record.
Tensor raw_bmm(const Tensor& a, const Tensor& b) {
  Tensor out = detail::make_empty({a.size(0), a.size(1), b.size(2)}, a.dtype(), a.device());
  if (out.numel()) backend_for(a.device()).matmul(out, a, b, Tensor());
  return out;
}

class BmmNode final : public Node {
 public:
  BmmNode() : Node("matmul") {}
  std::vector<Tensor> backward(const Tensor& g) override {
    const Tensor& a = saved(0);
    const Tensor& b = saved(1);
    return {needs_grad(0) ? raw_bmm(g, b.transpose(1, 2)) : Tensor(),
            needs_grad(1) ? raw_bmm(a.transpose(1, 2), g) : Tensor()};
  }
};

Tensor bmm(const Tensor& a, const Tensor& b) {
  Tensor out = raw_bmm(a, b);
  if (autograd::any_requires_grad({&a, &b})) {
    auto node = autograd::make_node<BmmNode>();
    node->save(a);
    node->save(b);
    autograd::record(out, node, {&a, &b});
  }
  return out;
}

[[noreturn]] void cannot_multiply(const Tensor& a, const Tensor& b) {
  raise<ShapeError>("shape mismatch in matmul: lhs ", shape_str(a.shape()), " and rhs ", shape_str(b.shape()),
                    " cannot be multiplied");
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  check_defined("matmul", {{"lhs", a}, {"rhs", b}});
  check_same_device("matmul", {{"lhs", a}, {"rhs", b}});
  check_same_dtype("matmul", {{"lhs", a}, {"rhs", b}});
  check_floating("matmul", {"lhs", a});
  if (a.dim() == 0 || b.dim() == 0) cannot_multiply(a, b);
  if (a.size(-1) != (b.dim() == 1 ? b.size(0) : b.size(-2))) cannot_multiply(a, b);
  if (a.dim() == 1 && b.dim() == 1) return matmul(a.unsqueeze(0), b.unsqueeze(1)).reshape({});
  if (a.dim() == 1) return squeeze(matmul(a.unsqueeze(0), b), -2);
  if (b.dim() == 1) return squeeze(matmul(a, b.unsqueeze(-1)), -1);
  const int64_t M = a.size(-2), K = a.size(-1), N = b.size(-1);
  const Shape batch_a(a.shape().begin(), a.shape().end() - 2);
  const Shape batch_b(b.shape().begin(), b.shape().end() - 2);
  Shape batch;
  try {
    batch = broadcast_shapes(batch_a, batch_b);
  } catch (const ShapeError&) {
    cannot_multiply(a, b);
  }
  const int64_t B = numel_of(batch);
  auto as3 = [&](const Tensor& t, int64_t rows, int64_t cols) {
    Shape full = batch;
    full.push_back(rows);
    full.push_back(cols);
    return t.expand(full).reshape({B, rows, cols});
  };
  Tensor a3 = a.dim() == 2 && B == 1 ? a.unsqueeze(0) : as3(a, M, K);
  Tensor b3 = b.dim() == 2 && B == 1 ? b.unsqueeze(0) : as3(b, K, N);
  Tensor out = bmm(a3, b3);
  Shape out_shape = batch;
  out_shape.push_back(M);
  out_shape.push_back(N);
  return out.reshape(out_shape);
}

namespace {
class LinearNode final : public Node {
 public:
  LinearNode() : Node("linear") {}
  std::vector<Tensor> backward(const Tensor& g) override {
    const Tensor& x = saved(0);  // [R, in]
    const Tensor& w = saved(1);  // [out, in]
    Tensor g3 = g.unsqueeze(0);
    std::vector<Tensor> grads(3);
    if (needs_grad(0)) grads[0] = raw_bmm(g3, w.unsqueeze(0)).squeeze(0);
    if (needs_grad(1)) grads[1] = raw_bmm(g.t().unsqueeze(0), x.unsqueeze(0)).squeeze(0);
    if (needs_grad(2)) grads[2] = sum(g, {0});
    return grads;
  }
};
}  // namespace

namespace {

// linear() with its right operand read from packed where that is defined (linear_pack.h).
Tensor linear_from(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& packed) {
  check_defined("linear", {{"input", input}, {"weight", weight}});
  check_same_device("linear", {{"input", input}, {"weight", weight}, {"bias", bias}});
  check_same_dtype("linear", {{"input", input}, {"weight", weight}, {"bias", bias}});
  check_floating("linear", {"input", input});
  check_ndim("linear", {"weight", weight}, 2);
  if (input.dim() < 1 || input.size(-1) != weight.size(1))
    raise<ShapeError>("shape mismatch in linear: input ", shape_str(input.shape()), " and weight ",
                      shape_str(weight.shape()), " cannot be multiplied");
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != weight.size(0)))
    raise<ShapeError>("shape mismatch in linear: bias ", shape_str(bias.shape()), " does not match weight ",
                      shape_str(weight.shape()));
  const int64_t in = weight.size(1), outf = weight.size(0);
  // The result's shape: input's with outf last (built only where needed: a 2-D input's result
  // is [rows, out] as made, with no Shape to allocate).
  auto out_shape = [&] {
    Shape s = input.shape();
    s.back() = outf;
    return s;
  };
  // A packed product that autograd does not record reads a contiguous input of any rank as
  // the [rows, in] it is in memory and writes its result, made in its final shape, as [rows,
  // out] (linear_packed's contract): no view of either, which at batch-1 BERT's sizes cost
  // 0.2 us of a [1, L, H] linear's 0.5 us.
  const bool record = autograd::any_requires_grad({&input, &weight, &bias});
  if (packed.defined() && !record && input.dim() > 2 && input.is_contiguous()) {
    Tensor out = detail::make_empty(out_shape(), input.dtype(), input.device());
    if (out.numel()) backend_for(input.device()).linear_packed(out, input, packed, bias);
    return out;
  }
  // A 2-D input is the backends' [rows, in] already: no view of it (nor of the result).
  int64_t rows = 1;  // the leading dims' product (they may be anything when in is 0)
  for (int64_t d = 0; d + 1 < input.dim(); ++d) rows = checked_mul(rows, input.size(d), "linear");
  Tensor x = input.dim() == 2 ? input : input.reshape({rows, in});
  Tensor out = detail::make_empty({x.size(0), outf}, input.dtype(), input.device());
  if (out.numel() && packed.defined())
    backend_for(input.device()).linear_packed(out, x, packed, bias);
  else if (out.numel())
    backend_for(input.device()).matmul(out.unsqueeze(0), x.unsqueeze(0), weight.t().unsqueeze(0), bias);
  if (record) {
    auto node = autograd::make_node<LinearNode>();
    node->save(x);
    node->save(weight);
    autograd::record(out, node, {&x, &weight, &bias});
  }
  if (input.dim() == 2) return out;
  return out.reshape(out_shape());
}

}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return linear_from(input, weight, bias, Tensor());
}

bool LinearWeightPack::is_current_for(const Tensor& weight) const {
  if (!weight.defined()) return false;
  const std::shared_ptr<const Storage> source = source_.lock();
  return source && source == detail::TensorImplAccess::storage(weight) && version_ == weight.version() &&
         offset_ == weight.offset() && shape_ == weight.shape() && strides_ == weight.strides();
}

int64_t LinearWeightPack::nbytes() const {
  return packed_.defined() ? packed_.numel() * static_cast<int64_t>(itemsize(packed_.dtype())) : 0;
}

const char* pack_format_name(PackFormat format) {
  return format == PackFormat::BFloat16 ? "bfloat16" : "float32";
}

LinearWeightPack pack_linear_weight(const Tensor& weight, PackFormat format) {
  check_defined("pack_linear_weight", {{"weight", weight}});
  check_ndim("pack_linear_weight", {"weight", weight}, 2);
  if (format == PackFormat::BFloat16 && weight.dtype() != DType::Float32)
    raise<DTypeError>("pack_linear_weight: bfloat16 packing takes a float32 weight, got ",
                      dtype_name(weight.dtype()));
  LinearWeightPack pack;
  pack.packed_ = backend_for(weight.device()).pack_linear_weight(weight, format);
  pack.format_ = format;
  pack.source_ = detail::TensorImplAccess::storage(weight);
  pack.version_ = weight.version();
  pack.offset_ = weight.offset();
  pack.shape_ = weight.shape();
  pack.strides_ = weight.strides();
  return pack;
}

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias, const LinearWeightPack& pack) {
  // A pack from another device than input's is never current for a weight on input's device
  // once linear_from has checked the devices: its storage would be another one.
  return linear_from(input, weight, bias, pack.is_current_for(weight) ? pack.packed_ : Tensor());
}

}  // namespace ember
