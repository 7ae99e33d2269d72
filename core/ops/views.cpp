// Views share storage with their base; their gradients reshape, permute or scatter back.
#include "ember/core/ops/views.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "ember/core/autograd/view_history.h"
#include "ember/core/checked_math.h"
#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/transfer.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/check.h"

namespace ember {
namespace {

using Backward = LambdaNode::Fn;

// Records node `name` on a view when t needs a gradient (`setup` fills the node's data), and
// remembers t's root base, which an in-place op through the view rewrites.
template <class Setup>
Tensor finish(Tensor out, const Tensor& t, const char* name, Backward fn, const Setup& setup) {
  if (autograd::any_requires_grad({&t})) {
    auto node = autograd::make_node<LambdaNode>(name, fn);
    setup(*node);
    autograd::record(out, node, {&t});
  }
  autograd::track_view(out, t);
  return out;
}

void check_input(const char* op, const Tensor& t) { check_defined(op, {{"input", t}}); }

std::vector<Tensor> reshape_back(LambdaNode& self, const Tensor& g) { return {g.reshape(self.shapes[0])}; }

Tensor reshape_like_view(const Tensor& out, const Tensor& t, const char* name) {
  return finish(out, t, name, reshape_back, [&](LambdaNode& n) { n.shapes = {t.shape()}; });
}

// Whether a dim of this stride merges with the run of tensor_numel elements after it. A
// product that overflows cannot equal a real stride: then the dims do not merge.
bool merges_with_next(int64_t stride, int64_t tensor_numel, int64_t chunk_base_stride) {
  int64_t merged = 0;
  return !__builtin_mul_overflow(tensor_numel, chunk_base_stride, &merged) && stride == merged;
}

// Strides for viewing (shape, strides) as new_shape without copying, or false (the
// algorithm of PyTorch's computeStride: each run of merged old dims must be contiguous).
bool view_strides(const Shape& shape, const Shape& strides, const Shape& new_shape, Shape& out) {
  out.assign(new_shape.size(), 0);
  if (numel_of(shape) == 0 || shape.empty() || new_shape.empty()) {
    out = contiguous_strides(new_shape);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base_stride = strides.empty() ? 1 : strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= shape[d];  // at most numel, which fits
    if (d == 0 || (shape[d - 1] != 1 && !merges_with_next(strides[d - 1], tensor_numel, chunk_base_stride))) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        out[view_d] = checked_mul(view_numel, chunk_base_stride, "view");
        view_numel = checked_mul(view_numel, new_shape[view_d], "view");
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

}  // namespace

namespace detail {

Shape infer_shape(const Shape& shape, int64_t numel, const char* op) {
  Shape out = shape;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (infer >= 0) raise<ShapeError>(op, ": only one dim can be -1, got ", shape_str(shape));
      infer = static_cast<int64_t>(i);
    } else if (out[i] < 0) {
      raise<ShapeError>(op, ": invalid size ", out[i], " in shape ", shape_str(shape));
    } else {
      known = checked_mul(known, out[i], op);
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      raise<ShapeError>(op, ": shape ", shape_str(shape), " is invalid for ", numel, " elements");
    out[static_cast<size_t>(infer)] = numel / known;
  } else if (known != numel) {
    raise<ShapeError>(op, ": shape ", shape_str(shape), " is invalid for ", numel, " elements");
  }
  return out;
}

Tensor broadcast_to(const Tensor& t, const Shape& shape, const char* op) {
  if (t.shape() == shape) return t;
  const int64_t lead = static_cast<int64_t>(shape.size()) - t.dim();
  if (lead < 0)
    raise<ShapeError>(op, ": cannot expand shape ", shape_str(t.shape()), " to ", shape_str(shape));
  Shape strides(shape.size(), 0);
  Shape out_shape = shape;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (shape[d] < -1) raise<ValueError>(op, ": negative size in shape ", shape_str(shape));
    if (d < lead) {
      if (shape[d] < 0) raise<ShapeError>(op, ": -1 is not allowed for a new leading dim");
      continue;
    }
    const int64_t size = t.size(d - lead);
    if (shape[d] == -1) out_shape[d] = size;
    if (size == out_shape[d]) {
      strides[d] = t.stride(d - lead);
    } else if (size != 1) {
      raise<ShapeError>(op, ": cannot expand shape ", shape_str(t.shape()), " to ", shape_str(shape));
    }
  }
  // So that numel() of the view and its byte offsets cannot overflow later.
  checked_nbytes(out_shape, itemsize(t.dtype()), op);
  return make_view(t, std::move(out_shape), std::move(strides), t.offset());
}

}  // namespace detail

Tensor view(const Tensor& t, const Shape& shape) {
  check_input("view", t);
  Shape s = detail::infer_shape(shape, t.numel(), "view");
  // An empty tensor can take any shape with a 0 in it, but no shape whose strides (in
  // bytes) would overflow: [2^63 - 1, 0] of float32 is refused as zeros() refuses it.
  checked_nbytes(s, itemsize(t.dtype()), "view");
  Shape strides;
  if (!view_strides(t.shape(), t.strides(), s, strides))
    raise<ShapeError>("view: shape ", shape_str(s), " is incompatible with the strides of a ",
                      shape_str(t.shape()), " tensor; use reshape, which copies when needed");
  return reshape_like_view(detail::make_view(t, std::move(s), std::move(strides), t.offset()), t, "view");
}

Tensor reshape(const Tensor& t, const Shape& shape) {
  check_input("reshape", t);
  Shape s = detail::infer_shape(shape, t.numel(), "reshape");
  checked_nbytes(s, itemsize(t.dtype()), "reshape");
  Shape strides;
  if (view_strides(t.shape(), t.strides(), s, strides))
    return reshape_like_view(detail::make_view(t, std::move(s), std::move(strides), t.offset()), t,
                             "reshape");
  return view(clone(t), s);
}

Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  check_input("flatten", t);
  if (t.dim() == 0) {  // as in PyTorch, a 0-d tensor's dims are named 0 or -1 here
    normalize_dim(start_dim, 1, "flatten");
    normalize_dim(end_dim, 1, "flatten");
    return reshape(t, {1});
  }
  const int s = normalize_dim(start_dim, t.dim(), "flatten");
  const int e = normalize_dim(end_dim, t.dim(), "flatten");
  if (s > e) raise<ValueError>("flatten: start_dim ", start_dim, " comes after end_dim ", end_dim);
  Shape shape(t.shape().begin(), t.shape().begin() + s);
  int64_t merged = 1;
  for (int d = s; d <= e; ++d) merged = checked_mul(merged, t.size(d), "flatten");
  shape.push_back(merged);
  shape.insert(shape.end(), t.shape().begin() + e + 1, t.shape().end());
  return reshape(t, shape);
}

