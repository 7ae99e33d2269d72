#include "ember/core/ops/transfer.h"

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/autograd/view_history.h"
#include "ember/core/error.h"
#include "ember/core/ops/views.h"
#include "ember/core/tensor_impl_access.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

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

}  // namespace detail

Tensor to(const Tensor& t, Device device) {
  check_defined("to", {{"input", t}});
  if (t.device() == device) return t;
  Tensor out = detail::transfer(t, device);
  if (autograd::any_requires_grad({&t}))
    autograd::record(out, autograd::make_node<ToNode>("to", t.device(), t.dtype()), {&t});
  return out;
}

Tensor to(const Tensor& t, DType dtype) {
  check_defined("to", {{"input", t}});
  if (t.dtype() == dtype) return t;
  Tensor out = detail::make_empty(t.shape(), dtype, t.device());
  detail::copy_values(out, t);
  if (is_floating(dtype) && autograd::any_requires_grad({&t}))
    autograd::record(out, autograd::make_node<ToNode>("to", t.device(), t.dtype()), {&t});
  return out;
}

Tensor clone(const Tensor& t) {
  check_defined("clone", {{"input", t}});
  Tensor out = detail::make_empty(t.shape(), t.dtype(), t.device());
  detail::copy_values(out, t);
  if (autograd::any_requires_grad({&t})) {
    auto node = autograd::make_node<LambdaNode>(
        "clone", [](LambdaNode&, const Tensor& g) { return std::vector<Tensor>{g}; });
    autograd::record(out, node, {&t});
  }
  return out;
}

Tensor contiguous(const Tensor& t) {
  check_defined("contiguous", {{"input", t}});
  return t.is_contiguous() ? t : clone(t);
}

namespace {
// Whether a and b may share memory (one storage); then a copy between them goes through a
// temporary, as an element could be overwritten before it is read.
bool shares_storage(const Tensor& a, const Tensor& b) {
  return detail::TensorImplAccess::storage(a) == detail::TensorImplAccess::storage(b);
}
}  // namespace

Tensor& copy_(Tensor& dst, const Tensor& src) {
  check_defined("copy_", {{"self", dst}, {"src", src}});
  autograd::check_inplace(dst, "copy_");
  Tensor s = src.device() == dst.device() ? src : detail::transfer(src, dst.device());
  if (s.shape() != dst.shape()) s = detail::broadcast_to(s, dst.shape(), "copy_");
  {
    NoGradGuard no_grad;
    if (shares_storage(s, dst)) s = clone(s);
    detail::copy_values(dst, s);
  }
  mark_modified(dst);
  // dst now holds src's values: its gradient flows to src only (summed over broadcasting).
  std::shared_ptr<Node> fn;
  if (autograd::any_requires_grad({&src})) {
    fn = autograd::make_node<ToNode>("copy_", src.device(), src.dtype());
    fn->add_edge(autograd::edge_of(src));
  }
  autograd::rebase_history(dst, "copy_", std::move(fn));
  return dst;
}

Tensor& fill_(Tensor& t, Scalar value) {
  check_defined("fill_", {{"self", t}});
  check_value_fits("fill_", "value", value, t.dtype());
  autograd::check_inplace(t, "fill_");
  if (t.is_contiguous()) {
    backend_for(t.device()).fill(t, value);
  } else {
    Tensor v = detail::make_empty({}, t.dtype(), t.device());
    backend_for(t.device()).fill(v, value);
    detail::copy_values(t, detail::broadcast_to(v, t.shape(), "fill_"));
  }
  mark_modified(t);
  autograd::rebase_history(t, "fill_", nullptr);
  return t;
}

Tensor& zero_(Tensor& t) { return fill_(t, 0); }

void mark_modified(const Tensor& t) {
  check_defined("mark_modified", {{"input", t}});
  detail::TensorImplAccess::storage(t)->bump_version();
}

void set_data(const Tensor& dst, const Tensor& src) {
  check_defined("set_data", {{"self", dst}, {"src", src}});
  if (dst.requires_grad() && !is_floating(src.dtype()))
    raise<AutogradError>("set_data: the tensor requires grad, so its data must be floating, got ",
                         dtype_name(src.dtype()));
  if (dst.shape() != src.shape())
    raise<ShapeError>("set_data: shape ", shape_str(src.shape()), " does not match the tensor's ",
                      shape_str(dst.shape()));
  detail::TensorImplAccess::share_data(dst, src);
}

}  // namespace ember
