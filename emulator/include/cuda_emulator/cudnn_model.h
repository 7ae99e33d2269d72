#pragma once
// What the cuDNN models share (EMBER_CUDA=EMULATE only): the handle and descriptor objects
// behind cudnn_api.h's opaque types, and the checks every compute call makes before it
// queues its host math on the handle's stream. The models follow NVIDIA's "cuDNN API
// Reference" (9.x, legacy descriptor API; the section of each call is cited where it is
// modelled). Where the reference is silent, a model refuses (the strict choice) and says so.
#include <cstddef>
#include <string>

#include "cuda_emulator/cudnn_api.h"
#include "cuda_emulator/internal.h"

struct cudnnContext {
  int device = 0;                 // the device current at cudnnCreate
  cudaStream_t stream = nullptr;  // null: the device's default stream
};

struct cudnnTensorStruct {
  bool set = false;  // a descriptor is usable only once its Set call succeeded
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  int n = 0, c = 0, h = 0, w = 0;  // packed NCHW: strides c*h*w, h*w, w, 1
};

struct cudnnFilterStruct {
  bool set = false;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  int k = 0, c = 0, h = 0, w = 0;  // [K, C, R, S], packed NCHW (KCRS)
};

struct cudnnConvolutionStruct {
  bool set = false;
  int pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;  // cudnnCreateConvolutionDescriptor's default
};

struct cudnnPoolingStruct {
  bool set = false;
  cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
  cudnnNanPropagation_t nan = CUDNN_NOT_PROPAGATE_NAN;
  int window_h = 0, window_w = 0, pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1;
};

namespace ember::emulation::dnn {

/// Bytes of one element of t.
inline size_t element_size(cudnnDataType_t t) {
  return t == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float);
}
/// Elements a set tensor or filter descriptor covers (packed).
inline size_t elements(const cudnnTensorStruct& t) { return size_t(t.n) * t.c * t.h * t.w; }
inline size_t elements(const cudnnFilterStruct& f) { return size_t(f.k) * f.c * f.h * f.w; }

/// The first check of every call that takes a handle: it exists, and the device current
/// now is the one it was created on (the reference ties a handle to its device: "one cuDNN
/// handle needs to be created for each device"; calling it from another is refused with
/// CUDNN_STATUS_BAD_PARAM, a strict choice). A device broken by a sticky error gives
/// CUDNN_STATUS_EXECUTION_FAILED_CUDART.
cudnnStatus_t check_handle(cudnnHandle_t handle);

/// A descriptor argument: not null and set (cuDNN's BAD_PARAM for an unset one is the
/// strict choice: the reference only says the descriptor "must have been initialized").
inline bool is_set(const cudnnTensorStruct* d) { return d && d->set; }
inline bool is_set(const cudnnFilterStruct* d) { return d && d->set; }
inline bool is_set(const cudnnConvolutionStruct* d) { return d && d->set; }
inline bool is_set(const cudnnPoolingStruct* d) { return d && d->set; }

/// A data pointer of a compute call, `bytes` long, checked as the GPU would use it: null is
/// CUDNN_STATUS_BAD_PARAM_NULL_POINTER; not aligned to its element size is
/// CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER; memory the handle's device cannot use (a host
/// pointer, a freed block, a range past its allocation, another device's memory without
/// peer access) makes the device's sticky illegal address, as a kernel's fault would, and
/// the call returns CUDNN_STATUS_EXECUTION_FAILED_CUDART. `what` names the argument in the
/// fault's diagnosis. bytes == 0 accepts any pointer.
cudnnStatus_t check_pointer(cudnnHandle_t handle, const void* p, size_t bytes, size_t alignment,
                            const std::string& what);

/// alpha or beta: a host pointer to float for float data, to double for double data
/// (reference, "Scaling Parameters"). Null is CUDNN_STATUS_BAD_PARAM_NULL_POINTER.
bool read_scale(const void* p, cudnnDataType_t type, double* value);

/// dst = alpha * result + beta * dst, with beta == 0 not reading dst (the reference: "if
/// beta is zero, the output is not read and may contain uninitialized data", NaN included).
template <class T>
inline void blend(T* dst, double result, double alpha, double beta) {
  const double r = alpha * result;
  *dst = static_cast<T>(beta == 0 ? r : r + beta * static_cast<double>(*dst));
}

/// Queues f on the handle's stream (runs now, or later with deferred streams).
template <class F>
void enqueue(cudnnHandle_t handle, F f) {
  submit_function(handle->stream, handle->device, std::move(f));
}

}  // namespace ember::emulation::dnn
