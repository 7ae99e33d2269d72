#pragma once
// Ember's exception types (docs/DESIGN.md, Errors): catch by kind, read one line.
#include <sstream>
#include <stdexcept>
#include <string>

#include "ember/core/export.h"

namespace ember {

/// What kind of error an ember::Error is, to branch on without a dynamic_cast chain.
enum class ErrorKind {
  Error,           // the base class itself
  Value,           // ValueError
  DeviceMismatch,  // DeviceMismatchError
  Shape,           // ShapeError
  DType,           // DTypeError
  Device,          // DeviceError
  NotCompiled,     // NotCompiledError
  NotImplemented,  // NotImplementedError
  Index,           // IndexError
  IO,              // IOError
  Autograd,        // AutogradError
  Cuda,            // CudaError
  OutOfMemory,     // OutOfMemoryError
  Distributed,     // DistributedError
};

/// The class name of a kind: "ValueError", "DeviceMismatchError", ...
EMBER_API const char* error_kind_name(ErrorKind kind);

/// Base of every error Ember throws.
class EMBER_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, ErrorKind kind = ErrorKind::Error)
      : std::runtime_error(message), kind_(kind) {}
  /// Which subclass this is.
  ErrorKind kind() const noexcept { return kind_; }
  /// The subclass's name, e.g. "ShapeError".
  const char* kind_name() const noexcept { return error_kind_name(kind_); }

 private:
  ErrorKind kind_;
};

// Each subclass records its kind, so kind() answers without RTTI.
#define EMBER_DEFINE_ERROR(Name, Kind)                                             \
  class EMBER_API Name : public Error {                                            \
   public:                                                                         \
    explicit Name(const std::string& message) : Error(message, ErrorKind::Kind) {} \
  }

/// Bad argument values: device strings, stride 0, dropout p outside [0, 1], ...
EMBER_DEFINE_ERROR(ValueError, Value);
/// Tensors of one op live on different devices.
EMBER_DEFINE_ERROR(DeviceMismatchError, DeviceMismatch);
/// Shapes that do not fit the op.
EMBER_DEFINE_ERROR(ShapeError, Shape);
/// Wrong or mixed dtypes.
EMBER_DEFINE_ERROR(DTypeError, DType);
/// A device that is unavailable or out of range.
EMBER_DEFINE_ERROR(DeviceError, Device);
/// A feature this build does not contain (CUDA in a CPU-only build).
EMBER_DEFINE_ERROR(NotCompiledError, NotCompiled);
/// An op that has no implementation on the requested device.
EMBER_DEFINE_ERROR(NotImplementedError, NotImplemented);
/// An index or class target out of range, or an unknown name.
EMBER_DEFINE_ERROR(IndexError, Index);
/// File and stream problems: missing, truncated, malformed.
EMBER_DEFINE_ERROR(IOError, IO);
/// Misuse of autograd: freed graph, non-scalar implicit grad, modified saved tensor.
EMBER_DEFINE_ERROR(AutogradError, Autograd);
/// A CUDA, cuBLAS or cuDNN call failed.
EMBER_DEFINE_ERROR(CudaError, Cuda);
/// A device allocation failed even after the cache was freed.
EMBER_DEFINE_ERROR(OutOfMemoryError, OutOfMemory);
/// A rank failed or a collective timed out; the message names the rank and the collective.
EMBER_DEFINE_ERROR(DistributedError, Distributed);

#undef EMBER_DEFINE_ERROR

namespace detail {
template <class... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

/// Throws E with the streamed concatenation of args as its message.
template <class E, class... Args>
[[noreturn]] void raise(const Args&... args) {
  throw E(detail::concat(args...));
}

}  // namespace ember
