#pragma once
// RAII cuDNN descriptors and the small conversions every cuDNN call needs.
// This backend uses cuDNN 9's legacy (descriptor) API: deprecated but present, and simpler
// than the graph API for these fixed ops. Its declarations only warn when
// CUDNN_WARN_DEPRECATED is defined, which Ember does not define.
#include <cudnn.h>

#include <climits>
#include <cstdint>

#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/kernels/cuda/cuda_context.h"

namespace ember::cuda_detail {

inline cudnnDataType_t cudnn_dtype(DType t, const char* op) {
  if (t == kFloat32) return CUDNN_DATA_FLOAT;
  if (t == kFloat64) return CUDNN_DATA_DOUBLE;
  raise<DTypeError>(op, " does not support dtype ", dtype_name(t), " on cuda");
}

/// cuDNN takes int sizes: larger ones are refused with a ValueError naming op.
inline int to_int(int64_t v, const char* op) {
  if (v < 0 || v > INT_MAX) raise<ValueError>(op, ": size ", v, " is too large for cuDNN");
  return static_cast<int>(v);
}

/// alpha/beta scaling factors: float for float data, double for double data.
struct Scaling {
  float f;
  double d;
  explicit Scaling(double v) : f(static_cast<float>(v)), d(v) {}
  const void* get(DType t) const { return t == kFloat64 ? static_cast<const void*>(&d) : &f; }
};

struct TensorDesc {
  cudnnTensorDescriptor_t d = nullptr;
  TensorDesc() { EMBER_CUDNN_CHECK(cudnnCreateTensorDescriptor(&d)); }
  /// A packed NCHW tensor.
  TensorDesc(DType t, int64_t n, int64_t c, int64_t h, int64_t w, const char* op) : TensorDesc() {
    EMBER_CUDNN_CHECK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, cudnn_dtype(t, op), to_int(n, op),
                                                 to_int(c, op), to_int(h, op), to_int(w, op)));
  }
  ~TensorDesc() { cudnnDestroyTensorDescriptor(d); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
};

struct FilterDesc {
  cudnnFilterDescriptor_t d = nullptr;
  FilterDesc() { EMBER_CUDNN_CHECK(cudnnCreateFilterDescriptor(&d)); }
  FilterDesc(DType t, int64_t k, int64_t c, int64_t h, int64_t w, const char* op) : FilterDesc() {
    EMBER_CUDNN_CHECK(cudnnSetFilter4dDescriptor(d, cudnn_dtype(t, op), CUDNN_TENSOR_NCHW, to_int(k, op),
                                                 to_int(c, op), to_int(h, op), to_int(w, op)));
  }
  ~FilterDesc() { cudnnDestroyFilterDescriptor(d); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
};

struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  ConvDesc() { EMBER_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d)); }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
};

struct PoolDesc {
  cudnnPoolingDescriptor_t d = nullptr;
  PoolDesc() { EMBER_CUDNN_CHECK(cudnnCreatePoolingDescriptor(&d)); }
  ~PoolDesc() { cudnnDestroyPoolingDescriptor(d); }
  PoolDesc(const PoolDesc&) = delete;
  PoolDesc& operator=(const PoolDesc&) = delete;
};

}  // namespace ember::cuda_detail
