// The emulated cuDNN convolution, bias and tensor-addition models called directly, against
// Ember's float64 CPU conv2d and its autograd (never Ember's CUDA ops): pads, strides,
// dilations, both modes, alpha/beta blending, the algorithm queries, the documented error
// statuses, the workspace contract and deferred streams.
#include <gtest/gtest.h>

#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "emulation_support.h"

using namespace ember;
using ember::test::ClearEmulatorErrors;
using ember::test::DeviceArray;

namespace {

// ---- RAII for the handle and descriptors

struct Handle {
  cudnnHandle_t h = nullptr;
  Handle() { EXPECT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS); }
  ~Handle() { cudnnDestroy(h); }
};

struct TensorD {
  cudnnTensorDescriptor_t d = nullptr;
  TensorD(cudnnDataType_t t, int n, int c, int h, int w) {
    EXPECT_EQ(cudnnCreateTensorDescriptor(&d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, t, n, c, h, w), CUDNN_STATUS_SUCCESS);
  }
  ~TensorD() { cudnnDestroyTensorDescriptor(d); }
};

struct FilterD {
  cudnnFilterDescriptor_t d = nullptr;
  FilterD(cudnnDataType_t t, int k, int c, int h, int w) {
    EXPECT_EQ(cudnnCreateFilterDescriptor(&d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetFilter4dDescriptor(d, t, CUDNN_TENSOR_NCHW, k, c, h, w), CUDNN_STATUS_SUCCESS);
  }
  ~FilterD() { cudnnDestroyFilterDescriptor(d); }
};

// A problem's shape: x [n, c, h, w], w [k, c, r, s], pads, strides, dilations.
struct Geometry {
  int n = 2, c = 3, h = 7, w = 6, k = 4, r = 3, s = 2;
  int pad_h = 1, pad_w = 0, u = 2, v = 1, dil_h = 1, dil_w = 2;
  int p() const { return 1 + (h + 2 * pad_h - ((r - 1) * dil_h + 1)) / u; }
  int q() const { return 1 + (w + 2 * pad_w - ((s - 1) * dil_w + 1)) / v; }
  size_t nx() const { return size_t(n) * c * h * w; }
  size_t nw() const { return size_t(k) * c * r * s; }
  size_t ny() const { return size_t(n) * k * p() * q(); }
};

struct ConvD {
  cudnnConvolutionDescriptor_t d = nullptr;
  ConvD(const Geometry& g, cudnnConvolutionMode_t mode, cudnnDataType_t compute,
        cudnnMathType_t math = CUDNN_FMA_MATH) {
    EXPECT_EQ(cudnnCreateConvolutionDescriptor(&d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetConvolution2dDescriptor(d, g.pad_h, g.pad_w, g.u, g.v, g.dil_h, g.dil_w, mode, compute),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetConvolutionMathType(d, math), CUDNN_STATUS_SUCCESS);
  }
  ~ConvD() { cudnnDestroyConvolutionDescriptor(d); }
};

// The descriptors of one problem, all of type t.
struct Descs {
  TensorD x, y;
  FilterD w;
  ConvD conv;
  Descs(const Geometry& g, cudnnDataType_t t, cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION,
        cudnnMathType_t math = CUDNN_FMA_MATH)
      : x(t, g.n, g.c, g.h, g.w),
        y(t, g.n, g.k, g.p(), g.q()),
        w(t, g.k, g.c, g.r, g.s),
        conv(g, mode, t, math) {}
};

// Reproducible values in [-1, 1).
std::vector<double> values(size_t n, unsigned seed) {
  std::vector<double> v(n);
  unsigned state = seed * 2654435761u + 1;
  for (double& x : v) {
    state = state * 1664525u + 1013904223u;
    x = double(state >> 8) / double(1u << 24) * 2 - 1;
  }
  return v;
}

template <class T>
void upload(const DeviceArray<T>& dst, const std::vector<double>& v) {
  std::vector<T> host(v.begin(), v.end());
  ASSERT_EQ(cudaMemcpyAsync(dst.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
            cudaSuccess);
}

// w [k, c, r, s] flipped in r and s: CUDNN_CONVOLUTION mode is cross-correlation with it.
std::vector<double> flipped(const Geometry& g, const std::vector<double>& w) {
  std::vector<double> out(w.size());
  for (int k = 0; k < g.k * g.c; ++k)
    for (int r = 0; r < g.r; ++r)
      for (int s = 0; s < g.s; ++s)
        out[(size_t(k) * g.r + r) * g.s + s] = w[(size_t(k) * g.r + (g.r - 1 - r)) * g.s + (g.s - 1 - s)];
  return out;
}

Tensor cpu_tensor(std::vector<double> v, const Shape& shape) {
  return from_blob(v.data(), shape, TensorOptions().dtype(kFloat64)).clone();
}

// y = conv(x, w), dx and dw for dy, by Ember's float64 CPU conv2d and autograd.
struct Reference {
  std::vector<double> y, dx, dw;
};
Reference reference(const Geometry& g, const std::vector<double>& x, const std::vector<double>& w,
                    const std::vector<double>& dy, cudnnConvolutionMode_t mode) {
  const bool flip = mode == CUDNN_CONVOLUTION;
  Tensor X = cpu_tensor(x, {g.n, g.c, g.h, g.w}).requires_grad_();
  Tensor W = cpu_tensor(flip ? flipped(g, w) : w, {g.k, g.c, g.r, g.s}).requires_grad_();
  Tensor Y = conv2d(X, W, Tensor(), IntPair(g.u, g.v), IntPair(g.pad_h, g.pad_w), IntPair(g.dil_h, g.dil_w));
  Y.backward(cpu_tensor(dy, {g.n, g.k, g.p(), g.q()}));
  Reference r{Y.contiguous().to_vector<double>(), X.grad().to_vector<double>(), W.grad().to_vector<double>()};
  if (flip) r.dw = flipped(g, r.dw);
  return r;
}

// Every value within tol of alpha * want + beta * prior.
template <class T>
void expect_blend(const std::vector<T>& got, const std::vector<double>& want, double alpha, double beta,
                  const std::vector<double>& prior, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const double expected = alpha * want[i] + (beta == 0 ? 0 : beta * prior[i]);
    ASSERT_NEAR(double(got[i]), expected, tol * (1 + std::fabs(expected))) << what << " at " << i;
  }
}

size_t workspace_of(const Handle& h, const Descs& d, cudnnConvolutionFwdAlgo_t algo) {
  size_t size = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h.h, d.x.d, d.w.d, d.conv.d, d.y.d, algo, &size),
            CUDNN_STATUS_SUCCESS);
  return size;
}

