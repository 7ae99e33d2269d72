// conv2d forward, backward data, backward filter and bias through cuDNN (legacy API, see
// cudnn_util.h). Algorithms are chosen once per problem (cudnnFind*AlgorithmEx on the real
// buffers, with a workspace from the caching allocator) and cached; without TF32 only FMA
// kernels are accepted for float32, and the deterministic switch keeps only deterministic
// algorithms.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "ember/kernels/cuda/conv_algo_cache.h"
#include "ember/kernels/cuda/cuda_allocator.h"
#include "ember/kernels/cuda/cuda_backend.h"
#include "ember/kernels/cuda/cudnn_util.h"

namespace ember {
namespace {

using cuda_detail::ConvChoice;
using cuda_detail::ConvDirection;
using cuda_detail::ConvKey;

// The most workspace an algorithm search may use; larger algorithms are skipped.
constexpr size_t kMaxWorkspace = size_t(1) << 30;

struct Nchw {
  int64_t n, c, h, w;
};
Nchw nchw(const Tensor& t) {
  if (t.dim() == 4) return {t.size(0), t.size(1), t.size(2), t.size(3)};
  if (t.dim() == 3) return {1, t.size(0), t.size(1), t.size(2)};
  raise<ShapeError>("conv2d: expected a 3-D or 4-D tensor on cuda, got shape ", shape_str(t.shape()));
}

cuda_detail::ConvAlgoCache& algo_cache() {
  static cuda_detail::ConvAlgoCache cache;
  return cache;
}

// The descriptors of one convolution problem: x [N, C, H, W], w [K, C, R, S], y [N, K, P, Q].
struct Problem {
  DType dtype;
  int dev;
  Nchw x, y;
  int64_t k, r, s;
  Conv2dParams p;
  cuda_detail::TensorDesc xd, yd;
  cuda_detail::FilterDesc wd;
  cuda_detail::ConvDesc cd;

