#pragma once
// The cuDNN 9 legacy calls Ember makes, declared with cudnn.h's signatures (EMBER_CUDA=
// EMULATE only) and modelled on the host after NVIDIA's cuDNN API Reference: the handle and
// descriptors in cudnn_descriptors.cpp, the compute calls in cudnn_*.cpp (cudnn_model.h
// holds what they share).
#include <cstddef>

#include "cuda_emulator/runtime.h"

struct cudnnContext;
struct cudnnTensorStruct;
struct cudnnFilterStruct;
struct cudnnConvolutionStruct;
struct cudnnPoolingStruct;
typedef struct cudnnContext* cudnnHandle_t;
typedef struct cudnnTensorStruct* cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct* cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct* cudnnConvolutionDescriptor_t;
typedef struct cudnnPoolingStruct* cudnnPoolingDescriptor_t;

// The enums take int as their underlying type: in C (what NVIDIA's headers are) any int may be
// passed, and the models must refuse a bad value, not meet undefined behaviour loading it.
// cudnn_graph.h's values (9.x): a category (thousands) and a specific error.
typedef enum : int {
  CUDNN_STATUS_SUCCESS = 0,
  CUDNN_STATUS_NOT_INITIALIZED = 1001,
  CUDNN_STATUS_BAD_PARAM = 2000,
  CUDNN_STATUS_BAD_PARAM_NULL_POINTER = 2002,
  CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER = 2003,
  CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT = 2006,
  CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH = 2007,
  CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH = 2008,
  CUDNN_STATUS_NOT_SUPPORTED = 3000,
  CUDNN_STATUS_NOT_SUPPORTED_SHAPE = 3002,
  CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE = 3003,
  CUDNN_STATUS_ALLOC_FAILED = 4003,  // cudnn_graph.h: INTERNAL_ERROR_HOST_ALLOCATION_FAILED's alias
  CUDNN_STATUS_EXECUTION_FAILED = 5000,
  CUDNN_STATUS_EXECUTION_FAILED_CUDART = 5003,
} cudnnStatus_t;
#define CUDNN_BN_MIN_EPSILON 0.0
typedef enum : int { CUDNN_DATA_FLOAT = 0, CUDNN_DATA_DOUBLE = 1 } cudnnDataType_t;
typedef enum : int { CUDNN_TENSOR_NCHW = 0 } cudnnTensorFormat_t;
typedef enum : int { CUDNN_NOT_PROPAGATE_NAN = 0, CUDNN_PROPAGATE_NAN = 1 } cudnnNanPropagation_t;
typedef enum : int { CUDNN_DEFAULT_MATH = 0, CUDNN_TENSOR_OP_MATH = 1, CUDNN_FMA_MATH = 3 } cudnnMathType_t;
typedef enum : int { CUDNN_NON_DETERMINISTIC = 0, CUDNN_DETERMINISTIC = 1 } cudnnDeterminism_t;
typedef enum : int { CUDNN_CONVOLUTION = 0, CUDNN_CROSS_CORRELATION = 1 } cudnnConvolutionMode_t;
typedef enum : int {
  CUDNN_POOLING_MAX = 0,
  CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING = 1,
  CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING = 2,
  CUDNN_POOLING_MAX_DETERMINISTIC = 3,
} cudnnPoolingMode_t;
typedef enum : int { CUDNN_BATCHNORM_PER_ACTIVATION = 0, CUDNN_BATCHNORM_SPATIAL = 1 } cudnnBatchNormMode_t;
typedef enum : int {
  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM = 0,
  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1,
  CUDNN_CONVOLUTION_FWD_ALGO_GEMM = 2,
  CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8,
} cudnnConvolutionFwdAlgo_t;
typedef enum : int {
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 = 0,
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_1 = 1,
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT = 6,
} cudnnConvolutionBwdDataAlgo_t;
typedef enum : int {
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 = 0,
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 = 1,
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3 = 3,
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

// ---- the handle and descriptors (cudnn_descriptors.cpp)
EMBER_API cudnnStatus_t cudnnCreate(cudnnHandle_t* handle);
EMBER_API cudnnStatus_t cudnnDestroy(cudnnHandle_t handle);
EMBER_API cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream);
EMBER_API size_t cudnnGetVersion();
EMBER_API const char* cudnnGetErrorString(cudnnStatus_t status);
EMBER_API cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* desc);
EMBER_API cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t desc, cudnnTensorFormat_t format,
                                                   cudnnDataType_t type, int n, int c, int h, int w);
EMBER_API cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t desc);
EMBER_API cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* desc);
EMBER_API cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t desc, cudnnDataType_t type,
                                                   cudnnTensorFormat_t format, int k, int c, int h, int w);
EMBER_API cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t desc);
EMBER_API cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* desc);
EMBER_API cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t desc, int pad_h,
                                                        int pad_w, int u, int v, int dilation_h,
                                                        int dilation_w, cudnnConvolutionMode_t mode,
                                                        cudnnDataType_t compute_type);