// One problem's buffers, filled: x, w, dy, and outputs y, dx, dw preset to `prior`.
template <class T>
struct Buffers {
  Geometry g;
  std::vector<double> x, w, dy, y0, dx0, dw0;
  DeviceArray<T> dx_, dw_, ddy, dy_out, dx_out, dw_out;
  explicit Buffers(const Geometry& geo)
      : g(geo),
        x(values(g.nx(), 1)),
        w(values(g.nw(), 2)),
        dy(values(g.ny(), 3)),
        y0(values(g.ny(), 4)),
        dx0(values(g.nx(), 5)),
        dw0(values(g.nw(), 6)),
        dx_(g.nx()),
        dw_(g.nw()),
        ddy(g.ny()),
        dy_out(g.ny()),
        dx_out(g.nx()),
        dw_out(g.nw()) {
    upload(dx_, x);
    upload(dw_, w);
    upload(ddy, dy);
    upload(dy_out, y0);
    upload(dx_out, dx0);
    upload(dw_out, dw0);
  }
};

// Runs the three directions with algorithm 0..needed and (alpha, beta), checks them.
template <class T>
void check_directions(const Geometry& g, cudnnDataType_t t, cudnnConvolutionMode_t mode, double alpha,
                      double beta, double tol) {
  Handle h;
  Descs d(g, t, mode);
  Buffers<T> b(g);
  const Reference ref = reference(g, b.x, b.w, b.dy, mode);
  const T a = T(alpha), be = T(beta);
  // An algorithm with a workspace in each direction, so the workspace path is exercised.
  size_t ws_fwd = 0, ws_data = 0, ws_filter = 0;
  ASSERT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h.h, d.x.d, d.w.d, d.conv.d, d.y.d,
                                                    CUDNN_CONVOLUTION_FWD_ALGO_GEMM, &ws_fwd),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetConvolutionBackwardDataWorkspaceSize(h.h, d.w.d, d.y.d, d.conv.d, d.x.d,
                                                         CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, &ws_data),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetConvolutionBackwardFilterWorkspaceSize(h.h, d.x.d, d.y.d, d.conv.d, d.w.d,
                                                           CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3, &ws_filter),
            CUDNN_STATUS_SUCCESS);
  EXPECT_GT(ws_fwd, 0u);
  EXPECT_GT(ws_data, 0u);
  EXPECT_GT(ws_filter, 0u);
  DeviceArray<unsigned char> ws(std::max({ws_fwd, ws_data, ws_filter}));
  EXPECT_EQ(
      cudnnConvolutionForward(h.h, &a, d.x.d, b.dx_.get(), d.w.d, b.dw_.get(), d.conv.d,
                              CUDNN_CONVOLUTION_FWD_ALGO_GEMM, ws.get(), ws_fwd, &be, d.y.d, b.dy_out.get()),
      CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnConvolutionBackwardData(h.h, &a, d.w.d, b.dw_.get(), d.y.d, b.ddy.get(), d.conv.d,
                                         CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, ws.get(), ws_data, &be, d.x.d,
                                         b.dx_out.get()),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnConvolutionBackwardFilter(h.h, &a, d.x.d, b.dx_.get(), d.y.d, b.ddy.get(), d.conv.d,
                                           CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3, ws.get(), ws_filter, &be,
                                           d.w.d, b.dw_out.get()),
            CUDNN_STATUS_SUCCESS);
  expect_blend(b.dy_out.host(), ref.y, alpha, beta, b.y0, tol, "forward");
  expect_blend(b.dx_out.host(), ref.dx, alpha, beta, b.dx0, tol, "backward data");
  expect_blend(b.dw_out.host(), ref.dw, alpha, beta, b.dw0, tol, "backward filter");
}

}  // namespace