  Problem(const Tensor& input, const Tensor& weight, const Tensor& output, const Conv2dParams& params)
      : dtype(input.dtype()),
        dev(input.device().index),
        x(nchw(input)),
        y(nchw(output)),
        k(weight.size(0)),
        r(weight.size(2)),
        s(weight.size(3)),
        p(params),
        xd(dtype, x.n, x.c, x.h, x.w, "conv2d"),
        yd(dtype, y.n, y.c, y.h, y.w, "conv2d"),
        wd(dtype, k, x.c, r, s, "conv2d") {
    using cuda_detail::to_int;
    EMBER_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
        cd.d, to_int(p.pad_h, "conv2d"), to_int(p.pad_w, "conv2d"), to_int(p.stride_h, "conv2d"),
        to_int(p.stride_w, "conv2d"), to_int(p.dilation_h, "conv2d"), to_int(p.dilation_w, "conv2d"),
        CUDNN_CROSS_CORRELATION, cuda_detail::cudnn_dtype(dtype, "conv2d")));
    EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(cd.d, base_math()));
  }

  bool tf32() const { return dtype == kFloat32 && backend_settings().allow_tf32; }
  // FMA_MATH never uses tensor cores, so float32 stays full precision; DEFAULT_MATH lets
  // cuDNN use TF32 on Ampere and later.
  cudnnMathType_t base_math() const { return tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH; }

  ConvKey key(ConvDirection dir, int alignment) const {
    ConvKey key;
    key.alignment = alignment;
    key.direction = dir;
    key.device = dev;
    key.dtype = static_cast<int>(dtype);
    key.n = x.n;
    key.c = x.c;
    key.h = x.h;
    key.w = x.w;
    key.k = k;
    key.r = r;
    key.s = s;
    key.stride_h = p.stride_h;
    key.stride_w = p.stride_w;
    key.pad_h = p.pad_h;
    key.pad_w = p.pad_w;
    key.dilation_h = p.dilation_h;
    key.dilation_w = p.dilation_w;
    key.tf32 = tf32();
    key.deterministic = backend_settings().deterministic;
    return key;
  }

  // Whether a measured or suggested algorithm may be used under the current switches.
  template <class Perf>
  bool acceptable(const Perf& perf, size_t workspace) const {
    if (perf.status != CUDNN_STATUS_SUCCESS || perf.memory > workspace) return false;
    if (backend_settings().deterministic && perf.determinism != CUDNN_DETERMINISTIC) return false;
    if (!tf32() && dtype == kFloat32 && perf.mathType != CUDNN_FMA_MATH) return false;
    return true;
  }

  // The workspace for a search: what the heuristics' candidates ask for, within the cap,
  // and less (down to none) when the device cannot spare it.
  template <class Perf>
  cuda_detail::DeviceBuffer search_workspace(const std::vector<Perf>& suggested, int n) const {
    size_t want = 0;
    for (int i = 0; i < n; ++i)
      if (suggested[static_cast<size_t>(i)].status == CUDNN_STATUS_SUCCESS &&
          suggested[static_cast<size_t>(i)].memory <= kMaxWorkspace)
        want = std::max(want, suggested[static_cast<size_t>(i)].memory);
    while (want > 0) {
      try {
        return cuda_detail::DeviceBuffer(dev, want);
      } catch (const OutOfMemoryError&) {
        want /= 2;
      }
    }
    return cuda_detail::DeviceBuffer();
  }

  // Picks from the search's results (fastest first), then from the heuristics' list; none
  // when neither has one the switches accept (the caller then takes the fallback).
  template <class Perf>
  std::optional<ConvChoice> pick(const std::vector<Perf>& found, int n_found,
                                 const std::vector<Perf>& suggested, int n_suggested,
                                 size_t workspace) const {
    for (const auto& [list, n] : {std::pair{&found, n_found}, std::pair{&suggested, n_suggested}})
      for (int i = 0; i < n; ++i) {
        const Perf& perf = (*list)[static_cast<size_t>(i)];
        if (acceptable(perf, workspace))
          return ConvChoice{static_cast<int>(perf.algo), static_cast<int>(perf.mathType), perf.memory};
      }
    return std::nullopt;
  }

  // Runs fn(workspace, size) with choice's math type and a workspace of its size.
  template <class Run>
  void run_with(const ConvChoice& c, const Run& fn) const {
    EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(cd.d, static_cast<cudnnMathType_t>(c.math_type)));
    cuda_detail::DeviceBuffer ws(dev, c.workspace);
    fn(ws.get(), ws.size());
  }
};

// The cuDNN calls of one direction, for the shared search in choose(). Buffers are the
// real tensors: the search writes the direction's output, which the real call overwrites.
struct Buffers {
  void* x;
  void* w;
  void* y;
};

struct Forward {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  static constexpr ConvDirection kDirection = ConvDirection::Forward;
  static constexpr int kCount = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  static constexpr int kFallback = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;  // any problem, no workspace
  static void heuristics(cudnnHandle_t h, const Problem& pr, int* n, Perf* perf) {
    EMBER_CUDNN_CHECK(
        cudnnGetConvolutionForwardAlgorithm_v7(h, pr.xd.d, pr.wd.d, pr.cd.d, pr.yd.d, kCount, n, perf));
  }
  static void find(cudnnHandle_t h, const Problem& pr, const Buffers& b, int* n, Perf* perf,
                   cuda_detail::DeviceBuffer& ws) {
    EMBER_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(h, pr.xd.d, b.x, pr.wd.d, b.w, pr.cd.d, pr.yd.d,
                                                             b.y, kCount, n, perf, ws.get(), ws.size()));
  }
  static size_t workspace(cudnnHandle_t h, const Problem& pr, int algo) {
    size_t size = 0;
    EMBER_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(
        h, pr.xd.d, pr.wd.d, pr.cd.d, pr.yd.d, static_cast<cudnnConvolutionFwdAlgo_t>(algo), &size));
    return size;
  }
};

