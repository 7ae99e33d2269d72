#include "ember/nn/parallel/collective_args.h"

#include <string>

#include "ember/core/error.h"

namespace ember::nn::parallel::detail {

void check_defined(const char* collective, const char* name, const Tensor& t) {
  if (!t.defined()) raise<ValueError>(collective, ": ", name, " is an undefined tensor");
}

void check_floating(const char* collective, const char* name, const Tensor& t) {
  if (!is_floating(t.dtype()))
    raise<DTypeError>("dtype mismatch in ", collective, ": ", name, " must be float32 or float64, got ",
                      dtype_name(t.dtype()));
}

void check_one_device_and_dtype(const char* collective, const std::vector<Tensor>& tensors) {
  for (size_t i = 0; i < tensors.size(); ++i)
    check_defined(collective, ("tensors[" + std::to_string(i) + "]").c_str(), tensors[i]);
  for (size_t i = 1; i < tensors.size(); ++i)
    if (tensors[i].device() != tensors[0].device())
      raise<DeviceMismatchError>("tensors on different devices: ", collective, " got tensors[0] on ",
                                 tensors[0].device().str(), " and tensors[", i, "] on ",
                                 tensors[i].device().str());
  for (size_t i = 1; i < tensors.size(); ++i)
    if (tensors[i].dtype() != tensors[0].dtype())
      raise<DTypeError>("dtype mismatch in ", collective, ": tensors[0] is ", dtype_name(tensors[0].dtype()),
                        " but tensors[", i, "] is ", dtype_name(tensors[i].dtype()));
}

}  // namespace ember::nn::parallel::detail