// ---- the math

TEST(CudnnConvModel, CrossCorrelationWithPadsStridesDilationsMatchesTheCpu) {
  check_directions<float>(Geometry{}, CUDNN_DATA_FLOAT, CUDNN_CROSS_CORRELATION, 1.0, 0.0, 1e-5);
  check_directions<double>(Geometry{}, CUDNN_DATA_DOUBLE, CUDNN_CROSS_CORRELATION, 1.0, 0.0, 1e-12);
}

TEST(CudnnConvModel, ConvolutionModeFlipsTheFilter) {
  Geometry g;
  g.pad_w = 1, g.u = 1, g.v = 2, g.dil_h = 2, g.dil_w = 1;
  check_directions<double>(g, CUDNN_DATA_DOUBLE, CUDNN_CONVOLUTION, 1.0, 0.0, 1e-12);
  check_directions<float>(g, CUDNN_DATA_FLOAT, CUDNN_CONVOLUTION, 1.0, 0.0, 1e-5);
}

TEST(CudnnConvModel, AlphaAndBetaBlendWithTheOutput) {
  check_directions<double>(Geometry{}, CUDNN_DATA_DOUBLE, CUDNN_CROSS_CORRELATION, 0.5, -2.0, 1e-12);
  check_directions<float>(Geometry{}, CUDNN_DATA_FLOAT, CUDNN_CROSS_CORRELATION, 2.0, 0.25, 1e-5);
}

TEST(CudnnConvModel, BetaZeroDoesNotReadTheOutput) {
  const Geometry g;
  Handle h;
  Descs d(g, CUDNN_DATA_FLOAT);
  Buffers<float> b(g);
  const Reference ref = reference(g, b.x, b.w, b.dy, CUDNN_CROSS_CORRELATION);
  const std::vector<double> nan(g.ny(), std::numeric_limits<double>::quiet_NaN());
  upload(b.dy_out, nan);
  const float one = 1, zero = 0;
  ASSERT_EQ(cudnnConvolutionForward(h.h, &one, d.x.d, b.dx_.get(), d.w.d, b.dw_.get(), d.conv.d,
                                    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &zero, d.y.d,
                                    b.dy_out.get()),
            CUDNN_STATUS_SUCCESS);
  expect_blend(b.dy_out.host(), ref.y, 1.0, 0.0, nan, 1e-5, "forward over NaN");
}

