#pragma once
// What the convolution models share (EMBER_CUDA=EMULATE only): one 2-D convolution problem
// in a direction, its checks, the modelled algorithms (workspace, determinism, a notional
// cost) and the host math. cudnn_convolution.cpp holds the compute and workspace calls,
// cudnn_convolution_algorithms.cpp the heuristics and the searches.
//
// Reference: NVIDIA cuDNN API Reference 9.x, cudnn_cnn library ("cudnnConvolutionForward()",
// "cudnnConvolutionBackwardData()", "cudnnConvolutionBackwardFilter()",
// "cudnnGetConvolution2dForwardOutputDim()" and the algorithm enumerations).
#include <cstddef>
#include <string>

#include "cuda_emulator/cudnn_model.h"

namespace ember::emulation::dnn {

/// Which convolution call: y = conv(x, w), dx from (w, dy), dw from (x, dy).
enum class ConvDirection { Forward, BackwardData, BackwardFilter };

/// x [N, C, H, W], w [K, C, R, S], y [N, K, P, Q] (dx, dw and dy for the backward calls).
struct ConvProblem {
  cudnnTensorStruct x;
  cudnnFilterStruct w;
  cudnnConvolutionStruct conv;
  cudnnTensorStruct y;
};

/// The checks every call on a problem makes, in the reference's order of kinds:
/// - an unset or null descriptor: BAD_PARAM (the reference: "not allocated properly");
/// - x, w and y of different data types, or x and w with different channel counts:
///   BAD_PARAM ("non-matching data type", "non-matching number of input feature maps");
/// - a filter larger than the padded input (dilated): BAD_PARAM (Forward's list; the output
///   dimensions cannot be computed then, so the backward calls refuse it too);
/// - y's dimensions not those of "cudnnGetConvolution2dForwardOutputDim()": for Forward
///   NOT_SUPPORTED (its list: "yDesc's spatial sizes do not match with the expected size"),
///   for BackwardData BAD_PARAM (its list says so of dyDesc); BackwardFilter's list is
///   silent: BAD_PARAM, the strict choice. A batch or channel count of y that differs
///   (N, K) is refused the same way (the lists name spatial sizes only);
/// - a data and compute type pair outside the "Supported Configurations" tables
///   (FLOAT_CONFIG: float/float, DOUBLE_CONFIG: double/double): NOT_SUPPORTED.
cudnnStatus_t check_problem(ConvDirection dir, const cudnnTensorStruct* x, const cudnnFilterStruct* w,
                            const cudnnConvolutionStruct* conv, const cudnnTensorStruct* y, ConvProblem* out);

/// What the model declares of one algorithm of a direction (the enumerant's value).
struct ConvAlgorithm {
  bool modelled = false;      // the others report NOT_SUPPORTED
  bool deterministic = true;  // cudnn_cnn's enum comments: BWD_DATA_ALGO_0, BWD_FILTER_ALGO_0/3 are not
  size_t workspace = 0;       // bytes the call needs (and writes, all of it)
  double cost = 0;            // a notional run time in ms, for the search's order
  // Bytes the data operands' addresses must be multiples of (0: their element size). The
  // reference documents CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER without saying which
  // engines need what; the model makes IMPLICIT_PRECOMP_GEMM read 16-byte vectors, so a
  // caller that reuses an algorithm found on aligned buffers for a narrowed view fails here
  // as it can on a GPU.
  size_t operand_alignment = 0;
};
/// Whether a, b and out meet the algorithm's operand alignment.
bool operands_aligned(const ConvAlgorithm& info, const void* a, const void* b, const void* out);
ConvAlgorithm conv_algorithm(ConvDirection dir, int algo, const ConvProblem& p);
/// The number of algorithm enumerants of a direction (*_ALGO_COUNT).
int conv_algorithm_count(ConvDirection dir);

/// The workspace check of a compute call: a size below what the algorithm needs is
/// refused (BAD_PARAM; the reference lists no status for it, the strict choice); the
/// needed bytes must be device memory aligned to 16 bytes (check_pointer).
cudnnStatus_t check_workspace(cudnnHandle_t handle, const void* workspace, size_t given, size_t needed);

/// Queues the direction's host math on the handle's stream: out = alpha * result +
/// beta * out (beta == 0 does not read out), writing the whole `workspace_bytes` first as
/// the algorithm's scratch. `a` and `b` are the inputs in call order: (x, w) forward,
/// (w, dy) backward data, (x, dy) backward filter.
void enqueue_convolution(cudnnHandle_t handle, ConvDirection dir, const ConvProblem& p, const void* a,
                         const void* b, void* out, double alpha, double beta, void* workspace,
                         size_t workspace_bytes);

/// The pointer checks of a call on p: the two inputs and the output, by their element
/// counts (check_pointer: null, misaligned, not the handle's device memory).
cudnnStatus_t check_conv_pointers(cudnnHandle_t handle, ConvDirection dir, const ConvProblem& p,
                                  const void* a, const void* b, const void* out);

}  // namespace ember::emulation::dnn
