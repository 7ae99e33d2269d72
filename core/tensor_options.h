#pragma once
// Options for factories: dtype, device, requires_grad. Implicit from a DType or a Device,
// so zeros({2, 3}, kFloat64) and zeros({2, 3}, Device::cuda()) both read naturally.
#include "ember/core/device.h"
#include "ember/core/dtype.h"

namespace ember {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(DType d) { dtype(d); }          // NOLINT: implicit on purpose
  TensorOptions(Device d) : device_(d) {}       // NOLINT
  TensorOptions(const char* d) : device_(d) {}  // NOLINT

  DType dtype() const { return dtype_; }
  /// Whether a dtype was given: tensor({...}) infers its dtype from the values otherwise.
  bool has_dtype() const { return has_dtype_; }
  Device device() const { return device_; }
  bool requires_grad() const { return requires_grad_; }

  TensorOptions& dtype(DType d) {
    dtype_ = d;
    has_dtype_ = true;
    return *this;
  }
  TensorOptions& device(Device d) {
    device_ = d;
    return *this;
  }
  TensorOptions& requires_grad(bool r) {
    requires_grad_ = r;
    return *this;
  }

 private:
  DType dtype_ = DType::Float32;
  bool has_dtype_ = false;
  Device device_ = Device::cpu();
  bool requires_grad_ = false;
};

}  // namespace ember
