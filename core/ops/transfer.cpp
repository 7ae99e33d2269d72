#include "ember/core/ops/transfer.h"

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/autograd/node.h"
#include "ember/core/backend.h"
#include "ember/core/error.h"
#include "ember/core/ops/views.h"
#include "ember/core/tensor_impl_access.h"

namespace ember {
namespace {
// Gradients of the ops that cross devices or dtypes: go back to where the input was.
class ToNode final : public Node {
 public:
  ToNode(const char* name, Device device, DType dtype) : Node(name), device_(device), dtype_(dtype) {}
  std::vector<Tensor> backward(const Tensor& g) override { return {g.to(dtype_).to(device_)}; }

 private:
  Device device_;
  DType dtype_;
};
}  // namespace

namespace detail {

void copy_values(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  backend_for(dst.device()).copy(dst, src);
}

Tensor transfer(const Tensor& src, Device device) {
  checked_backend_for(device);
  Tensor s = src.is_contiguous() ? src : [&] {
    Tensor c = make_empty(src.shape(), src.dtype(), src.device());
    copy_values(c, src);
    return c;
  }();
  Tensor out = make_empty(s.shape(), s.dtype(), device);
  const size_t nbytes = static_cast<size_t>(s.numel()) * itemsize(s.dtype());
  const Device from = s.device();
  if (nbytes == 0) return out;
  if (from.is_cpu() && device.is_cpu()) {
    backend_for(from).copy_from_host(out.raw_data(), s.raw_data(), nbytes, device);
  } else if (from.is_cpu()) {
    backend_for(device).copy_from_host(out.raw_data(), s.raw_data(), nbytes, device);
  } else if (device.is_cpu()) {
    backend_for(from).copy_to_host(out.raw_data(), s.raw_data(), nbytes, from);
  } else {
    backend_for(device).copy_between_devices(out.raw_data(), device, s.raw_data(), from, nbytes);
  }
  return out;
}

void check_inplace(const Tensor& t, const char* op) {
  if (GradMode::is_enabled() && t.requires_grad() && t.is_leaf())
    raise<AutogradError>("a leaf tensor that requires grad is used in an in-place operation (", op,
                         "); wrap the update in NoGradGuard");
}

}  // namespace detail

Tensor to(const Tensor& t, Device device) {
  if (t.device() == device) return t;
  Tensor out = detail::transfer(t, device);
  if (autograd::any_requires_grad({&t}))
    autograd::record(out, std::make_shared<ToNode>("to", t.device(), t.dtype()), {&t});
  return out;
}

Tensor to(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor out = detail::make_empty(t.shape(), dtype, t.device());
  detail::copy_values(out, t);
  if (is_floating(dtype) && autograd::any_requires_grad({&t}))
    autograd::record(out, std::make_shared<ToNode>("to", t.device(), t.dtype()), {&t});
  return out;
}

Tensor clone(const Tensor& t) {
  Tensor out = detail::make_empty(t.shape(), t.dtype(), t.device());
  detail::copy_values(out, t);
  if (autograd::any_requires_grad({&t})) {
    auto node = std::make_shared<LambdaNode>(
        "clone", [](LambdaNode&, const Tensor& g) { return std::vector<Tensor>{g}; });
    autograd::record(out, node, {&t});
  }
  return out;
}

Tensor contiguous(const Tensor& t) { return t.is_contiguous() ? t : clone(t); }

Tensor& copy_(Tensor& dst, const Tensor& src) {
  detail::check_inplace(dst, "copy_");
  Tensor s = src.device() == dst.device() ? src : detail::transfer(src, dst.device());
  if (s.shape() != dst.shape()) s = detail::broadcast_to(s, dst.shape(), "copy_");
  {
    NoGradGuard no_grad;
    detail::copy_values(dst, s);
  }
  mark_modified(dst);
  // dst now holds src's values: its gradient flows to src only (summed over broadcasting).
  if (autograd::any_requires_grad({&src})) {
    autograd::record(dst, std::make_shared<ToNode>("copy_", src.device(), src.dtype()), {&src});
  } else if (dst.grad_fn()) {
    detail::TensorImplAccess::set_grad_fn(dst, nullptr);
  }
  return dst;
}

Tensor& fill_(Tensor& t, double value) {
  detail::check_inplace(t, "fill_");
  if (t.is_contiguous()) {
    backend_for(t.device()).fill(t, value);
  } else {
    Tensor v = detail::make_empty({}, t.dtype(), t.device());
    backend_for(t.device()).fill(v, value);
    detail::copy_values(t, detail::broadcast_to(v, t.shape(), "fill_"));
  }
  mark_modified(t);
  return t;
}

Tensor& zero_(Tensor& t) { return fill_(t, 0); }

void mark_modified(const Tensor& t) { detail::TensorImplAccess::storage(t)->bump_version(); }

void set_data(const Tensor& dst, const Tensor& src) {
  if (dst.shape() != src.shape())
    raise<ShapeError>("set_data: shape ", shape_str(src.shape()), " does not match the tensor's ",
                      shape_str(dst.shape()));
  detail::TensorImplAccess::share_data(dst, src);
}

}  // namespace ember
