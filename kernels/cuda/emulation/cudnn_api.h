#pragma once
// The cuDNN 9 legacy calls Ember makes, declared with cudnn.h's signatures (EMBER_CUDA=
// EMULATE only). Until part 2 models them, every call that creates, configures or computes
// raises NotImplementedError (not_modelled.h). Destroy calls succeed (destructors make
// them on the way out of a failed call) and the version and error-string queries answer.
#include <cstddef>

#include "ember/kernels/cuda/emulation/not_modelled.h"
#include "ember/kernels/cuda/emulation/runtime.h"

struct cudnnContext;
struct cudnnTensorStruct;
struct cudnnFilterStruct;
struct cudnnConvolutionStruct;
struct cudnnPoolingStruct;
struct cudnnActivationStruct;
typedef struct cudnnContext* cudnnHandle_t;
typedef struct cudnnTensorStruct* cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct* cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct* cudnnConvolutionDescriptor_t;
typedef struct cudnnPoolingStruct* cudnnPoolingDescriptor_t;
typedef struct cudnnActivationStruct* cudnnActivationDescriptor_t;

typedef enum {
  CUDNN_STATUS_SUCCESS = 0,
  CUDNN_STATUS_NOT_INITIALIZED = 1001,
  CUDNN_STATUS_BAD_PARAM = 2000,
  CUDNN_STATUS_NOT_SUPPORTED = 3000,
} cudnnStatus_t;
typedef enum { CUDNN_DATA_FLOAT = 0, CUDNN_DATA_DOUBLE = 1 } cudnnDataType_t;
typedef enum { CUDNN_TENSOR_NCHW = 0 } cudnnTensorFormat_t;
typedef enum { CUDNN_NOT_PROPAGATE_NAN = 0, CUDNN_PROPAGATE_NAN = 1 } cudnnNanPropagation_t;
typedef enum { CUDNN_DEFAULT_MATH = 0, CUDNN_TENSOR_OP_MATH = 1, CUDNN_FMA_MATH = 3 } cudnnMathType_t;
typedef enum { CUDNN_NON_DETERMINISTIC = 0, CUDNN_DETERMINISTIC = 1 } cudnnDeterminism_t;
typedef enum { CUDNN_CONVOLUTION = 0, CUDNN_CROSS_CORRELATION = 1 } cudnnConvolutionMode_t;
typedef enum {
  CUDNN_POOLING_MAX = 0,
  CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING = 1,
  CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING = 2,
  CUDNN_POOLING_MAX_DETERMINISTIC = 3,
} cudnnPoolingMode_t;
typedef enum { CUDNN_ACTIVATION_RELU = 1 } cudnnActivationMode_t;
typedef enum { CUDNN_BATCHNORM_PER_ACTIVATION = 0, CUDNN_BATCHNORM_SPATIAL = 1 } cudnnBatchNormMode_t;
typedef enum {
  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM = 0,
  CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8,
} cudnnConvolutionFwdAlgo_t;
typedef enum {
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 = 0,
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_1 = 1,
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT = 6,
} cudnnConvolutionBwdDataAlgo_t;
typedef enum {
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 = 0,
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 = 1,
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT = 7,
} cudnnConvolutionBwdFilterAlgo_t;

#define EMBER_CUDNN_PERF(Name, Algo) \
  typedef struct {                   \
    Algo algo;                       \
    cudnnStatus_t status;            \
    float time;                      \
    size_t memory;                   \
    cudnnDeterminism_t determinism;  \
    cudnnMathType_t mathType;        \
    int reserved[3];                 \
  } Name;
EMBER_CUDNN_PERF(cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t)
EMBER_CUDNN_PERF(cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t)
EMBER_CUDNN_PERF(cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t)
#undef EMBER_CUDNN_PERF

