// The names of the error kinds.
#include "ember/core/error.h"

namespace ember {

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Error:
      return "Error";
    case ErrorKind::Value:
      return "ValueError";
    case ErrorKind::DeviceMismatch:
      return "DeviceMismatchError";
    case ErrorKind::Shape:
      return "ShapeError";
    case ErrorKind::DType:
      return "DTypeError";
    case ErrorKind::Device:
      return "DeviceError";
    case ErrorKind::NotCompiled:
      return "NotCompiledError";
    case ErrorKind::NotImplemented:
      return "NotImplementedError";
    case ErrorKind::Index:
      return "IndexError";
    case ErrorKind::IO:
      return "IOError";
    case ErrorKind::Autograd:
      return "AutogradError";
    case ErrorKind::Cuda:
      return "CudaError";
    case ErrorKind::OutOfMemory:
      return "OutOfMemoryError";
    case ErrorKind::Distributed:
      return "DistributedError";
  }
  return "Error";
}

}  // namespace ember