struct BackwardData {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  static constexpr ConvDirection kDirection = ConvDirection::BackwardData;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  static constexpr int kFallback = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;  // deterministic, any problem
  static void heuristics(cudnnHandle_t h, const Problem& pr, int* n, Perf* perf) {
    EMBER_CUDNN_CHECK(
        cudnnGetConvolutionBackwardDataAlgorithm_v7(h, pr.wd.d, pr.yd.d, pr.cd.d, pr.xd.d, kCount, n, perf));
  }
  static void find(cudnnHandle_t h, const Problem& pr, const Buffers& b, int* n, Perf* perf,
                   cuda_detail::DeviceBuffer& ws) {
    EMBER_CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(
        h, pr.wd.d, b.w, pr.yd.d, b.y, pr.cd.d, pr.xd.d, b.x, kCount, n, perf, ws.get(), ws.size()));
  }
  static size_t workspace(cudnnHandle_t h, const Problem& pr, int algo) {
    size_t size = 0;
    EMBER_CUDNN_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(
        h, pr.wd.d, pr.yd.d, pr.cd.d, pr.xd.d, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &size));
    return size;
  }
};

struct BackwardFilter {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  static constexpr ConvDirection kDirection = ConvDirection::BackwardFilter;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  static constexpr int kFallback = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;  // deterministic, any problem
  static void heuristics(cudnnHandle_t h, const Problem& pr, int* n, Perf* perf) {
    EMBER_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, pr.xd.d, pr.yd.d, pr.cd.d, pr.wd.d,
                                                                    kCount, n, perf));
  }
  static void find(cudnnHandle_t h, const Problem& pr, const Buffers& b, int* n, Perf* perf,
                   cuda_detail::DeviceBuffer& ws) {
    EMBER_CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(
        h, pr.xd.d, b.x, pr.yd.d, b.y, pr.cd.d, pr.wd.d, b.w, kCount, n, perf, ws.get(), ws.size()));
  }
  static size_t workspace(cudnnHandle_t h, const Problem& pr, int algo) {
    size_t size = 0;
    EMBER_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(
        h, pr.xd.d, pr.yd.d, pr.cd.d, pr.wd.d, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), &size));
    return size;
  }
};

// The algorithm for pr in direction D: cached, or searched once and then cached.
template <class D>
ConvChoice choose(cudnnHandle_t h, const Problem& pr, const Buffers& b) {
  const ConvKey key = pr.key(D::kDirection, cuda_detail::operand_alignment({b.x, b.w, b.y}));
  if (std::optional<ConvChoice> cached = algo_cache().find(key)) return *cached;
  std::vector<typename D::Perf> suggested(D::kCount), found(D::kCount);
  int n_suggested = 0, n_found = 0;
  D::heuristics(h, pr, &n_suggested, suggested.data());
  size_t searched_with = 0;
  {
    cuda_detail::DeviceBuffer ws = pr.search_workspace(suggested, n_suggested);
    D::find(h, pr, b, &n_found, found.data(), ws);
    searched_with = ws.size();
  }
  EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(pr.cd.d, CUDNN_FMA_MATH));
  // The fallback's workspace is asked for only when it is the one used.
  std::optional<ConvChoice> picked = pr.pick(found, n_found, suggested, n_suggested, searched_with);
  const ConvChoice choice =
      picked ? *picked
             : ConvChoice{D::kFallback, static_cast<int>(CUDNN_FMA_MATH), D::workspace(h, pr, D::kFallback)};
  algo_cache().insert(key, choice);
  return choice;
}

}  // namespace

