// The cuDNN handle and descriptor models (EMBER_CUDA=EMULATE only), after NVIDIA's cuDNN API
// Reference 9.x: cudnn_graph library (cudnnCreate, cudnnSetStream, cudnnGetVersion,
// cudnnGetErrorString, cudnnCreate/Set/DestroyTensorDescriptor: "cudnnSetTensor4dDescriptor()")
// and cudnn_cnn / cudnn_ops libraries (filter, convolution and pooling descriptors). The
// checks common to compute calls (cudnn_model.h) live here too.
#include <climits>
#include <cstring>

#include "cuda_emulator/cudnn_model.h"

namespace ember::emulation::dnn {

cudnnStatus_t check_handle(cudnnHandle_t handle) {
  if (!handle) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  Lock lock(state().mutex);
  if (handle->device != current_device()) return CUDNN_STATUS_BAD_PARAM;
  if (usable(handle->device) != cudaSuccess) return CUDNN_STATUS_EXECUTION_FAILED_CUDART;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_pointer(cudnnHandle_t handle, const void* p, size_t bytes, size_t alignment,
                            const std::string& what) {
  if (bytes == 0) return CUDNN_STATUS_SUCCESS;
  if (!p) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (reinterpret_cast<uintptr_t>(p) % alignment) return CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER;
  Lock lock(state().mutex);
  if (!argument_accessible(handle->device, p, bytes, what)) return CUDNN_STATUS_EXECUTION_FAILED_CUDART;
  return CUDNN_STATUS_SUCCESS;
}

bool read_scale(const void* p, cudnnDataType_t type, double* value) {
  if (!p) return false;
  *value = type == CUDNN_DATA_DOUBLE ? *static_cast<const double*>(p) : *static_cast<const float*>(p);
  return true;
}

namespace {

bool valid_type(cudnnDataType_t t) { return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE; }

// "cudnnSetTensor4dDescriptor()": BAD_PARAM when a dimension is negative or an enumerant is
// invalid; NOT_SUPPORTED when the tensor exceeds 2 Giga-elements. Zero dimensions are
// refused too (BAD_PARAM; the reference is silent, cuDNN refuses them in practice).
// Formats other than NCHW are not modelled: NOT_SUPPORTED.
cudnnStatus_t check_4d(cudnnTensorFormat_t format, cudnnDataType_t type, int n, int c, int h, int w) {
  if (format != CUDNN_TENSOR_NCHW) return CUDNN_STATUS_NOT_SUPPORTED;
  if (!valid_type(type)) return CUDNN_STATUS_BAD_PARAM;
  if (n <= 0 || c <= 0 || h <= 0 || w <= 0) return CUDNN_STATUS_BAD_PARAM;
  if (uint64_t(n) * uint64_t(c) * uint64_t(h) * uint64_t(w) > uint64_t(INT_MAX))
    return CUDNN_STATUS_NOT_SUPPORTED;
  return CUDNN_STATUS_SUCCESS;
}

template <class T>
cudnnStatus_t create(T** out) {
  if (!out) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  *out = new T;
  return CUDNN_STATUS_SUCCESS;
}

template <class T>
cudnnStatus_t destroy(T* d) {
  delete d;  // destroying null is allowed ("cudnnDestroyTensorDescriptor()": no-op)
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace
}  // namespace ember::emulation::dnn

using namespace ember::emulation;
using namespace ember::emulation::dnn;

// "cudnnCreate()": the handle belongs to the device current now; NOT_INITIALIZED when the
// CUDA runtime has no usable device.
cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) {
  if (!handle) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  Lock lock(state().mutex);
  if (usable(current_device()) != cudaSuccess) return CUDNN_STATUS_NOT_INITIALIZED;
  *handle = new cudnnContext{current_device(), nullptr};
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  if (!handle) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  delete handle;
  return CUDNN_STATUS_SUCCESS;
}

// "cudnnSetStream()": later calls run on the stream. A stream of another device is refused
// with CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH (the reference requires the handle's device).
cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream) {
  if (!handle) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (stream && stream->device != handle->device) return CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH;
  handle->stream = stream;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* d) { return create(d); }
cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d) { return destroy(d); }

cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t d, cudnnTensorFormat_t format,
                                         cudnnDataType_t type, int n, int c, int h, int w) {
  if (!d) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (const cudnnStatus_t s = check_4d(format, type, n, c, h, w)) return s;
  *d = cudnnTensorStruct{true, type, n, c, h, w};
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* d) { return create(d); }
cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t d) { return destroy(d); }

