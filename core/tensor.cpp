#include "ember/core/tensor.h"

#include <iomanip>
#include <new>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "ember/core/autograd/view_history.h"
#include "ember/core/checked_math.h"
#include "ember/core/dtype_dispatch.h"
#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/linalg.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/softmax.h"
#include "ember/core/ops/transfer.h"
#include "ember/core/ops/views.h"
#include "ember/core/tensor_impl_access.h"
#include "ember/core/value_cast.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"

namespace ember {

namespace detail {
Tensor make_empty(Shape shape, DType dtype, Device device, const char* op) {
  const auto nbytes = static_cast<size_t>(checked_nbytes(shape, itemsize(dtype), op));
  Shape strides = contiguous_strides(shape);
  return TensorImplAccess::make(std::make_shared<Storage>(nbytes, device), std::move(shape),
                                std::move(strides), 0, dtype);
}

Tensor make_view(const Tensor& t, Shape shape, Shape strides, int64_t offset) {
  return TensorImplAccess::make(TensorImplAccess::storage(t), std::move(shape), std::move(strides), offset,
                                t.dtype());
}
void raise_undefined(const char* what) { raise<ValueError>(what, ": the tensor is undefined"); }
}  // namespace detail

// Every accessor of an undefined tensor raises ValueError rather than dereferencing null.
// Out of line because TensorImpl is opaque to users (extend/tensor_impl.h): a call per
// accessor costs nothing measurable, since kernels read a tensor's geometry and pointer once
// per op, never per element.
TensorImpl& Tensor::checked_impl(const char* what) const {
  if (!impl_) detail::raise_undefined(what);
  return *impl_;
}
const Shape& Tensor::shape() const { return checked_impl("shape").shape_; }
const Shape& Tensor::strides() const { return checked_impl("strides").strides_; }
int64_t Tensor::offset() const { return checked_impl("offset").offset_; }
int64_t Tensor::dim() const { return static_cast<int64_t>(checked_impl("dim").shape_.size()); }
int64_t Tensor::numel() const { return numel_of(checked_impl("numel").shape_); }
DType Tensor::dtype() const { return checked_impl("dtype").dtype_; }
Device Tensor::device() const { return checked_impl("device").storage_->device(); }
const std::string& Tensor::name() const { return checked_impl("name").name_; }
uint64_t Tensor::version() const { return checked_impl("version").storage_->version(); }
void* Tensor::raw_data() const {
  return static_cast<char*>(checked_impl("data_ptr").storage_->data()) +
         impl_->offset_ * static_cast<int64_t>(itemsize(dtype()));
}

void Tensor::set_name(std::string name) const { checked_impl("set_name").name_ = std::move(name); }
void Tensor::set_owner(std::weak_ptr<const ModuleTag> owner) const {
  checked_impl("set_owner").owner_ = std::move(owner);
}

namespace {
void require_defined(const Tensor& t, const char* what) {
  if (!t.defined()) detail::raise_undefined(what);
}
}  // namespace

int64_t Tensor::size(int64_t d) const {
  const TensorImpl& s = checked_impl("size");
  return s.shape_[normalize_dim(d, dim(), "size")];
}
int64_t Tensor::stride(int64_t d) const {
  const TensorImpl& s = checked_impl("stride");
  return s.strides_[normalize_dim(d, dim(), "stride")];
}

bool Tensor::is_contiguous() const {
  if (numel() == 0) return true;  // no element to be out of place
  int64_t expected = 1;
  for (size_t i = impl_->shape_.size(); i-- > 0;) {
    const int64_t s = impl_->shape_[i];
    if (s == 1) continue;
    if (impl_->strides_[i] != expected) return false;
    expected *= s;
  }
  return true;
}

namespace {
// n values of T, or OutOfMemoryError naming the bytes: a huge tensor (an expanded view, a
// bool tensor read as double) must not escape as std::bad_alloc.
template <class T>
std::vector<T> value_vector(int64_t n, const char* op) {
  try {
    return std::vector<T>(static_cast<size_t>(n));
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {  // more than the vector's max_size()
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(n), sizeof(T), &bytes))
    raise<OutOfMemoryError>(op, ": cannot allocate ", n, " values of ", sizeof(T), " bytes");
  raise<OutOfMemoryError>(op, ": cannot allocate ", bytes, " bytes for ", n, " values");
}

// The values of t as T; `op` names the caller (item or to_vector) in errors.
template <class T>
std::vector<T> values_of(const Tensor& t, const char* op) {
  require_defined(t, op);
  // Before the host copy, so that a vector that cannot exist fails before the copy is made.
  std::vector<T> out = value_vector<T>(t.numel(), op);
  Tensor host = detail::transfer(t, Device::cpu());  // contiguous, on the host
  EMBER_DISPATCH_ALL(t.dtype(), op, [&] {
    const scalar_t* p = host.data_ptr<scalar_t>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = detail::value_cast<T>(p[i], op);
  });
  return out;
}
}  // namespace

template <class T>
T Tensor::item() const {
  require_defined(*this, "item");
  if (numel() != 1)
    raise<ValueError>("item: only one-element tensors can be converted, got shape ", shape_str(shape()));
  return values_of<T>(*this, "item")[0];
}

template <class T>
std::vector<T> Tensor::to_vector() const {
  return values_of<T>(*this, "to_vector");
}

#define EMBER_INSTANTIATE_VALUES(T)             \
  template EMBER_API T Tensor::item<T>() const; \
  template EMBER_API std::vector<T> Tensor::to_vector<T>() const;
EMBER_INSTANTIATE_VALUES(float)
EMBER_INSTANTIATE_VALUES(double)
EMBER_INSTANTIATE_VALUES(int64_t)
EMBER_INSTANTIATE_VALUES(int)
EMBER_INSTANTIATE_VALUES(uint8_t)
EMBER_INSTANTIATE_VALUES(bool)
#undef EMBER_INSTANTIATE_VALUES

double Tensor::item() const { return item<double>(); }

Tensor Tensor::to(Device d) const {
  require_defined(*this, "to");
  return ember::to(*this, d);
}
Tensor Tensor::to(DType d) const {
  require_defined(*this, "to");
  return ember::to(*this, d);
}
Tensor Tensor::clone() const {
  require_defined(*this, "clone");
  return ember::clone(*this);
}
Tensor& Tensor::copy_(const Tensor& src) { return ember::copy_(*this, src); }
Tensor& Tensor::fill_(Scalar v) { return ember::fill_(*this, v); }
Tensor& Tensor::zero_() { return ember::zero_(*this); }

bool Tensor::requires_grad() const {
  if (!impl_) return false;
  if (impl_->view_base_) autograd::refresh_view_history(*this);
  return impl_->requires_grad_;
}

Tensor& Tensor::requires_grad_(bool r) {
  require_defined(*this, "requires_grad_");
  if (!is_leaf())
    raise<AutogradError>("requires_grad_: only leaf tensors can change requires_grad; use detach()");
  if (r && !is_floating(dtype()))
    raise<AutogradError>("requires_grad_: only floating tensors can require grad, got ", dtype_name(dtype()));
  impl_->requires_grad_ = r;
  return *this;
}

Tensor Tensor::grad() const { return impl_ ? impl_->grad_ : Tensor(); }
void Tensor::set_grad(const Tensor& g) const {
  require_defined(*this, "set_grad");
  if (g.defined() && (g.shape() != shape() || g.device() != device() || g.dtype() != dtype()))
    raise<ValueError>("set_grad: the gradient must match the tensor's shape, dtype and device");
  impl_->grad_ = g;
}
const std::shared_ptr<Node>& Tensor::grad_fn() const {
  static const std::shared_ptr<Node> none;
  if (!impl_) return none;
  if (impl_->view_base_) autograd::refresh_view_history(*this);
  return impl_->grad_fn_;
}
bool Tensor::is_leaf() const { return !grad_fn(); }

void Tensor::backward(const Tensor& gradient, bool retain_graph) const {
  autograd::backward(*this, gradient, retain_graph);
}

Tensor Tensor::detach() const {
  require_defined(*this, "detach");
  return detail::make_view(*this, shape(), strides(), offset());
}

Tensor Tensor::view(const Shape& s) const { return ember::view(*this, s); }
Tensor Tensor::reshape(const Shape& s) const { return ember::reshape(*this, s); }
Tensor Tensor::flatten(int64_t a, int64_t b) const { return ember::flatten(*this, a, b); }
Tensor Tensor::permute(const std::vector<int64_t>& d) const { return ember::permute(*this, d); }
Tensor Tensor::transpose(int64_t a, int64_t b) const { return ember::transpose(*this, a, b); }
Tensor Tensor::t() const { return ember::t(*this); }
Tensor Tensor::narrow(int64_t d, int64_t s, int64_t l) const { return ember::narrow(*this, d, s, l); }
Tensor Tensor::select(int64_t d, int64_t i) const { return ember::select(*this, d, i); }
Tensor Tensor::squeeze() const { return ember::squeeze(*this); }
Tensor Tensor::squeeze(int64_t d) const { return ember::squeeze(*this, d); }
Tensor Tensor::unsqueeze(int64_t d) const { return ember::unsqueeze(*this, d); }
Tensor Tensor::expand(const Shape& s) const { return ember::expand(*this, s); }
Tensor Tensor::contiguous() const { return ember::contiguous(*this); }

Tensor Tensor::add(const Tensor& o) const { return ember::add(*this, o); }
Tensor Tensor::sub(const Tensor& o) const { return ember::sub(*this, o); }
Tensor Tensor::mul(const Tensor& o) const { return ember::mul(*this, o); }
Tensor Tensor::div(const Tensor& o) const { return ember::div(*this, o); }
Tensor Tensor::add(Scalar s) const { return ember::add(*this, s); }
Tensor Tensor::sub(Scalar s) const { return ember::sub(*this, s); }
Tensor Tensor::mul(Scalar s) const { return ember::mul(*this, s); }
Tensor Tensor::div(Scalar s) const { return ember::div(*this, s); }
Tensor Tensor::pow(Scalar e) const { return ember::pow(*this, e); }
Tensor Tensor::neg() const { return ember::neg(*this); }
Tensor Tensor::exp() const { return ember::exp(*this); }
Tensor Tensor::log() const { return ember::log(*this); }
Tensor Tensor::sqrt() const { return ember::sqrt(*this); }
Tensor Tensor::abs() const { return ember::abs(*this); }
Tensor Tensor::relu() const { return ember::relu(*this); }
Tensor Tensor::sigmoid() const { return ember::sigmoid(*this); }
Tensor Tensor::tanh() const { return ember::tanh(*this); }
Tensor Tensor::clamp(Scalar lo, Scalar hi) const { return ember::clamp(*this, lo, hi); }
Tensor& Tensor::add_(const Tensor& o, Scalar alpha) { return ember::add_(*this, o, alpha); }
Tensor& Tensor::add_(Scalar v) { return ember::add_(*this, v); }
Tensor& Tensor::sub_(const Tensor& o) { return ember::sub_(*this, o); }
Tensor& Tensor::sub_(Scalar v) { return ember::sub_(*this, v); }
Tensor Tensor::masked_fill(const Tensor& m, Scalar v) const { return ember::masked_fill(*this, m, v); }
Tensor& Tensor::masked_fill_(const Tensor& m, Scalar v) { return ember::masked_fill_(*this, m, v); }
Tensor& Tensor::mul_(const Tensor& o) { return ember::mul_(*this, o); }
Tensor& Tensor::mul_(Scalar v) { return ember::mul_(*this, v); }
Tensor& Tensor::div_(const Tensor& o) { return ember::div_(*this, o); }
Tensor& Tensor::div_(Scalar v) { return ember::div_(*this, v); }
Tensor Tensor::sum() const { return ember::sum(*this); }
Tensor Tensor::sum(const std::vector<int64_t>& d, bool k) const { return ember::sum(*this, d, k); }
Tensor Tensor::mean() const { return ember::mean(*this); }
Tensor Tensor::mean(const std::vector<int64_t>& d, bool k) const { return ember::mean(*this, d, k); }
Tensor Tensor::var() const { return ember::var(*this); }
Tensor Tensor::var(const std::vector<int64_t>& d, double c, bool k) const {
  return ember::var(*this, d, c, k);
}
Tensor Tensor::std() const { return ember::std(*this); }
Tensor Tensor::std(const std::vector<int64_t>& d, double c, bool k) const {
  return ember::std(*this, d, c, k);
}
Tensor Tensor::max() const { return ember::max(*this); }
ValuesIndices Tensor::max(int64_t dim, bool keepdim) const { return ember::max(*this, dim, keepdim); }
ValuesIndices Tensor::min(int64_t dim, bool keepdim) const { return ember::min(*this, dim, keepdim); }
Tensor Tensor::min() const { return ember::min(*this); }
Tensor Tensor::argmax(int64_t d, bool k) const { return ember::argmax(*this, d, k); }
Tensor Tensor::matmul(const Tensor& o) const { return ember::matmul(*this, o); }
Tensor Tensor::softmax(int64_t d) const { return ember::softmax(*this, d); }
Tensor Tensor::log_softmax(int64_t d) const { return ember::log_softmax(*this, d); }

// ---- printing ----
namespace {
template <class T>
void print_value(std::ostream& os, T v) {
  if constexpr (std::is_same<T, bool>::value) {
    os << (v ? "true" : "false");
  } else if constexpr (std::is_floating_point<T>::value) {
    std::ostringstream s;
    s << std::setprecision(6) << v;
    std::string str = s.str();
    if (str.find_first_of(".enai") == std::string::npos) str += ".";
    os << str;
  } else {
    os << static_cast<int64_t>(v);
  }
}

// Prints nested brackets, eliding the middle of dims longer than 6.
template <class T>
void print_dim(std::ostream& os, const std::vector<T>& v, const Shape& shape, size_t dim, int64_t base,
               int indent) {
  const int64_t n = shape[dim];
  int64_t inner = 1;
  for (size_t d = dim + 1; d < shape.size(); ++d) inner *= shape[d];
  os << '[';
  for (int64_t i = 0; i < n; ++i) {
    if (n > 6 && i == 3) {
      os << "...";
      i = n - 3;
      os << (dim + 1 == shape.size() ? ", " : ",\n" + std::string(static_cast<size_t>(indent + 1), ' '));
    }
    if (dim + 1 == shape.size())
      print_value(os, v[static_cast<size_t>(base + i)]);
    else
      print_dim(os, v, shape, dim + 1, base + i * inner, indent + 1);
    if (i + 1 < n)
      os << (dim + 1 == shape.size() ? ", " : ",\n" + std::string(static_cast<size_t>(indent + 1), ' '));
  }
  os << ']';
}
}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "tensor(undefined)";
  os << "tensor(";
  EMBER_DISPATCH_ALL(t.dtype(), "print", [&] {
    const std::vector<scalar_t> v = t.to_vector<scalar_t>();
    if (t.dim() == 0)
      print_value(os, v[0]);
    else
      print_dim(os, v, t.shape(), 0, 0, 7);
  });
  os << ", shape=" << shape_str(t.shape()) << ", dtype=" << dtype_name(t.dtype())
     << ", device=" << t.device().str();
  if (t.requires_grad()) os << ", requires_grad=true";
  return os << ')';
}

}  // namespace ember