void CudaBackend::conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                         const Conv2dParams& p) {
  if (out.numel() == 0) return;
  const int dev = out.device().index;
  CudaDeviceGuard guard(dev);
  cudnnHandle_t h = cuda_detail::cudnn(dev);
  Problem pr(input, weight, out, p);
  const ConvChoice choice = choose<Forward>(h, pr, {input.raw_data(), weight.raw_data(), out.raw_data()});
  const cuda_detail::Scaling one(1.0), zero(0.0);
  pr.run_with(choice, [&](void* ws, size_t ws_size) {
    EMBER_CUDNN_CHECK(cudnnConvolutionForward(h, one.get(pr.dtype), pr.xd.d, input.raw_data(), pr.wd.d,
                                              weight.raw_data(), pr.cd.d,
                                              static_cast<cudnnConvolutionFwdAlgo_t>(choice.algo), ws,
                                              ws_size, zero.get(pr.dtype), pr.yd.d, out.raw_data()));
  });
  if (bias.defined()) {
    const Tensor b = contiguous(bias);
    cuda_detail::TensorDesc bd(pr.dtype, 1, pr.y.c, 1, 1, "conv2d");
    EMBER_CUDNN_CHECK(
        cudnnAddTensor(h, one.get(pr.dtype), bd.d, b.raw_data(), one.get(pr.dtype), pr.yd.d, out.raw_data()));
  }
}

void CudaBackend::conv2d_backward_input(const Tensor& grad_input, const Tensor& grad_out,
                                        const Tensor& weight, const Conv2dParams& p) {
  if (grad_input.numel() == 0) return;
  const int dev = grad_input.device().index;
  CudaDeviceGuard guard(dev);
  if (grad_out.numel() == 0 || weight.numel() == 0) {
    fill(grad_input, 0.0);
    return;
  }
  cudnnHandle_t h = cuda_detail::cudnn(dev);
  Problem pr(grad_input, weight, grad_out, p);
  const ConvChoice choice =
      choose<BackwardData>(h, pr, {grad_input.raw_data(), weight.raw_data(), grad_out.raw_data()});
  const cuda_detail::Scaling one(1.0), zero(0.0);
  pr.run_with(choice, [&](void* ws, size_t ws_size) {
    EMBER_CUDNN_CHECK(cudnnConvolutionBackwardData(
        h, one.get(pr.dtype), pr.wd.d, weight.raw_data(), pr.yd.d, grad_out.raw_data(), pr.cd.d,
        static_cast<cudnnConvolutionBwdDataAlgo_t>(choice.algo), ws, ws_size, zero.get(pr.dtype), pr.xd.d,
        grad_input.raw_data()));
  });
}

void CudaBackend::conv2d_backward_weight(const Tensor& grad_weight, const Tensor& grad_bias,
                                         const Tensor& grad_out, const Tensor& input, const Conv2dParams& p) {
  const int dev = grad_weight.device().index;
  CudaDeviceGuard guard(dev);
  if (grad_out.numel() == 0 || input.numel() == 0) {
    if (grad_weight.numel()) fill(grad_weight, 0.0);
    if (grad_bias.defined() && grad_bias.numel()) fill(grad_bias, 0.0);
    return;
  }
  cudnnHandle_t h = cuda_detail::cudnn(dev);
  Problem pr(input, grad_weight, grad_out, p);
  const cuda_detail::Scaling one(1.0), zero(0.0);
  if (grad_weight.numel()) {
    const ConvChoice choice =
        choose<BackwardFilter>(h, pr, {input.raw_data(), grad_weight.raw_data(), grad_out.raw_data()});
    pr.run_with(choice, [&](void* ws, size_t ws_size) {
      EMBER_CUDNN_CHECK(cudnnConvolutionBackwardFilter(
          h, one.get(pr.dtype), pr.xd.d, input.raw_data(), pr.yd.d, grad_out.raw_data(), pr.cd.d,
          static_cast<cudnnConvolutionBwdFilterAlgo_t>(choice.algo), ws, ws_size, zero.get(pr.dtype), pr.wd.d,
          grad_weight.raw_data()));
    });
  }
  if (grad_bias.defined() && grad_bias.numel()) {
    cuda_detail::TensorDesc bd(pr.dtype, 1, pr.y.c, 1, 1, "conv2d");
    EMBER_CUDNN_CHECK(cudnnConvolutionBackwardBias(h, one.get(pr.dtype), pr.yd.d, grad_out.raw_data(),
                                                   zero.get(pr.dtype), bd.d, grad_bias.raw_data()));
  }
}

}  // namespace ember