// A call that is not modelled: same signature as cudnn.h, raises NotImplementedError.
#define EMBER_CUDNN_UNMODELLED(name, params) \
  inline cudnnStatus_t name params { ember::emulation::not_modelled(#name); }
// A destroy call: nothing was created, so nothing to do.
#define EMBER_CUDNN_DESTROY(name, type) \
  inline cudnnStatus_t name(type) { return CUDNN_STATUS_SUCCESS; }

EMBER_CUDNN_UNMODELLED(cudnnCreate, (cudnnHandle_t*))
EMBER_CUDNN_UNMODELLED(cudnnSetStream, (cudnnHandle_t, cudaStream_t))
EMBER_CUDNN_UNMODELLED(cudnnCreateTensorDescriptor, (cudnnTensorDescriptor_t*))
EMBER_CUDNN_UNMODELLED(cudnnSetTensor4dDescriptor,
                       (cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int, int, int, int))
EMBER_CUDNN_DESTROY(cudnnDestroyTensorDescriptor, cudnnTensorDescriptor_t)
EMBER_CUDNN_UNMODELLED(cudnnCreateFilterDescriptor, (cudnnFilterDescriptor_t*))
EMBER_CUDNN_UNMODELLED(cudnnSetFilter4dDescriptor,
                       (cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int, int, int, int))
EMBER_CUDNN_DESTROY(cudnnDestroyFilterDescriptor, cudnnFilterDescriptor_t)
EMBER_CUDNN_UNMODELLED(cudnnCreateConvolutionDescriptor, (cudnnConvolutionDescriptor_t*))
EMBER_CUDNN_UNMODELLED(cudnnSetConvolution2dDescriptor, (cudnnConvolutionDescriptor_t, int, int, int, int, int, int,
                                                         cudnnConvolutionMode_t, cudnnDataType_t))
EMBER_CUDNN_UNMODELLED(cudnnSetConvolutionMathType, (cudnnConvolutionDescriptor_t, cudnnMathType_t))
EMBER_CUDNN_DESTROY(cudnnDestroyConvolutionDescriptor, cudnnConvolutionDescriptor_t)
EMBER_CUDNN_UNMODELLED(cudnnCreatePoolingDescriptor, (cudnnPoolingDescriptor_t*))
EMBER_CUDNN_UNMODELLED(cudnnSetPooling2dDescriptor, (cudnnPoolingDescriptor_t, cudnnPoolingMode_t,
                                                     cudnnNanPropagation_t, int, int, int, int, int, int))
EMBER_CUDNN_DESTROY(cudnnDestroyPoolingDescriptor, cudnnPoolingDescriptor_t)
EMBER_CUDNN_UNMODELLED(cudnnCreateActivationDescriptor, (cudnnActivationDescriptor_t*))
EMBER_CUDNN_UNMODELLED(cudnnSetActivationDescriptor,
                       (cudnnActivationDescriptor_t, cudnnActivationMode_t, cudnnNanPropagation_t, double))
EMBER_CUDNN_DESTROY(cudnnDestroyActivationDescriptor, cudnnActivationDescriptor_t)

EMBER_CUDNN_UNMODELLED(cudnnActivationForward,
                       (cudnnHandle_t, cudnnActivationDescriptor_t, const void*, const cudnnTensorDescriptor_t,
                        const void*, const void*, const cudnnTensorDescriptor_t, void*))
EMBER_CUDNN_UNMODELLED(cudnnActivationBackward,
                       (cudnnHandle_t, cudnnActivationDescriptor_t, const void*, const cudnnTensorDescriptor_t,
                        const void*, const cudnnTensorDescriptor_t, const void*, const cudnnTensorDescriptor_t,
                        const void*, const void*, const cudnnTensorDescriptor_t, void*))
EMBER_CUDNN_UNMODELLED(cudnnPoolingForward,
                       (cudnnHandle_t, const cudnnPoolingDescriptor_t, const void*, const cudnnTensorDescriptor_t,
                        const void*, const void*, const cudnnTensorDescriptor_t, void*))
EMBER_CUDNN_UNMODELLED(cudnnPoolingBackward,
                       (cudnnHandle_t, const cudnnPoolingDescriptor_t, const void*, const cudnnTensorDescriptor_t,
                        const void*, const cudnnTensorDescriptor_t, const void*, const cudnnTensorDescriptor_t,
                        const void*, const void*, const cudnnTensorDescriptor_t, void*))
EMBER_CUDNN_UNMODELLED(cudnnDeriveBNTensorDescriptor,
                       (cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, cudnnBatchNormMode_t))
EMBER_CUDNN_UNMODELLED(cudnnBatchNormalizationForwardTraining,
                       (cudnnHandle_t, cudnnBatchNormMode_t, const void*, const void*, const cudnnTensorDescriptor_t,
                        const void*, const cudnnTensorDescriptor_t, void*, const cudnnTensorDescriptor_t, const void*,
                        const void*, double, void*, void*, double, void*, void*))
EMBER_CUDNN_UNMODELLED(cudnnBatchNormalizationForwardInference,
                       (cudnnHandle_t, cudnnBatchNormMode_t, const void*, const void*, const cudnnTensorDescriptor_t,
                        const void*, const cudnnTensorDescriptor_t, void*, const cudnnTensorDescriptor_t, const void*,
                        const void*, const void*, const void*, double))
EMBER_CUDNN_UNMODELLED(cudnnBatchNormalizationBackward,
                       (cudnnHandle_t, cudnnBatchNormMode_t, const void*, const void*, const void*, const void*,
                        const cudnnTensorDescriptor_t, const void*, const cudnnTensorDescriptor_t, const void*,
                        const cudnnTensorDescriptor_t, void*, const cudnnTensorDescriptor_t, const void*, void*,
                        void*, double, const void*, const void*))
EMBER_CUDNN_UNMODELLED(cudnnGetConvolutionForwardAlgorithm_v7,
                       (cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t,
                        const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, int, int*,
                        cudnnConvolutionFwdAlgoPerf_t*))
EMBER_CUDNN_UNMODELLED(cudnnFindConvolutionForwardAlgorithmEx,
                       (cudnnHandle_t, const cudnnTensorDescriptor_t, const void*, const cudnnFilterDescriptor_t,
                        const void*, const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, void*, int,
                        int*, cudnnConvolutionFwdAlgoPerf_t*, void*, size_t))
EMBER_CUDNN_UNMODELLED(cudnnGetConvolutionForwardWorkspaceSize,
                       (cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t,
                        const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, cudnnConvolutionFwdAlgo_t,
                        size_t*))
EMBER_CUDNN_UNMODELLED(cudnnGetConvolutionBackwardDataAlgorithm_v7,
                       (cudnnHandle_t, const cudnnFilterDescriptor_t, const cudnnTensorDescriptor_t,
                        const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, int, int*,
                        cudnnConvolutionBwdDataAlgoPerf_t*))
EMBER_CUDNN_UNMODELLED(cudnnFindConvolutionBackwardDataAlgorithmEx,
                       (cudnnHandle_t, const cudnnFilterDescriptor_t, const void*, const cudnnTensorDescriptor_t,
                        const void*, const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, void*, int,
                        int*, cudnnConvolutionBwdDataAlgoPerf_t*, void*, size_t))
EMBER_CUDNN_UNMODELLED(cudnnGetConvolutionBackwardDataWorkspaceSize,
                       (cudnnHandle_t, const cudnnFilterDescriptor_t, const cudnnTensorDescriptor_t,
                        const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t,
                        cudnnConvolutionBwdDataAlgo_t, size_t*))
EMBER_CUDNN_UNMODELLED(cudnnGetConvolutionBackwardFilterAlgorithm_v7,
                       (cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t,
                        const cudnnConvolutionDescriptor_t, const cudnnFilterDescriptor_t, int, int*,
                        cudnnConvolutionBwdFilterAlgoPerf_t*))
EMBER_CUDNN_UNMODELLED(cudnnFindConvolutionBackwardFilterAlgorithmEx,
                       (cudnnHandle_t, const cudnnTensorDescriptor_t, const void*, const cudnnTensorDescriptor_t,
                        const void*, const cudnnConvolutionDescriptor_t, const cudnnFilterDescriptor_t, void*, int,
                        int*, cudnnConvolutionBwdFilterAlgoPerf_t*, void*, size_t))
EMBER_CUDNN_UNMODELLED(cudnnGetConvolutionBackwardFilterWorkspaceSize,
                       (cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t,
                        const cudnnConvolutionDescriptor_t, const cudnnFilterDescriptor_t,
                        cudnnConvolutionBwdFilterAlgo_t, size_t*))
EMBER_CUDNN_UNMODELLED(cudnnConvolutionForward,
                       (cudnnHandle_t, const void*, const cudnnTensorDescriptor_t, const void*,
                        const cudnnFilterDescriptor_t, const void*, const cudnnConvolutionDescriptor_t,
                        cudnnConvolutionFwdAlgo_t, void*, size_t, const void*, const cudnnTensorDescriptor_t, void*))
EMBER_CUDNN_UNMODELLED(cudnnConvolutionBackwardData,
                       (cudnnHandle_t, const void*, const cudnnFilterDescriptor_t, const void*,
                        const cudnnTensorDescriptor_t, const void*, const cudnnConvolutionDescriptor_t,
                        cudnnConvolutionBwdDataAlgo_t, void*, size_t, const void*, const cudnnTensorDescriptor_t,
                        void*))
EMBER_CUDNN_UNMODELLED(cudnnConvolutionBackwardFilter,
                       (cudnnHandle_t, const void*, const cudnnTensorDescriptor_t, const void*,
                        const cudnnTensorDescriptor_t, const void*, const cudnnConvolutionDescriptor_t,
                        cudnnConvolutionBwdFilterAlgo_t, void*, size_t, const void*, const cudnnFilterDescriptor_t,
                        void*))
EMBER_CUDNN_UNMODELLED(cudnnConvolutionBackwardBias,
                       (cudnnHandle_t, const void*, const cudnnTensorDescriptor_t, const void*, const void*,
                        const cudnnTensorDescriptor_t, void*))
EMBER_CUDNN_UNMODELLED(cudnnAddTensor, (cudnnHandle_t, const void*, const cudnnTensorDescriptor_t, const void*,
                                        const void*, const cudnnTensorDescriptor_t, void*))

#undef EMBER_CUDNN_UNMODELLED
#undef EMBER_CUDNN_DESTROY

inline size_t cudnnGetVersion() { return 0; }  // no library: versions() says so
inline const char* cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
    case CUDNN_STATUS_SUCCESS: return "CUDNN_STATUS_SUCCESS";
    case CUDNN_STATUS_NOT_INITIALIZED: return "CUDNN_STATUS_NOT_INITIALIZED";
    case CUDNN_STATUS_BAD_PARAM: return "CUDNN_STATUS_BAD_PARAM";
    case CUDNN_STATUS_NOT_SUPPORTED: return "CUDNN_STATUS_NOT_SUPPORTED";
  }
  return "CUDNN_STATUS_UNKNOWN";
}