Tensor permute(const Tensor& t, const std::vector<int64_t>& dims) {
  check_input("permute", t);
  if (static_cast<int64_t>(dims.size()) != t.dim())
    raise<ShapeError>("permute: ", dims.size(), " dims given for a tensor of ", t.dim(), " dims");
  std::vector<int64_t> perm(dims.size());
  std::vector<bool> seen(dims.size(), false);
  Shape shape(dims.size()), strides(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    const int d = normalize_dim(dims[i], t.dim(), "permute");
    if (seen[d]) raise<ValueError>("permute: dim ", d, " is repeated");
    seen[d] = true;
    perm[i] = d;
    shape[i] = t.size(d);
    strides[i] = t.stride(d);
  }
  return finish(
      detail::make_view(t, std::move(shape), std::move(strides), t.offset()), t, "permute",
      [](LambdaNode& self, const Tensor& g) {
        std::vector<int64_t> inverse(self.ints.size());
        for (size_t i = 0; i < self.ints.size(); ++i) inverse[self.ints[i]] = static_cast<int64_t>(i);
        return std::vector<Tensor>{g.permute(inverse)};
      },
      [&](LambdaNode& n) { n.ints = perm; });
}

Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  check_input("transpose", t);
  if (t.dim() == 0) return t;
  const int a = normalize_dim(dim0, t.dim(), "transpose");
  const int b = normalize_dim(dim1, t.dim(), "transpose");
  std::vector<int64_t> perm(static_cast<size_t>(t.dim()));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[a], perm[b]);
  return permute(t, perm);
}

