#pragma once
// The data of an optional tensor argument (weight, bias, running statistics, gradients that
// were not asked for): nullptr when the tensor is undefined.
#include "ember/core/tensor.h"

namespace ember::cpu_detail {

template <class T>
const T* ptr(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.raw_data()) : nullptr;
}
template <class T>
T* mut(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.raw_data()) : nullptr;
}

}  // namespace ember::cpu_detail
