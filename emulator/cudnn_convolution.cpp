// The cuDNN convolution compute calls and their workspace queries (EMBER_CUDA=EMULATE
// only), after NVIDIA's cuDNN API Reference 9.x, cudnn_cnn library. The problem checks,
// algorithms and host math are cudnn_convolution_problem.cpp's (cudnn_convolution.h).
#include <atomic>

#include "cuda_emulator/control.h"
#include "cuda_emulator/cudnn_convolution.h"

namespace ember::emulation::dnn {
namespace {

std::atomic<uint64_t> g_workspace_queries{0};

// The checks and the queued math of the three compute calls, in this order: the handle;
// the problem (check_problem); alpha and beta (null: BAD_PARAM_NULL_POINTER); the algorithm
// (an invalid enumerant: BAD_PARAM, the strict choice; one the model does not implement:
// NOT_SUPPORTED, "the chosen algo does not support the parameters provided"); the
// workspace (below the algorithm's size: BAD_PARAM; then its pointer, check_workspace);
// the data pointers (check_pointer), and the algorithm's operand alignment
// (BAD_PARAM_MISALIGNED_POINTER). Then out = alpha * result + beta * out on the
// handle's stream, the algorithm's whole workspace written.
cudnnStatus_t convolve(cudnnHandle_t handle, ConvDirection dir, const cudnnTensorStruct* x,
                       const cudnnFilterStruct* w, const cudnnConvolutionStruct* conv,
                       const cudnnTensorStruct* y, int algo, const void* alpha, const void* beta,
                       const void* a, const void* b, void* out, void* workspace, size_t workspace_bytes) {
  if (const cudnnStatus_t s = check_handle(handle)) return s;
  ConvProblem p;
  if (const cudnnStatus_t s = check_problem(dir, x, w, conv, y, &p)) return s;
  double alpha_value = 0, beta_value = 0;
  if (!read_scale(alpha, p.x.type, &alpha_value) || !read_scale(beta, p.x.type, &beta_value))
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (algo < 0 || algo >= conv_algorithm_count(dir)) return CUDNN_STATUS_BAD_PARAM;
  const ConvAlgorithm info = conv_algorithm(dir, algo, p);
  if (!info.modelled) return CUDNN_STATUS_NOT_SUPPORTED;
  if (const cudnnStatus_t s = check_workspace(handle, workspace, workspace_bytes, info.workspace)) return s;
  if (const cudnnStatus_t s = check_conv_pointers(handle, dir, p, a, b, out)) return s;
  if (!operands_aligned(info, a, b, out)) return CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER;
  enqueue_convolution(handle, dir, p, a, b, out, alpha_value, beta_value, workspace, info.workspace);
  return CUDNN_STATUS_SUCCESS;
}

// The *WorkspaceSize queries: "the amount of GPU memory workspace the user needs to
// allocate to be able to call" the direction's call with the algorithm. BAD_PARAM for a
// null argument, descriptors that do not agree (check_problem) or an invalid enumerant;
// NOT_SUPPORTED when "the combination of the tensor descriptors, filter descriptor and
// convolution descriptor is not supported for the specified algorithm".
cudnnStatus_t workspace_size(cudnnHandle_t handle, ConvDirection dir, const cudnnTensorStruct* x,
                             const cudnnFilterStruct* w, const cudnnConvolutionStruct* conv,
                             const cudnnTensorStruct* y, int algo, size_t* size) {
  g_workspace_queries.fetch_add(1, std::memory_order_relaxed);
  if (const cudnnStatus_t s = check_handle(handle)) return s;
  if (!size) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  ConvProblem p;
  if (const cudnnStatus_t s = check_problem(dir, x, w, conv, y, &p)) return s;
  if (algo < 0 || algo >= conv_algorithm_count(dir)) return CUDNN_STATUS_BAD_PARAM;
  const ConvAlgorithm info = conv_algorithm(dir, algo, p);
  if (!info.modelled) return CUDNN_STATUS_NOT_SUPPORTED;
  *size = info.workspace;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace
}  // namespace ember::emulation::dnn

namespace ember::emulation {
uint64_t cudnn_workspace_queries() { return dnn::g_workspace_queries.load(std::memory_order_relaxed); }
}  // namespace ember::emulation

using namespace ember::emulation::dnn;

// "cudnnConvolutionForward()": y = alpha * conv(x, w) + beta * y.
cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void* alpha,
                                      const cudnnTensorDescriptor_t xDesc, const void* x,
                                      const cudnnFilterDescriptor_t wDesc, const void* w,
                                      const cudnnConvolutionDescriptor_t convDesc,
                                      cudnnConvolutionFwdAlgo_t algo, void* workSpace,
                                      size_t workSpaceSizeInBytes, const void* beta,
                                      const cudnnTensorDescriptor_t yDesc, void* y) {
  return convolve(handle, ConvDirection::Forward, xDesc, wDesc, convDesc, yDesc, algo, alpha, beta, x, w, y,
                  workSpace, workSpaceSizeInBytes);
}

// "cudnnConvolutionBackwardData()": dx = alpha * (the gradient of y with respect to x,
// from dy and w) + beta * dx.
cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t handle, const void* alpha,
                                           const cudnnFilterDescriptor_t wDesc, const void* w,
                                           const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                           const cudnnConvolutionDescriptor_t convDesc,
                                           cudnnConvolutionBwdDataAlgo_t algo, void* workSpace,
                                           size_t workSpaceSizeInBytes, const void* beta,
                                           const cudnnTensorDescriptor_t dxDesc, void* dx) {
  return convolve(handle, ConvDirection::BackwardData, dxDesc, wDesc, convDesc, dyDesc, algo, alpha, beta, w,
                  dy, dx, workSpace, workSpaceSizeInBytes);
}

// "cudnnConvolutionBackwardFilter()": dw = alpha * (the gradient of y with respect to w,
// from x and dy) + beta * dw.
cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void* alpha,
                                             const cudnnTensorDescriptor_t xDesc, const void* x,
                                             const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                             const cudnnConvolutionDescriptor_t convDesc,
                                             cudnnConvolutionBwdFilterAlgo_t algo, void* workSpace,
                                             size_t workSpaceSizeInBytes, const void* beta,
                                             const cudnnFilterDescriptor_t dwDesc, void* dw) {
  return convolve(handle, ConvDirection::BackwardFilter, xDesc, dwDesc, convDesc, dyDesc, algo, alpha, beta,
                  x, dy, dw, workSpace, workSpaceSizeInBytes);
}

// "cudnnGetConvolutionForwardWorkspaceSize()".
cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle,
                                                      const cudnnTensorDescriptor_t xDesc,
                                                      const cudnnFilterDescriptor_t wDesc,
                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                      const cudnnTensorDescriptor_t yDesc,
                                                      cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes) {
  return workspace_size(handle, ConvDirection::Forward, xDesc, wDesc, convDesc, yDesc, algo, sizeInBytes);
}

// "cudnnGetConvolutionBackwardDataWorkspaceSize()".
cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,
    cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes) {
  return workspace_size(handle, ConvDirection::BackwardData, dxDesc, wDesc, convDesc, dyDesc, algo,
                        sizeInBytes);
}

// "cudnnGetConvolutionBackwardFilterWorkspaceSize()".
cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t* sizeInBytes) {
  return workspace_size(handle, ConvDirection::BackwardFilter, xDesc, dwDesc, convDesc, dyDesc, algo,
                        sizeInBytes);
}