Tensor t(const Tensor& x) {
  check_input("t", x);
  if (x.dim() > 2) raise<ShapeError>("t: expects a tensor with <= 2 dims, got shape ", shape_str(x.shape()));
  return x.dim() < 2 ? x : transpose(x, 0, 1);
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  check_input("narrow", t);
  const int d = normalize_dim(dim, t.dim(), "narrow");
  const int64_t size = t.size(d);
  if (start < 0) start += size;
  // Compared as length > size - start: start + length can overflow, size - start cannot.
  if (start < 0 || start > size || length < 0 || length > size - start) {
    int64_t end = 0;
    const std::string end_str = __builtin_add_overflow(start, length, &end)
                                    ? detail::concat(start, " + ", length)
                                    : std::to_string(end);
    raise<IndexError>("narrow: [", start, ", ", end_str, ") is out of range for dim ", d, " of size ", size);
  }
  Shape shape = t.shape();
  shape[d] = length;
  const int64_t offset = checked_add(t.offset(), checked_mul(start, t.stride(d), "narrow"), "narrow");
  return finish(
      detail::make_view(t, std::move(shape), t.strides(), offset), t, "narrow",
      [](LambdaNode& self, const Tensor& g) {
        Tensor full = zeros(self.shapes[0], TensorOptions(g.dtype()).device(g.device()));
        Tensor part = full.narrow(self.ints[0], self.ints[1], self.ints[2]);
        part.copy_(g);
        return std::vector<Tensor>{full};
      },
      [&](LambdaNode& n) {
        n.shapes = {t.shape()};
        n.ints = {d, start, length};
      });
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  check_input("select", t);
  const int d = normalize_dim(dim, t.dim(), "select");
  const int64_t size = t.size(d);
  if (index < -size || index >= size)
    raise<IndexError>("select: index ", index, " is out of range for dim ", d, " of size ", size);
  if (index < 0) index += size;
  Shape shape = t.shape(), strides = t.strides();
  shape.erase(shape.begin() + d);
  strides.erase(strides.begin() + d);
  const int64_t offset = checked_add(t.offset(), checked_mul(index, t.stride(d), "select"), "select");
  return finish(
      detail::make_view(t, std::move(shape), std::move(strides), offset), t, "select",
      [](LambdaNode& self, const Tensor& g) {
        Tensor full = zeros(self.shapes[0], TensorOptions(g.dtype()).device(g.device()));
        Tensor part = full.select(self.ints[0], self.ints[1]);
        part.copy_(g);
        return std::vector<Tensor>{full};
      },
      [&](LambdaNode& n) {
        n.shapes = {t.shape()};
        n.ints = {d, index};
      });
}

Tensor squeeze(const Tensor& t) {
  check_input("squeeze", t);
  Shape shape, strides;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) != 1) {
      shape.push_back(t.size(d));
      strides.push_back(t.stride(d));
    }
  return reshape_like_view(detail::make_view(t, std::move(shape), std::move(strides), t.offset()), t,
                           "squeeze");
}

Tensor squeeze(const Tensor& t, int64_t dim) {
  check_input("squeeze", t);
  const int d = normalize_dim(dim, std::max<int64_t>(t.dim(), 1), "squeeze");
  if (t.dim() == 0 || t.size(d) != 1) return t;
  Shape shape = t.shape(), strides = t.strides();
  shape.erase(shape.begin() + d);
  strides.erase(strides.begin() + d);
  return reshape_like_view(detail::make_view(t, std::move(shape), std::move(strides), t.offset()), t,
                           "squeeze");
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  check_input("unsqueeze", t);
  const int d = normalize_dim(dim, t.dim() + 1, "unsqueeze");
  const int64_t stride = d < t.dim() ? checked_mul(t.stride(d), t.size(d), "unsqueeze") : 1;
  // Built at their final capacity: a copy grown by insert() would allocate twice.
  Shape shape, strides;
  shape.reserve(static_cast<size_t>(t.dim()) + 1);
  strides.reserve(static_cast<size_t>(t.dim()) + 1);
  shape.insert(shape.end(), t.shape().begin(), t.shape().end());
  strides.insert(strides.end(), t.strides().begin(), t.strides().end());
  shape.insert(shape.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return reshape_like_view(detail::make_view(t, std::move(shape), std::move(strides), t.offset()), t,
                           "unsqueeze");
}

Tensor expand(const Tensor& t, const Shape& shape) {
  check_input("expand", t);
  // The engine sums the gradient back to the input's shape, so the node passes it through.
  Tensor out = detail::broadcast_to(t, shape, "expand");
  if (out.is_same(t)) out = detail::make_view(t, t.shape(), t.strides(), t.offset());
  return finish(
      out, t, "expand", [](LambdaNode&, const Tensor& g) { return std::vector<Tensor>{g}; },
      [](LambdaNode&) {});
}

}  // namespace ember