// "cudnnSetFilter4dDescriptor()": the same checks as a tensor's (k, c, h, w > 0).
cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t d, cudnnDataType_t type,
                                         cudnnTensorFormat_t format, int k, int c, int h, int w) {
  if (!d) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (const cudnnStatus_t s = check_4d(format, type, k, c, h, w)) return s;
  *d = cudnnFilterStruct{true, type, k, c, h, w};
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* d) { return create(d); }
cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t d) { return destroy(d); }

// "cudnnSetConvolution2dDescriptor()": BAD_PARAM for a negative pad, a stride or dilation
// <= 0, or an invalid mode or compute type. The math type set earlier is kept.
cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t d, int pad_h, int pad_w, int u,
                                              int v, int dilation_h, int dilation_w,
                                              cudnnConvolutionMode_t mode, cudnnDataType_t compute) {
  if (!d) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (pad_h < 0 || pad_w < 0 || u <= 0 || v <= 0 || dilation_h <= 0 || dilation_w <= 0)
    return CUDNN_STATUS_BAD_PARAM;
  if ((mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION) || !valid_type(compute))
    return CUDNN_STATUS_BAD_PARAM;
  d->set = true;
  d->pad_h = pad_h, d->pad_w = pad_w, d->stride_h = u, d->stride_w = v;
  d->dilation_h = dilation_h, d->dilation_w = dilation_w, d->mode = mode, d->compute = compute;
  return CUDNN_STATUS_SUCCESS;
}

// "cudnnSetConvolutionMathType()": BAD_PARAM for an invalid math type.
cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t d, cudnnMathType_t math) {
  if (!d) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (math != CUDNN_DEFAULT_MATH && math != CUDNN_TENSOR_OP_MATH && math != CUDNN_FMA_MATH)
    return CUDNN_STATUS_BAD_PARAM;
  d->math = math;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t* d) { return create(d); }
cudnnStatus_t cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t d) { return destroy(d); }

// "cudnnSetPooling2dDescriptor()": BAD_PARAM when a window size or stride is <= 0, a pad is
// negative, or the mode or NaN option is an invalid enumerant.
cudnnStatus_t cudnnSetPooling2dDescriptor(cudnnPoolingDescriptor_t d, cudnnPoolingMode_t mode,
                                          cudnnNanPropagation_t nan, int window_h, int window_w, int pad_h,
                                          int pad_w, int stride_h, int stride_w) {
  if (!d) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (window_h <= 0 || window_w <= 0 || stride_h <= 0 || stride_w <= 0 || pad_h < 0 || pad_w < 0)
    return CUDNN_STATUS_BAD_PARAM;
  if (mode < CUDNN_POOLING_MAX || mode > CUDNN_POOLING_MAX_DETERMINISTIC) return CUDNN_STATUS_BAD_PARAM;
  if (nan != CUDNN_NOT_PROPAGATE_NAN && nan != CUDNN_PROPAGATE_NAN) return CUDNN_STATUS_BAD_PARAM;
  *d = cudnnPoolingStruct{true, mode, nan, window_h, window_w, pad_h, pad_w, stride_h, stride_w};
  return CUDNN_STATUS_SUCCESS;
}

size_t cudnnGetVersion() { return 9 * 10000 + 19 * 100; }  // the cuDNN 9.19 API the models follow

// "cudnnGetErrorString()": the enumerant's name.
const char* cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
    case CUDNN_STATUS_SUCCESS:
      return "CUDNN_STATUS_SUCCESS";
    case CUDNN_STATUS_NOT_INITIALIZED:
      return "CUDNN_STATUS_NOT_INITIALIZED";
    case CUDNN_STATUS_BAD_PARAM:
      return "CUDNN_STATUS_BAD_PARAM";
    case CUDNN_STATUS_BAD_PARAM_NULL_POINTER:
      return "CUDNN_STATUS_BAD_PARAM_NULL_POINTER";
    case CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER:
      return "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER";
    case CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT:
      return "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT";
    case CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH:
      return "CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH";
    case CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH:
      return "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH";
    case CUDNN_STATUS_NOT_SUPPORTED:
      return "CUDNN_STATUS_NOT_SUPPORTED";
    case CUDNN_STATUS_NOT_SUPPORTED_SHAPE:
      return "CUDNN_STATUS_NOT_SUPPORTED_SHAPE";
    case CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE:
      return "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE";
    case CUDNN_STATUS_ALLOC_FAILED:
      return "CUDNN_STATUS_ALLOC_FAILED";
    case CUDNN_STATUS_EXECUTION_FAILED:
      return "CUDNN_STATUS_EXECUTION_FAILED";
    case CUDNN_STATUS_EXECUTION_FAILED_CUDART:
      return "CUDNN_STATUS_EXECUTION_FAILED_CUDART";
  }
  return "CUDNN_STATUS_UNKNOWN";
}