EMBER_API cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t desc,
                                                    cudnnMathType_t math_type);
EMBER_API cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t desc);
EMBER_API cudnnStatus_t cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t* desc);
EMBER_API cudnnStatus_t cudnnSetPooling2dDescriptor(cudnnPoolingDescriptor_t desc, cudnnPoolingMode_t mode,
                                                    cudnnNanPropagation_t nan_opt, int window_h, int window_w,
                                                    int pad_h, int pad_w, int stride_h, int stride_w);
EMBER_API cudnnStatus_t cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t desc);

// ---- pooling forward (cudnn_pooling.cpp)
EMBER_API cudnnStatus_t cudnnPoolingForward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t pooling_desc,
                                            const void* alpha, const cudnnTensorDescriptor_t x_desc,
                                            const void* x, const void* beta,
                                            const cudnnTensorDescriptor_t y_desc, void* y);

// ---- batch normalization (cudnn_batch_norm.cpp)
EMBER_API cudnnStatus_t cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t derived_bn_desc,
                                                      const cudnnTensorDescriptor_t x_desc,
                                                      cudnnBatchNormMode_t mode);
EMBER_API cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t x_desc, const void* x, const cudnnTensorDescriptor_t y_desc, void* y,
    const cudnnTensorDescriptor_t bn_scale_bias_mean_var_desc, const void* bn_scale, const void* bn_bias,
    double exponential_average_factor, void* result_running_mean, void* result_running_variance,
    double epsilon, void* result_save_mean, void* result_save_inv_variance);
EMBER_API cudnnStatus_t cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t x_desc, const void* x, const cudnnTensorDescriptor_t y_desc, void* y,
    const cudnnTensorDescriptor_t bn_scale_bias_mean_var_desc, const void* bn_scale, const void* bn_bias,
    const void* estimated_mean, const void* estimated_variance, double epsilon);
EMBER_API cudnnStatus_t cudnnBatchNormalizationBackward(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha_data_diff, const void* beta_data_diff,
    const void* alpha_param_diff, const void* beta_param_diff, const cudnnTensorDescriptor_t x_desc,
    const void* x, const cudnnTensorDescriptor_t dy_desc, const void* dy,
    const cudnnTensorDescriptor_t dx_desc, void* dx, const cudnnTensorDescriptor_t bn_scale_bias_diff_desc,
    const void* bn_scale, void* result_bn_scale_diff, void* result_bn_bias_diff, double epsilon,
    const void* saved_mean, const void* saved_inv_variance);

// ---- convolution (cudnn_convolution.cpp: the compute calls and workspace sizes;
// cudnn_convolution_algorithms.cpp: the heuristics and searches)
EMBER_API cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults);
EMBER_API cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t yDesc, void* y, int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionFwdAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes);
EMBER_API cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,
    cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes);
EMBER_API cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults);
EMBER_API cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void* w,
    const cudnnTensorDescriptor_t dyDesc, const void* dy, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t dxDesc, void* dx, int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes);
EMBER_API cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,
    cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes);
EMBER_API cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults);
EMBER_API cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnTensorDescriptor_t dyDesc, const void* dy, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t dwDesc, void* dw, int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes);
EMBER_API cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t* sizeInBytes);
EMBER_API cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void* alpha,
                                                const cudnnTensorDescriptor_t xDesc, const void* x,
                                                const cudnnFilterDescriptor_t wDesc, const void* w,
                                                const cudnnConvolutionDescriptor_t convDesc,
                                                cudnnConvolutionFwdAlgo_t algo, void* workSpace,
                                                size_t workSpaceSizeInBytes, const void* beta,
                                                const cudnnTensorDescriptor_t yDesc, void* y);
EMBER_API cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t handle, const void* alpha,
                                                     const cudnnFilterDescriptor_t wDesc, const void* w,
                                                     const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     cudnnConvolutionBwdDataAlgo_t algo, void* workSpace,
                                                     size_t workSpaceSizeInBytes, const void* beta,
                                                     const cudnnTensorDescriptor_t dxDesc, void* dx);
EMBER_API cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void* alpha,
                                                       const cudnnTensorDescriptor_t xDesc, const void* x,
                                                       const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                                       const cudnnConvolutionDescriptor_t convDesc,
                                                       cudnnConvolutionBwdFilterAlgo_t algo, void* workSpace,
                                                       size_t workSpaceSizeInBytes, const void* beta,
                                                       const cudnnFilterDescriptor_t dwDesc, void* dw);

// ---- bias and tensor addition (cudnn_tensor_ops.cpp)
EMBER_API cudnnStatus_t cudnnConvolutionBackwardBias(cudnnHandle_t handle, const void* alpha,
                                                     const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                                     const void* beta, const cudnnTensorDescriptor_t dbDesc,
                                                     void* db);
EMBER_API cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void* alpha,
                                       const cudnnTensorDescriptor_t aDesc, const void* A, const void* beta,
                                       const cudnnTensorDescriptor_t cDesc, void* C);