TEST(CudnnConvModel, OneByOneFilterOnASingleImageIsAChannelMix) {
  Geometry g;
  g.n = 1, g.c = 2, g.h = 2, g.w = 2, g.k = 1, g.r = 1, g.s = 1, g.pad_h = 0, g.pad_w = 0, g.u = 1, g.v = 1,
  g.dil_h = 1, g.dil_w = 1;
  Handle h;
  Descs d(g, CUDNN_DATA_FLOAT);
  DeviceArray<float> x(4 * 2), w(2), y(4);
  upload(x, {1, 2, 3, 4, 10, 20, 30, 40});
  upload(w, {1, -1});
  const float one = 1, zero = 0;
  ASSERT_EQ(
      cudnnConvolutionForward(h.h, &one, d.x.d, x.get(), d.w.d, w.get(), d.conv.d,
                              CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &zero, d.y.d, y.get()),
      CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(y.host(), (std::vector<float>{-9, -18, -27, -36}));
}

// ---- the algorithm queries

TEST(CudnnConvModel, HeuristicsListEveryAlgorithmWithWorkspaceDeterminismAndMathType) {
  const Geometry g;
  Handle h;
  for (cudnnMathType_t math : {CUDNN_FMA_MATH, CUDNN_DEFAULT_MATH}) {
    Descs d(g, CUDNN_DATA_FLOAT, CUDNN_CROSS_CORRELATION, math);
    std::vector<cudnnConvolutionFwdAlgoPerf_t> fwd(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
    int n = 0;
    ASSERT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(h.h, d.x.d, d.w.d, d.conv.d, d.y.d,
                                                     CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, fwd.data()),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(n, CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
    int usable = 0;
    for (int i = 0; i < n; ++i) {
      const auto& perf = fwd[size_t(i)];
      EXPECT_EQ(perf.mathType, math);
      if (perf.status != CUDNN_STATUS_SUCCESS) {
        EXPECT_EQ(perf.status, CUDNN_STATUS_NOT_SUPPORTED);
        continue;
      }
      EXPECT_EQ(i, usable++) << "usable algorithms come first";
      EXPECT_EQ(perf.determinism, CUDNN_DETERMINISTIC);
      EXPECT_EQ(perf.memory, workspace_of(h, d, perf.algo)) << perf.algo;
    }
    EXPECT_EQ(usable, 3);
    // Fewer requested, fewer returned.
    ASSERT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(h.h, d.x.d, d.w.d, d.conv.d, d.y.d, 2, &n, fwd.data()),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(n, 2);
    EXPECT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(h.h, d.x.d, d.w.d, d.conv.d, d.y.d, 0, &n, fwd.data()),
              CUDNN_STATUS_BAD_PARAM);
  }
  Descs d(g, CUDNN_DATA_FLOAT);
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> data(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> filter(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  int nd = 0, nf = 0;
  ASSERT_EQ(cudnnGetConvolutionBackwardDataAlgorithm_v7(
                h.h, d.w.d, d.y.d, d.conv.d, d.x.d, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &nd, data.data()),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(
      cudnnGetConvolutionBackwardFilterAlgorithm_v7(
          h.h, d.x.d, d.y.d, d.conv.d, d.w.d, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &nf, filter.data()),
      CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(nd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  EXPECT_EQ(nf, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  // The enum comments: BWD_DATA_ALGO_0 and BWD_FILTER_ALGO_0 / _3 are non-deterministic.
  for (int i = 0; i < nd; ++i) {
    const auto& perf = data[size_t(i)];
    if (perf.status != CUDNN_STATUS_SUCCESS) continue;
    EXPECT_EQ(perf.determinism == CUDNN_NON_DETERMINISTIC, perf.algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0);
    size_t size = 1;
    EXPECT_EQ(
        cudnnGetConvolutionBackwardDataWorkspaceSize(h.h, d.w.d, d.y.d, d.conv.d, d.x.d, perf.algo, &size),
        CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(perf.memory, size);
  }
  for (int i = 0; i < nf; ++i) {
    const auto& perf = filter[size_t(i)];
    if (perf.status != CUDNN_STATUS_SUCCESS) continue;
    EXPECT_EQ(perf.determinism == CUDNN_NON_DETERMINISTIC, perf.algo != CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1);
    size_t size = 1;
    EXPECT_EQ(
        cudnnGetConvolutionBackwardFilterWorkspaceSize(h.h, d.x.d, d.y.d, d.conv.d, d.w.d, perf.algo, &size),
        CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(perf.memory, size);
  }
  size_t size = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h.h, d.x.d, d.w.d, d.conv.d, d.y.d,
                                                    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &size),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h.h, d.x.d, d.w.d, d.conv.d, d.y.d,
                                                    static_cast<cudnnConvolutionFwdAlgo_t>(4), &size),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h.h, d.x.d, d.w.d, d.conv.d, d.y.d,
                                                    CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &size),
            CUDNN_STATUS_BAD_PARAM);
}

TEST(CudnnConvModel, FindRunsOnTheBuffersSortedByTimeAndRefusesAlgorithmsBeyondTheWorkspace) {
  const Geometry g;
  Handle h;
  Descs d(g, CUDNN_DATA_DOUBLE);
  Buffers<double> b(g);
  const Reference ref = reference(g, b.x, b.w, b.dy, CUDNN_CROSS_CORRELATION);
  const size_t gemm = workspace_of(h, d, CUDNN_CONVOLUTION_FWD_ALGO_GEMM);
  const size_t precomp = workspace_of(h, d, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
  ASSERT_LT(precomp, gemm);
  // A workspace for the precomputed-offsets algorithm, not for GEMM.
  DeviceArray<unsigned char> ws(precomp);
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  int n = 0;
  ASSERT_EQ(cudnnFindConvolutionForwardAlgorithmEx(h.h, d.x.d, b.dx_.get(), d.w.d, b.dw_.get(), d.conv.d,
                                                   d.y.d, b.dy_out.get(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                   &n, perf.data(), ws.get(), precomp),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(n, CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  int succeeded = 0;
  for (int i = 0; i < n; ++i) {
    const auto& p = perf[size_t(i)];
    if (p.status == CUDNN_STATUS_SUCCESS) {
      EXPECT_EQ(i, succeeded++);
      EXPECT_GE(p.time, 0.0f);
      if (i > 0) {
        EXPECT_LE(perf[size_t(i) - 1].time, p.time);
      }
      EXPECT_LE(p.memory, precomp);
    } else if (p.algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM) {
      EXPECT_EQ(p.status, CUDNN_STATUS_ALLOC_FAILED);
      EXPECT_EQ(p.memory, gemm);
    } else {
      EXPECT_EQ(p.status, CUDNN_STATUS_NOT_SUPPORTED);
    }
  }
  EXPECT_EQ(succeeded, 2);
  // The search wrote the convolution into y.
  expect_blend(b.dy_out.host(), ref.y, 1.0, 0.0, b.y0, 1e-12, "the search's y");

  // Backward searches with no workspace: only the algorithms that need none succeed.
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> data(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  ASSERT_EQ(cudnnFindConvolutionBackwardDataAlgorithmEx(
                h.h, d.w.d, b.dw_.get(), d.y.d, b.ddy.get(), d.conv.d, d.x.d, b.dx_out.get(),
                CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, data.data(), nullptr, 0),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(data[0].status, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(data[0].algo, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0);
  EXPECT_EQ(data[1].status, CUDNN_STATUS_ALLOC_FAILED);
  expect_blend(b.dx_out.host(), ref.dx, 1.0, 0.0, b.dx0, 1e-12, "the search's dx");
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> filter(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  ASSERT_EQ(
      cudnnFindConvolutionBackwardFilterAlgorithmEx(h.h, d.x.d, b.dx_.get(), d.y.d, b.ddy.get(), d.conv.d,
                                                    d.w.d, b.dw_out.get(), 1, &n, filter.data(), nullptr, 0),
      CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(filter[0].algo, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0);
  expect_blend(b.dw_out.host(), ref.dw, 1.0, 0.0, b.dw0, 1e-12, "the search's dw");
}

// ---- the documented errors

TEST(CudnnConvModel, DescriptorsThatDoNotAgreeAreRefused) {
  const Geometry g;
  Handle h;
  Descs d(g, CUDNN_DATA_FLOAT);
  DeviceArray<float> x(g.nx()), w(g.nw()), y(g.ny() * 4);
  const float one = 1, zero = 0;
  auto forward = [&](cudnnTensorDescriptor_t xd, cudnnFilterDescriptor_t wd, cudnnConvolutionDescriptor_t cd,
                     cudnnTensorDescriptor_t yd) {
    return cudnnConvolutionForward(h.h, &one, xd, x.get(), wd, w.get(), cd,
                                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &zero, yd, y.get());
  };
  // cudnnConvolutionForward: y's spatial sizes not those of the output-dimension formula:
  // NOT_SUPPORTED; backward data: BAD_PARAM.
  TensorD wrong_y(CUDNN_DATA_FLOAT, g.n, g.k, g.p() + 1, g.q());
  EXPECT_EQ(forward(d.x.d, d.w.d, d.conv.d, wrong_y.d), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(
      cudnnConvolutionBackwardData(h.h, &one, d.w.d, w.get(), wrong_y.d, y.get(), d.conv.d,
                                   CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, nullptr, 0, &zero, d.x.d, x.get()),
      CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(
      cudnnConvolutionBackwardFilter(h.h, &one, d.x.d, x.get(), wrong_y.d, y.get(), d.conv.d,
                                     CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, nullptr, 0, &zero, d.w.d, w.get()),
      CUDNN_STATUS_BAD_PARAM);
  TensorD wrong_k(CUDNN_DATA_FLOAT, g.n, g.k + 1, g.p(), g.q());
  EXPECT_EQ(forward(d.x.d, d.w.d, d.conv.d, wrong_k.d), CUDNN_STATUS_NOT_SUPPORTED);
  // Channel counts of x and w differ: BAD_PARAM.
  FilterD wrong_c(CUDNN_DATA_FLOAT, g.k, g.c + 1, g.r, g.s);
  EXPECT_EQ(forward(d.x.d, wrong_c.d, d.conv.d, d.y.d), CUDNN_STATUS_BAD_PARAM);
  // Data types differ: BAD_PARAM; a configuration outside the tables: NOT_SUPPORTED.
  FilterD double_w(CUDNN_DATA_DOUBLE, g.k, g.c, g.r, g.s);
  EXPECT_EQ(forward(d.x.d, double_w.d, d.conv.d, d.y.d), CUDNN_STATUS_BAD_PARAM);
  ConvD double_compute(g, CUDNN_CROSS_CORRELATION, CUDNN_DATA_DOUBLE);
  EXPECT_EQ(forward(d.x.d, d.w.d, double_compute.d, d.y.d), CUDNN_STATUS_NOT_SUPPORTED);
  // A dilated filter larger than the padded input: BAD_PARAM.
  Geometry big = g;
  big.r = g.h + 2 * g.pad_h + 1;
  FilterD big_w(CUDNN_DATA_FLOAT, g.k, g.c, big.r, g.s);
  EXPECT_EQ(forward(d.x.d, big_w.d, d.conv.d, d.y.d), CUDNN_STATUS_BAD_PARAM);
  // Unset descriptors, null scales, an algorithm the model does not implement.
  cudnnTensorDescriptor_t unset = nullptr;
  ASSERT_EQ(cudnnCreateTensorDescriptor(&unset), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(forward(unset, d.w.d, d.conv.d, d.y.d), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(forward(d.x.d, d.w.d, d.conv.d, nullptr), CUDNN_STATUS_BAD_PARAM);
  cudnnDestroyTensorDescriptor(unset);
  EXPECT_EQ(
      cudnnConvolutionForward(h.h, nullptr, d.x.d, x.get(), d.w.d, w.get(), d.conv.d,
                              CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &zero, d.y.d, y.get()),
      CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
  EXPECT_EQ(
      cudnnConvolutionForward(h.h, &one, d.x.d, x.get(), d.w.d, w.get(), d.conv.d,
                              static_cast<cudnnConvolutionFwdAlgo_t>(5), nullptr, 0, &zero, d.y.d, y.get()),
      CUDNN_STATUS_NOT_SUPPORTED);
  // The queries refuse the same problems.
  int n = 0;
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  EXPECT_EQ(
      cudnnGetConvolutionForwardAlgorithm_v7(h.h, d.x.d, wrong_c.d, d.conv.d, d.y.d, 8, &n, perf.data()),
      CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithmEx(h.h, d.x.d, x.get(), d.w.d, w.get(), d.conv.d, wrong_y.d,
                                                   y.get(), 8, &n, perf.data(), nullptr, 0),
            CUDNN_STATUS_NOT_SUPPORTED);
  size_t size = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h.h, d.x.d, double_w.d, d.conv.d, d.y.d,
                                                    CUDNN_CONVOLUTION_FWD_ALGO_GEMM, &size),
            CUDNN_STATUS_BAD_PARAM);
}

TEST(CudnnConvModel, AWorkspaceSmallerThanTheAlgorithmNeedsIsRefused) {
  const Geometry g;
  Handle h;
  Descs d(g, CUDNN_DATA_FLOAT);
  DeviceArray<float> x(g.nx()), w(g.nw()), y(g.ny());
  const size_t need = workspace_of(h, d, CUDNN_CONVOLUTION_FWD_ALGO_GEMM);
  DeviceArray<unsigned char> ws(need);
  const float one = 1, zero = 0;
  EXPECT_EQ(
      cudnnConvolutionForward(h.h, &one, d.x.d, x.get(), d.w.d, w.get(), d.conv.d,
                              CUDNN_CONVOLUTION_FWD_ALGO_GEMM, ws.get(), need - 1, &zero, d.y.d, y.get()),
      CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnConvolutionForward(h.h, &one, d.x.d, x.get(), d.w.d, w.get(), d.conv.d,
                                    CUDNN_CONVOLUTION_FWD_ALGO_GEMM, nullptr, need, &zero, d.y.d, y.get()),
            CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
  EXPECT_EQ(cudnnConvolutionForward(h.h, &one, d.x.d, x.get(), d.w.d, w.get(), d.conv.d,
                                    CUDNN_CONVOLUTION_FWD_ALGO_GEMM, ws.get(), need, &zero, d.y.d, y.get()),
            CUDNN_STATUS_SUCCESS);
  // The whole declared workspace is written (the model's scratch pattern).
  const std::vector<unsigned char> scratch = ws.host();
  EXPECT_TRUE(std::all_of(scratch.begin(), scratch.end(), [](unsigned char c) { return c == 0xA5; }));
}

TEST(CudnnConvModel, AWorkspaceThatIsTooShortAnAllocationIsAStickyIllegalAddress) {
  ClearEmulatorErrors clear;
  const Geometry g;
  Handle h;
  Descs d(g, CUDNN_DATA_FLOAT);
  DeviceArray<float> x(g.nx()), w(g.nw()), y(g.ny());
  const size_t need = workspace_of(h, d, CUDNN_CONVOLUTION_FWD_ALGO_GEMM);
  DeviceArray<unsigned char> ws(need / 2);  // the caller claims more than it allocated
  const float one = 1, zero = 0;
  EXPECT_EQ(cudnnConvolutionForward(h.h, &one, d.x.d, x.get(), d.w.d, w.get(), d.conv.d,
                                    CUDNN_CONVOLUTION_FWD_ALGO_GEMM, ws.get(), need, &zero, d.y.d, y.get()),
            CUDNN_STATUS_EXECUTION_FAILED_CUDART);
  EXPECT_NE(emulation::last_fault().find("cuDNN convolution workspace"), std::string::npos)
      << emulation::last_fault();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
}

TEST(CudnnConvModel, DataPointersAreCheckedAsTheDeviceUsesThem) {
  const Geometry g;
  Handle h;
  Descs d(g, CUDNN_DATA_FLOAT);
  DeviceArray<float> x(g.nx() + 1), w(g.nw()), y(g.ny());
  const float one = 1, zero = 0;
  auto forward = [&](const void* xp, void* yp) {
    return cudnnConvolutionForward(h.h, &one, d.x.d, xp, d.w.d, w.get(), d.conv.d,
                                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &zero, d.y.d, yp);
  };
  EXPECT_EQ(forward(nullptr, y.get()), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
  EXPECT_EQ(forward(reinterpret_cast<const char*>(x.get()) + 2, y.get()),
            CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER);
  {
    ClearEmulatorErrors clear;
    static float host_y[1024];  // static: never a freed device block the heap hands out again
    ASSERT_LE(g.ny(), sizeof(host_y) / sizeof(float));
    EXPECT_EQ(forward(x.get(), host_y), CUDNN_STATUS_EXECUTION_FAILED_CUDART);
    EXPECT_NE(emulation::last_fault().find("is not device memory"), std::string::npos)
        << emulation::last_fault();
    // Sticky: the device is broken until the errors are cleared.
    EXPECT_EQ(forward(x.get(), y.get()), CUDNN_STATUS_EXECUTION_FAILED_CUDART);
  }
  EXPECT_EQ(forward(x.get(), y.get()), CUDNN_STATUS_SUCCESS);
}

// ---- bias and tensor addition

TEST(CudnnTensorOpsModel, AddTensorBroadcastsAlongDimensionsOfOne) {
  Handle h;
  TensorD bias(CUDNN_DATA_FLOAT, 1, 3, 1, 1), c(CUDNN_DATA_FLOAT, 2, 3, 2, 2),
      row(CUDNN_DATA_FLOAT, 1, 1, 1, 2);
  DeviceArray<float> b(3), r(2), out(24);
  upload(b, {1, 2, 3});
  upload(r, {10, 20});
  std::vector<double> prior(24);
  for (size_t i = 0; i < prior.size(); ++i) prior[i] = double(i);
  upload(out, prior);
  const float one = 1, half = 0.5f, zero = 0;
  ASSERT_EQ(cudnnAddTensor(h.h, &one, bias.d, b.get(), &half, c.d, out.get()), CUDNN_STATUS_SUCCESS);
  std::vector<float> want(24);
  for (size_t i = 0; i < 24; ++i) want[i] = float(0.5 * double(i) + double((i / 4) % 3 + 1));
  EXPECT_EQ(out.host(), want);
  // beta == 0 over NaN, broadcasting along n, c and h.
  upload(out, std::vector<double>(24, std::numeric_limits<double>::quiet_NaN()));
  ASSERT_EQ(cudnnAddTensor(h.h, &half, row.d, r.get(), &zero, c.d, out.get()), CUDNN_STATUS_SUCCESS);
  for (size_t i = 0; i < 24; ++i) want[i] = i % 2 ? 10.0f : 5.0f;
  EXPECT_EQ(out.host(), want);
  // Dimensions that are neither C's nor 1, or another data type: BAD_PARAM.
  TensorD two_channels(CUDNN_DATA_FLOAT, 1, 2, 1, 1), double_bias(CUDNN_DATA_DOUBLE, 1, 3, 1, 1);
  EXPECT_EQ(cudnnAddTensor(h.h, &one, two_channels.d, b.get(), &one, c.d, out.get()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h.h, &one, double_bias.d, b.get(), &one, c.d, out.get()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnAddTensor(h.h, &one, bias.d, nullptr, &one, c.d, out.get()),
            CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
}

TEST(CudnnTensorOpsModel, BackwardBiasSumsEachFeatureMap) {
  Handle h;
  TensorD dyd(CUDNN_DATA_DOUBLE, 2, 3, 2, 2), dbd(CUDNN_DATA_DOUBLE, 1, 3, 1, 1);
  DeviceArray<double> dy(24), db(3);
  std::vector<double> v(24);
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(i);
  upload(dy, v);
  upload(db, {100, 200, 300});
  const double one = 1, two = 2, zero = 0;
  // Channel k sums n = 0 (4k .. 4k+3) and n = 1 (12 + 4k .. 12 + 4k + 3): 32k + 60.
  ASSERT_EQ(cudnnConvolutionBackwardBias(h.h, &two, dyd.d, dy.get(), &one, dbd.d, db.get()),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(db.host(), (std::vector<double>{220, 384, 548}));
  upload(db, std::vector<double>(3, std::numeric_limits<double>::quiet_NaN()));
  ASSERT_EQ(cudnnConvolutionBackwardBias(h.h, &one, dyd.d, dy.get(), &zero, dbd.d, db.get()),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(db.host(), (std::vector<double>{60, 92, 124}));
  TensorD not_a_bias(CUDNN_DATA_DOUBLE, 1, 3, 2, 1), wrong_c(CUDNN_DATA_DOUBLE, 1, 2, 1, 1),
      float_db(CUDNN_DATA_FLOAT, 1, 3, 1, 1);
  EXPECT_EQ(cudnnConvolutionBackwardBias(h.h, &one, dyd.d, dy.get(), &zero, not_a_bias.d, db.get()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnConvolutionBackwardBias(h.h, &one, dyd.d, dy.get(), &zero, wrong_c.d, db.get()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnConvolutionBackwardBias(h.h, &one, dyd.d, dy.get(), &zero, float_db.d, db.get()),
            CUDNN_STATUS_BAD_PARAM);
}

// ---- streams

TEST(CudnnConvModel, WorkRunsOnTheHandlesStreamInOrder) {
  // With deferred streams (EMBER_EMULATED_CUDA_STREAMS=deferred) nothing runs before the
  // synchronisation; either way the convolution, then the bias, land in order.
  Geometry g;
  g.pad_h = 0, g.dil_w = 1;
  Handle h;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudnnSetStream(h.h, stream), CUDNN_STATUS_SUCCESS);
  Descs d(g, CUDNN_DATA_DOUBLE);
  Buffers<double> b(g);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const Reference ref = reference(g, b.x, b.w, b.dy, CUDNN_CROSS_CORRELATION);
  TensorD bias(CUDNN_DATA_DOUBLE, 1, g.k, 1, 1);
  DeviceArray<double> bias_values(size_t(g.k));
  upload(bias_values, std::vector<double>(size_t(g.k), 0.5));
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const size_t need = workspace_of(h, d, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
  DeviceArray<unsigned char> ws(need);
  const double one = 1, zero = 0;
  ASSERT_EQ(cudnnConvolutionForward(h.h, &one, d.x.d, b.dx_.get(), d.w.d, b.dw_.get(), d.conv.d,
                                    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, ws.get(), need, &zero,
                                    d.y.d, b.dy_out.get()),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnAddTensor(h.h, &one, bias.d, bias_values.get(), &one, d.y.d, b.dy_out.get()),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  std::vector<double> want = ref.y;
  for (double& v : want) v += 0.5;
  expect_blend(b.dy_out.host(), want, 1.0, 0.0, b.y0, 1e-12, "forward then bias on a stream");
  ASSERT_EQ(cudnnSetStream(h.h, nullptr), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}
