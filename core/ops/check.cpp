#include "ember/extend/check.h"

#include <cmath>
#include <limits>

#include "ember/core/error.h"
#include "ember/core/module_tag.h"
#include "ember/core/tensor_impl_access.h"

namespace ember {

namespace {
constexpr const char* kMoveHint = "move the model with model.to(device) or the input with input.to(device)";

// A common pitfall: a sub-model created outside, used inside forward, never registered, so
// model.to(device) left it behind. When a registered tensor's module was never moved while
// some module was, name the module instead of giving the generic hint. However forward was
// reached (call operator, forward(...) directly, several inputs), the tags say the same.
std::string owner_hint(const Tensor& t) {
  if (t.name().empty()) return "";
  const auto owner = detail::TensorImplAccess::owner(t);
  if (!owner || owner->moved() || !ModuleTag::any_alive_moved()) return "";
  // The model itself forgotten while a sub-model of it was moved: registering is no fix.
  if (owner->root_partly_moved())
    return detail::concat(
        t.name(), " belongs to ", owner->root_type_name(),
        ", of which to(device) moved only a part: move the whole model with model.to(device)");
  return detail::concat(
      t.name(), " belongs to ", owner->root_type_name(),
      ", a module that to(device) never moved while another module was moved: register it "
      "under your model with register_module(...) so that model.to(device) moves it, or move "
      "it with .to(device)");
}

[[noreturn]] void device_mismatch(const char* op, const std::string& a, const Tensor& ta,
                                  const std::string& b, const Tensor& tb) {
  std::string msg = detail::concat("tensors on different devices: ", op, " got ", a, " on ",
                                   ta.device().str(), " and ", b, " on ", tb.device().str());
  std::string hint = owner_hint(ta);
  if (hint.empty()) hint = owner_hint(tb);
  if (hint.empty() && (!ta.name().empty() || !tb.name().empty())) hint = kMoveHint;
  if (!hint.empty()) msg += "; " + hint;
  throw DeviceMismatchError(msg);
}
}  // namespace

std::string describe_arg(const char* name, const Tensor& t) {
  // A standalone module's parameter is named as the argument is ("weight"): say it once.
  if (t.defined() && !t.name().empty() && t.name() != name) return detail::concat(name, " (", t.name(), ")");
  return name;
}

void check_same_device(const char* op, std::initializer_list<Arg> args) {
  const Arg* ref = nullptr;
  for (const Arg& a : args) {
    if (!a.tensor.defined()) continue;
    if (!ref) {
      ref = &a;
    } else if (a.tensor.device() != ref->tensor.device()) {
      device_mismatch(op, describe_arg(ref->name, ref->tensor), ref->tensor, describe_arg(a.name, a.tensor),
                      a.tensor);
    }
  }
}

void check_same_device(const char* op, const char* list_name, const std::vector<Tensor>& ts) {
  for (size_t i = 1; i < ts.size(); ++i)
    if (ts[i].device() != ts[0].device())
      device_mismatch(op, describe_arg(detail::concat(list_name, "[0]").c_str(), ts[0]), ts[0],
                      describe_arg(detail::concat(list_name, "[", i, "]").c_str(), ts[i]), ts[i]);
}

void check_same_dtype(const char* op, std::initializer_list<Arg> args) {
  const Arg* ref = nullptr;
  for (const Arg& a : args) {
    if (!a.tensor.defined()) continue;
    if (!ref) {
      ref = &a;
    } else if (a.tensor.dtype() != ref->tensor.dtype()) {
      raise<DTypeError>("dtype mismatch in ", op, ": ", ref->name, " is ", dtype_name(ref->tensor.dtype()),
                        " but ", a.name, " is ", dtype_name(a.tensor.dtype()));
    }
  }
}

void check_same_dtype(const char* op, const char* list_name, const std::vector<Tensor>& ts) {
  for (size_t i = 1; i < ts.size(); ++i)
    if (ts[i].dtype() != ts[0].dtype())
      raise<DTypeError>("dtype mismatch in ", op, ": ", list_name, "[0] is ", dtype_name(ts[0].dtype()),
                        " but ", list_name, "[", i, "] is ", dtype_name(ts[i].dtype()));
}

void check_dtype(const char* op, const Arg& a, DType expected) {
  if (a.tensor.dtype() != expected)
    raise<DTypeError>("dtype mismatch in ", op, ": ", a.name, " must be ", dtype_name(expected), ", got ",
                      dtype_name(a.tensor.dtype()));
}

void check_index_dtype(const char* op, const Arg& a) {
  if (a.tensor.dtype() != kInt64 && a.tensor.dtype() != kInt32)
    raise<DTypeError>("dtype mismatch in ", op, ": ", a.name, " must be int64 or int32, got ",
                      dtype_name(a.tensor.dtype()));
}

void check_floating(const char* op, const Arg& a) {
  if (!is_floating(a.tensor.dtype()))
    raise<DTypeError>("dtype mismatch in ", op, ": ", a.name, " must be float32 or float64, got ",
                      dtype_name(a.tensor.dtype()));
}

void check_defined(const char* op, std::initializer_list<Arg> args) {
  for (const Arg& a : args)
    if (!a.tensor.defined()) raise<ValueError>(op, ": ", a.name, " is an undefined tensor");
}

void check_defined(const char* op, const char* list_name, const std::vector<Tensor>& ts) {
  for (size_t i = 0; i < ts.size(); ++i)
    if (!ts[i].defined()) raise<ValueError>(op, ": ", list_name, "[", i, "] is an undefined tensor");
}

void check_ndim(const char* op, const Arg& a, int64_t ndim) {
  if (a.tensor.dim() != ndim)
    raise<ShapeError>(op, ": ", a.name, " must be ", ndim, "-D, got shape ", shape_str(a.tensor.shape()));
}

void check_value_fits(const char* op, const char* name, const Scalar& value, DType dtype) {
  if (dtype == DType::Bool || dtype == DType::Float64) return;
  bool fits = true;
  if (dtype == DType::Float32) {
    const double v = value.to_double();
    fits = !std::isfinite(v) || std::fabs(v) <= double(std::numeric_limits<float>::max());
  } else {
    // The integer dtype's range, exact in double for uint8 and int32; int64's ends are 2^63.
    const double lo = dtype == DType::UInt8 ? 0.0 : dtype == DType::Int32 ? -2147483648.0 : -0x1p63;
    const double hi = dtype == DType::UInt8 ? 255.0 : dtype == DType::Int32 ? 2147483647.0 : 0x1p63;
    if (value.is_floating_point()) {
      const double t = std::trunc(value.to_double());
      fits = std::isfinite(t) && t >= lo && (dtype == DType::Int64 ? t < hi : t <= hi);
    } else if (dtype != DType::Int64) {
      const int64_t v = value.to_int64();
      fits = double(v) >= lo && double(v) <= hi;
    }
  }
  if (!fits)
    raise<ValueError>(op, ": ", name, " ", value, " cannot be converted to ", dtype_name(dtype),
                      " without overflow");
}

}  // namespace ember
