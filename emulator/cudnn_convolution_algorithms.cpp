// The cuDNN convolution algorithm queries (EMBER_CUDA=EMULATE only), after NVIDIA's cuDNN
// API Reference 9.x, cudnn_cnn library: the heuristics ("cudnnGetConvolutionForwardAlgorithm_v7()"
// and the backward ones) and the searches on the caller's buffers
// ("cudnnFindConvolutionForwardAlgorithmEx()" and the backward ones). Every enumerant of a
// direction is listed; the ones the model does not implement say CUDNN_STATUS_NOT_SUPPORTED.
#include <algorithm>
#include <vector>

#include "cuda_emulator/cudnn_convolution.h"

namespace ember::emulation::dnn {
namespace {

struct Ranked {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  bool deterministic;
};

// Every algorithm of the direction, usable ones first by their notional cost, then the
// others in enumerant order (the reference orders by time only; where failures go it does
// not say). With search_workspace, an algorithm needing more reports CUDNN_STATUS_ALLOC_FAILED
// ("cudnnConvolutionFwdAlgoPerf_t": "if the provided workspace is insufficient").
// Heuristic entries are not measured: time -1.
// A search on misaligned operands reports the algorithms that need them aligned with
// CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER (heuristics see no pointers: operands null).
std::vector<Ranked> rank(ConvDirection dir, const ConvProblem& p, bool searching, size_t search_workspace,
                         const void* a = nullptr, const void* b = nullptr, const void* y = nullptr) {
  std::vector<Ranked> out;
  for (int algo = 0; algo < conv_algorithm_count(dir); ++algo) {
    const ConvAlgorithm info = conv_algorithm(dir, algo, p);
    cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
    if (!info.modelled)
      status = CUDNN_STATUS_NOT_SUPPORTED;
    else if (searching && info.workspace > search_workspace)
      status = CUDNN_STATUS_ALLOC_FAILED;
    else if (searching && !operands_aligned(info, a, b, y))
      status = CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER;
    const bool ok = status == CUDNN_STATUS_SUCCESS;
    out.push_back({algo, status, ok && searching ? static_cast<float>(info.cost) : -1.0f, info.workspace,
                   info.deterministic});
  }
  std::stable_sort(out.begin(), out.end(), [&](const Ranked& a, const Ranked& b) {
    const bool ok_a = a.status == CUDNN_STATUS_SUCCESS, ok_b = b.status == CUDNN_STATUS_SUCCESS;
    if (ok_a != ok_b) return ok_a;
    return ok_a && conv_algorithm(dir, a.algo, p).cost < conv_algorithm(dir, b.algo, p).cost;
  });
  return out;
}

// Writes the first `requested` of ranked into perf. mathType is "the math type provided to
// the algorithm": the descriptor's (the model computes in host math whatever it says).
template <class Perf>
void report(const std::vector<Ranked>& ranked, const ConvProblem& p, int requested, int* returned,
            Perf* perf) {
  const int n = std::min(requested, static_cast<int>(ranked.size()));
  for (int i = 0; i < n; ++i) {
    const Ranked& r = ranked[static_cast<size_t>(i)];
    Perf& out = perf[i];
    out = Perf{};
    out.algo = static_cast<decltype(out.algo)>(r.algo);
    out.status = r.status;
    out.time = r.time;
    out.memory = r.memory;
    out.determinism = r.deterministic ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
    out.mathType = p.conv.math;
  }
  *returned = n;
}

// "cudnnGetConvolutionForwardAlgorithm_v7()" (and the backward ones): "all algorithms ...
// sorted by expected (based on internal heuristic) relative performance with the fastest
// being index 0". BAD_PARAM for a null argument, descriptors that do not agree, or
// requestedAlgoCount <= 0; a problem the compute call would refuse is refused here with
// the same status (the reference is silent: the strict choice).
template <class Perf>
cudnnStatus_t heuristics(cudnnHandle_t handle, ConvDirection dir, const cudnnTensorStruct* x,
                         const cudnnFilterStruct* w, const cudnnConvolutionStruct* conv,
                         const cudnnTensorStruct* y, int requested, int* returned, Perf* perf) {
  if (const cudnnStatus_t s = check_handle(handle)) return s;
  if (!returned || !perf) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (requested <= 0) return CUDNN_STATUS_BAD_PARAM;
  ConvProblem p;
  if (const cudnnStatus_t s = check_problem(dir, x, w, conv, y, &p)) return s;
  report(rank(dir, p, false, 0), p, requested, returned, perf);
  return CUDNN_STATUS_SUCCESS;
}

// "cudnnFindConvolutionForwardAlgorithmEx()" (and the backward ones): runs every algorithm
// on the caller's buffers ("the content of this tensor will be overwritten with arbitrary
// values": here each run's result) with the caller's workspace, and reports them "in
// sorted fashion where the first element has the lowest compute time". BAD_PARAM for a
// null argument or requestedAlgoCount < 1; the problem and pointers are checked as the
// compute call checks them, the workspace (when its size is not zero) as device memory of
// that size.
template <class Perf>
cudnnStatus_t search(cudnnHandle_t handle, ConvDirection dir, const cudnnTensorStruct* x,
                     const cudnnFilterStruct* w, const cudnnConvolutionStruct* conv,
                     const cudnnTensorStruct* y, const void* a, const void* b, void* out, int requested,
                     int* returned, Perf* perf, void* workspace, size_t workspace_bytes) {
  if (const cudnnStatus_t s = check_handle(handle)) return s;
  if (!returned || !perf) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (requested < 1) return CUDNN_STATUS_BAD_PARAM;
  ConvProblem p;
  if (const cudnnStatus_t s = check_problem(dir, x, w, conv, y, &p)) return s;
  if (const cudnnStatus_t s = check_conv_pointers(handle, dir, p, a, b, out)) return s;
  if (const cudnnStatus_t s =
          check_pointer(handle, workspace, workspace_bytes, 16, "cuDNN convolution workspace"))
    return s;
  const std::vector<Ranked> ranked = rank(dir, p, true, workspace_bytes, a, b, out);
  for (const Ranked& r : ranked)
    if (r.status == CUDNN_STATUS_SUCCESS)
      enqueue_convolution(handle, dir, p, a, b, out, 1.0, 0.0, workspace, r.memory);
  report(ranked, p, requested, returned, perf);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace
}  // namespace ember::emulation::dnn

using namespace ember::emulation::dnn;

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  return heuristics(handle, ConvDirection::Forward, xDesc, wDesc, convDesc, yDesc, requestedAlgoCount,
                    returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  return heuristics(handle, ConvDirection::BackwardData, dxDesc, wDesc, convDesc, dyDesc, requestedAlgoCount,
                    returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  return heuristics(handle, ConvDirection::BackwardFilter, xDesc, dwDesc, convDesc, dyDesc,
                    requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t yDesc, void* y, int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionFwdAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes) {
  return search(handle, ConvDirection::Forward, xDesc, wDesc, convDesc, yDesc, x, w, y, requestedAlgoCount,
                returnedAlgoCount, perfResults, workSpace, workSpaceSizeInBytes);
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void* w,
    const cudnnTensorDescriptor_t dyDesc, const void* dy, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t dxDesc, void* dx, int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes) {
  return search(handle, ConvDirection::BackwardData, dxDesc, wDesc, convDesc, dyDesc, w, dy, dx,
                requestedAlgoCount, returnedAlgoCount, perfResults, workSpace, workSpaceSizeInBytes);
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnTensorDescriptor_t dyDesc, const void* dy, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t dwDesc, void* dw, int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes) {
  return search(handle, ConvDirection::BackwardFilter, xDesc, dwDesc, convDesc, dyDesc, x, dy, dw,
                requestedAlgoCount, returnedAlgoCount, perfResults, workSpace, workSpaceSizeInBytes);
}
