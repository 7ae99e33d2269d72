#pragma once
// Ember's exception types (DESIGN.md, Pinned decisions): catch by kind, read one line.
#include <sstream>
#include <stdexcept>
#include <string>

#include "ember/core/export.h"

namespace ember {

/// Base of every error Ember throws.
class EMBER_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// Bad argument values: device strings, stride 0, dropout p outside [0, 1], ...
class EMBER_API ValueError : public Error { using Error::Error; };
/// Tensors of one op live on different devices.
class EMBER_API DeviceMismatchError : public Error { using Error::Error; };
/// Shapes that do not fit the op.
class EMBER_API ShapeError : public Error { using Error::Error; };
/// Wrong or mixed dtypes.
class EMBER_API DTypeError : public Error { using Error::Error; };
/// A device that is unavailable or out of range.
class EMBER_API DeviceError : public Error { using Error::Error; };
/// A feature this build does not contain (CUDA in a CPU-only build).
class EMBER_API NotCompiledError : public Error { using Error::Error; };
/// An op that has no implementation on the requested device.
class EMBER_API NotImplementedError : public Error { using Error::Error; };
/// An index or class target out of range.
class EMBER_API IndexError : public Error { using Error::Error; };
/// File and stream problems: missing, truncated, malformed.
class EMBER_API IOError : public Error { using Error::Error; };
/// Misuse of autograd: freed graph, non-scalar implicit grad, modified saved tensor.
class EMBER_API AutogradError : public Error { using Error::Error; };
/// A CUDA, cuBLAS or cuDNN call failed.
class EMBER_API CudaError : public Error { using Error::Error; };
/// A device allocation failed even after the cache was freed.
class EMBER_API OutOfMemoryError : public Error { using Error::Error; };

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
