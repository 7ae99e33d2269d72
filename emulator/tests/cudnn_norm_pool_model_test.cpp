// The cuDNN batch-norm and pooling-forward models (emulator/cudnn_batch_norm.cpp,
// cudnn_pooling.cpp) called directly, against host references written here: batch-norm
// training against hand-computed statistics (the running variance unbiased), inference,
// backward against finite differences, pooling in each mode with padding; alpha/beta
// blending, every documented status, pointer faults and deferred streams.
#include <gtest/gtest.h>

#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "cuda_emulator/cudnn_model.h"
#include "device_values.h"
#include "emulation_support.h"

using namespace ember;
using ember::test::ClearEmulatorErrors;
using ember::test::DeviceArray;
using ember::test::upload;
using ember::test::values;

namespace {

struct Dnn {
  cudnnHandle_t h = nullptr;
  Dnn() { EXPECT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS); }
  ~Dnn() { cudnnDestroy(h); }
};

struct Desc {
  cudnnTensorDescriptor_t d = nullptr;
  Desc() { EXPECT_EQ(cudnnCreateTensorDescriptor(&d), CUDNN_STATUS_SUCCESS); }
  Desc(cudnnDataType_t type, int n, int c, int h, int w) : Desc() {
    EXPECT_EQ(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, type, n, c, h, w), CUDNN_STATUS_SUCCESS);
  }
  ~Desc() { cudnnDestroyTensorDescriptor(d); }
};

template <class T>
constexpr cudnnDataType_t dnn_type() {
  return sizeof(T) == sizeof(double) ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

template <class T>
void expect_near(const std::vector<T>& got, const std::vector<double>& want, double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(static_cast<double>(got[i]), want[i], tol) << what << "[" << i << "]";
}

// ---- batch normalization: the host reference

// x is [N, C, H, W]; a statistic's group is a channel (spatial) or one (c, h, w) position.
struct Shape {
  int n, c, h, w;
  bool spatial;
  int params() const { return spatial ? c : c * h * w; }
  int param_of(int i) const {  // the group of element i
    const int chw = c * h * w;
    return spatial ? i % chw / (h * w) : i % chw;
  }
  int size() const { return n * c * h * w; }
};

struct Stats {
  std::vector<double> mean, var;  // biased variance
  std::vector<int> count;
};

Stats stats_of(const Shape& s, const std::vector<double>& x) {
  Stats st{std::vector<double>(s.params()), std::vector<double>(s.params()), std::vector<int>(s.params())};
  for (int i = 0; i < s.size(); ++i) st.mean[s.param_of(i)] += x[i], ++st.count[s.param_of(i)];
  for (int p = 0; p < s.params(); ++p) st.mean[p] /= st.count[p];
  for (int i = 0; i < s.size(); ++i) st.var[s.param_of(i)] += std::pow(x[i] - st.mean[s.param_of(i)], 2);
  for (int p = 0; p < s.params(); ++p) st.var[p] /= st.count[p];
  return st;
}

std::vector<double> normalise(const Shape& s, const std::vector<double>& x, const std::vector<double>& mean,
                              const std::vector<double>& var, const std::vector<double>& scale,
                              const std::vector<double>& bias, double eps) {
  std::vector<double> y(x.size());
  for (int i = 0; i < s.size(); ++i) {
    const int p = s.param_of(i);
    y[i] = scale[p] * (x[i] - mean[p]) / std::sqrt(var[p] + eps) + bias[p];
  }
  return y;
}

template <class T>
std::vector<double> to_double(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

cudnnBatchNormMode_t mode_of(const Shape& s) {
  return s.spatial ? CUDNN_BATCHNORM_SPATIAL : CUDNN_BATCHNORM_PER_ACTIVATION;
}

template <class T>
void check_training(const Shape& s) {
  SCOPED_TRACE(s.spatial ? "spatial" : "per activation");
  Dnn dnn;
  const cudnnDataType_t type = dnn_type<T>();
  Desc xd(type, s.n, s.c, s.h, s.w), bd;
  ASSERT_EQ(cudnnDeriveBNTensorDescriptor(bd.d, xd.d, mode_of(s)), CUDNN_STATUS_SUCCESS);
  const int P = s.params();
  const std::vector<T> x = values<T>(s.size(), 1), y0 = values<T>(s.size(), 2);
  const std::vector<T> scale = values<T>(P, 3), bias = values<T>(P, 4), rm0(P, T(0.5)), rv0(P, T(2));
  DeviceArray<T> dx(x.size()), dy(x.size()), dscale(P), dbias(P), drm(P), drv(P), dsm(P), dsi(P);
  upload(dx, x), upload(dy, y0), upload(dscale, scale), upload(dbias, bias), upload(drm, rm0),
      upload(drv, rv0);
  const T alpha = 2, beta = 0.5;
  const double factor = 0.25, eps = 1e-3;
  ASSERT_EQ(cudnnBatchNormalizationForwardTraining(dnn.h, mode_of(s), &alpha, &beta, xd.d, dx.get(), xd.d,
                                                   dy.get(), bd.d, dscale.get(), dbias.get(), factor,
                                                   drm.get(), drv.get(), eps, dsm.get(), dsi.get()),
            CUDNN_STATUS_SUCCESS);
  const Stats st = stats_of(s, to_double(x));
  std::vector<double> y = normalise(s, to_double(x), st.mean, st.var, to_double(scale), to_double(bias), eps);
  for (size_t i = 0; i < y.size(); ++i) y[i] = alpha * y[i] + beta * y0[i];
  std::vector<double> rm(P), rv(P), inv(P);
  for (int p = 0; p < P; ++p) {
    rm[p] = (1 - factor) * 0.5 + factor * st.mean[p];
    rv[p] = (1 - factor) * 2.0 + factor * st.var[p] * st.count[p] / (st.count[p] - 1);  // unbiased
    inv[p] = 1 / std::sqrt(st.var[p] + eps);
  }
  const double tol = sizeof(T) == sizeof(double) ? 1e-12 : 1e-5;
  expect_near(dy.host(), y, tol, "y");
  expect_near(drm.host(), rm, tol, "running mean");
  expect_near(drv.host(), rv, tol, "running variance");
  expect_near(dsm.host(), st.mean, tol, "saved mean");
  expect_near(dsi.host(), inv, tol, "saved inverse variance");
}

}  // namespace

TEST(CudnnBatchNormModel, DerivedDescriptorIsPerChannelOrPerActivation) {
  Desc x(CUDNN_DATA_DOUBLE, 2, 3, 4, 5), bn, unset;
  ASSERT_EQ(cudnnDeriveBNTensorDescriptor(bn.d, x.d, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_SUCCESS);
  EXPECT_TRUE(bn.d->set);
  EXPECT_EQ(bn.d->type, CUDNN_DATA_DOUBLE);
  EXPECT_EQ((std::vector<int>{bn.d->n, bn.d->c, bn.d->h, bn.d->w}), (std::vector<int>{1, 3, 1, 1}));
  ASSERT_EQ(cudnnDeriveBNTensorDescriptor(bn.d, x.d, CUDNN_BATCHNORM_PER_ACTIVATION), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ((std::vector<int>{bn.d->n, bn.d->c, bn.d->h, bn.d->w}), (std::vector<int>{1, 3, 4, 5}));
  EXPECT_EQ(cudnnDeriveBNTensorDescriptor(bn.d, x.d, cudnnBatchNormMode_t(7)), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDeriveBNTensorDescriptor(bn.d, unset.d, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDeriveBNTensorDescriptor(nullptr, x.d, CUDNN_BATCHNORM_SPATIAL),
            CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
}

TEST(CudnnBatchNormModel, TrainingStatisticsRunningAverageAndBlending) {
  check_training<float>({3, 2, 2, 3, true});
  check_training<double>({3, 2, 2, 3, true});
  check_training<double>({4, 2, 2, 1, false});
  check_training<float>({2, 3, 1, 2, false});
}

TEST(CudnnBatchNormModel, TrainingArgumentChecks) {
  Dnn dnn;
  Desc xd(CUDNN_DATA_FLOAT, 2, 2, 1, 1), bd(CUDNN_DATA_FLOAT, 1, 2, 1, 1),
      wrong_bd(CUDNN_DATA_FLOAT, 1, 2, 2, 1);
  Desc double_bd(CUDNN_DATA_DOUBLE, 1, 2, 1, 1), other_y(CUDNN_DATA_FLOAT, 2, 2, 1, 2),
      one(CUDNN_DATA_FLOAT, 1, 2, 1, 1);
  DeviceArray<float> x(4), y(4, 0x7f), p(2), r(2), s(2);
  upload(x, values<float>(4, 1));
  const float a = 1, b = 0;
  auto train = [&](cudnnTensorDescriptor_t xdesc, cudnnTensorDescriptor_t ydesc,
                   cudnnTensorDescriptor_t bdesc, void* rm, void* rv, void* sm, void* si, double eps = 1e-5,
                   const void* xp = nullptr) {
    return cudnnBatchNormalizationForwardTraining(dnn.h, CUDNN_BATCHNORM_SPATIAL, &a, &b, xdesc,
                                                  xp ? xp : x.get(), ydesc, y.get(), bdesc, p.get(), p.get(),
                                                  0.1, rm, rv, eps, sm, si);
  };
  // Both running pointers or neither, both save pointers or neither.
  EXPECT_EQ(train(xd.d, xd.d, bd.d, nullptr, nullptr, nullptr, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(train(xd.d, xd.d, bd.d, r.get(), nullptr, nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(train(xd.d, xd.d, bd.d, nullptr, nullptr, nullptr, s.get()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(train(xd.d, xd.d, bd.d, nullptr, nullptr, nullptr, nullptr, CUDNN_BN_MIN_EPSILON - 1e-9),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(train(xd.d, other_y.d, bd.d, nullptr, nullptr, nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(train(xd.d, xd.d, wrong_bd.d, nullptr, nullptr, nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(train(xd.d, xd.d, double_bd.d, nullptr, nullptr, nullptr, nullptr), CUDNN_STATUS_NOT_SUPPORTED);
  // One value per channel has no unbiased variance: refused only when one is asked for.
  EXPECT_EQ(train(one.d, one.d, bd.d, r.get(), s.get(), nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(train(one.d, one.d, bd.d, nullptr, nullptr, r.get(), s.get()), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnBatchNormalizationForwardTraining(dnn.h, CUDNN_BATCHNORM_SPATIAL, &a, &b, xd.d, nullptr,
                                                   xd.d, y.get(), bd.d, p.get(), p.get(), 0.1, nullptr,
                                                   nullptr, 1e-5, nullptr, nullptr),
            CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
  EXPECT_EQ(cudnnBatchNormalizationForwardTraining(dnn.h, cudnnBatchNormMode_t(5), &a, &b, xd.d, x.get(),
                                                   xd.d, y.get(), bd.d, p.get(), p.get(), 0.1, nullptr,
                                                   nullptr, 1e-5, nullptr, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  // A host pointer is the device's sticky illegal address.
  ClearEmulatorErrors clear;
  const std::vector<float> host(4);
  EXPECT_EQ(train(xd.d, xd.d, bd.d, nullptr, nullptr, nullptr, nullptr, 1e-5, host.data()),
            CUDNN_STATUS_EXECUTION_FAILED_CUDART);
  EXPECT_NE(emulation::last_fault().find("cudnnBatchNormalizationForwardTraining x: "), std::string::npos)
      << emulation::last_fault();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
}

TEST(CudnnBatchNormModel, InferenceUsesTheEstimatesAndBetaZeroIgnoresY) {
  for (bool spatial : {true, false}) {
    const Shape s{2, 3, 2, 2, spatial};
    Dnn dnn;
    Desc xd(CUDNN_DATA_DOUBLE, s.n, s.c, s.h, s.w), bd;
    ASSERT_EQ(cudnnDeriveBNTensorDescriptor(bd.d, xd.d, mode_of(s)), CUDNN_STATUS_SUCCESS);
    const int P = s.params();
    const std::vector<double> x = values<double>(s.size(), 1), scale = values<double>(P, 2),
                              bias = values<double>(P, 3);
    std::vector<double> mean = values<double>(P, 4), var(P);
    for (int p = 0; p < P; ++p) var[p] = 0.5 + p;
    DeviceArray<double> dx(x.size()), dy(x.size()), ds(P), db(P), dm(P), dv(P);
    upload(dx, x), upload(ds, scale), upload(db, bias), upload(dm, mean), upload(dv, var);
    upload(dy, std::vector<double>(x.size(), std::numeric_limits<double>::quiet_NaN()));
    const double alpha = 1, beta = 0, eps = 1e-2;
    ASSERT_EQ(
        cudnnBatchNormalizationForwardInference(dnn.h, mode_of(s), &alpha, &beta, xd.d, dx.get(), xd.d,
                                                dy.get(), bd.d, ds.get(), db.get(), dm.get(), dv.get(), eps),
        CUDNN_STATUS_SUCCESS);
    expect_near(dy.host(), normalise(s, x, mean, var, scale, bias, eps), 1e-12, "y");
    EXPECT_EQ(
        cudnnBatchNormalizationForwardInference(dnn.h, mode_of(s), &alpha, &beta, xd.d, dx.get(), xd.d,
                                                dy.get(), bd.d, ds.get(), db.get(), nullptr, dv.get(), eps),
        CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
    EXPECT_EQ(
        cudnnBatchNormalizationForwardInference(dnn.h, mode_of(s), &alpha, &beta, xd.d, dx.get(), xd.d,
                                                dy.get(), bd.d, ds.get(), db.get(), dm.get(), dv.get(), -1.0),
        CUDNN_STATUS_BAD_PARAM);
  }
}

namespace {

// sum(g * y(x, scale, bias)) for training-mode batch norm: the backward's gradients are
// its derivatives.
double loss(const Shape& s, const std::vector<double>& x, const std::vector<double>& scale,
            const std::vector<double>& bias, const std::vector<double>& g, double eps) {
  const Stats st = stats_of(s, x);
  const std::vector<double> y = normalise(s, x, st.mean, st.var, scale, bias, eps);
  double l = 0;
  for (size_t i = 0; i < y.size(); ++i) l += g[i] * y[i];
  return l;
}

// The central difference of f along v[i].
double derivative(std::vector<double>& v, size_t i, const std::function<double()>& f) {
  const double h = 1e-5, keep = v[i];
  v[i] = keep + h;
  const double up = f();
  v[i] = keep - h;
  const double down = f();
  v[i] = keep;
  return (up - down) / (2 * h);
}

void check_backward(const Shape& s, bool saved) {
  SCOPED_TRACE(std::string(s.spatial ? "spatial" : "per activation") + (saved ? ", saved statistics" : ""));
  Dnn dnn;
  Desc xd(CUDNN_DATA_DOUBLE, s.n, s.c, s.h, s.w), bd;
  ASSERT_EQ(cudnnDeriveBNTensorDescriptor(bd.d, xd.d, mode_of(s)), CUDNN_STATUS_SUCCESS);
  const int P = s.params();
  std::vector<double> x = values<double>(s.size(), 1), scale = values<double>(P, 2),
                      bias = values<double>(P, 3);
  for (int i = 0; i < s.size(); ++i) x[i] += 0.01 * i;  // no two groups alike
  for (double& v : scale) v += 1.5;
  const std::vector<double> g = values<double>(s.size(), 5);
  const double eps = 1e-3;
  DeviceArray<double> dx(x.size()), dg(x.size()), dgrad(x.size()), ds(P), db(P), dgs(P), dgb(P), sm(P), si(P);
  upload(dx, x), upload(dg, g), upload(ds, scale), upload(db, bias);
  upload(dgrad, std::vector<double>(x.size(), 1.0)), upload(dgs, std::vector<double>(P, 1.0));
  upload(dgb, std::vector<double>(P, 1.0));
  const double one = 1, zero = 0, two = 2, half = 0.5;
  if (saved) {
    DeviceArray<double> y(x.size());
    ASSERT_EQ(cudnnBatchNormalizationForwardTraining(dnn.h, mode_of(s), &one, &zero, xd.d, dx.get(), xd.d,
                                                     y.get(), bd.d, ds.get(), db.get(), 0.1, nullptr, nullptr,
                                                     eps, sm.get(), si.get()),
              CUDNN_STATUS_SUCCESS);
  }
  // dx = 2 * grad + 1 * prior (1); parameter gradients = 1 * grad + 0.5 * prior (1).
  ASSERT_EQ(cudnnBatchNormalizationBackward(dnn.h, mode_of(s), &two, &one, &one, &half, xd.d, dx.get(), xd.d,
                                            dg.get(), xd.d, dgrad.get(), bd.d, ds.get(), dgs.get(), dgb.get(),
                                            eps,  // the forward's: the model checks the saved statistics
                                            saved ? sm.get() : nullptr, saved ? si.get() : nullptr),
            CUDNN_STATUS_SUCCESS);
  std::vector<double> want_dx(x.size()), want_ds(P), want_db(P);
  auto f = [&] { return loss(s, x, scale, bias, g, eps); };
  for (size_t i = 0; i < x.size(); ++i) want_dx[i] = 2 * derivative(x, i, f) + 1;
  for (int p = 0; p < P; ++p) {
    want_ds[p] = derivative(scale, p, f) + 0.5;
    want_db[p] = derivative(bias, p, f) + 0.5;
  }
  expect_near(dgrad.host(), want_dx, 1e-6, "dx");
  expect_near(dgs.host(), want_ds, 1e-6, "dscale");
  expect_near(dgb.host(), want_db, 1e-6, "dbias");
}

}  // namespace

// Saved statistics made with another epsilon than the backward's: the model faults (the
// reference asks for the same epsilon in both), reported at the next synchronisation.
TEST(CudnnBatchNormModel, BackwardWithAnotherEpsilonThanTheForwardsFaults) {
  ClearEmulatorErrors clear;
  Dnn dnn;
  Desc xd(CUDNN_DATA_DOUBLE, 4, 2, 1, 3), bd;
  ASSERT_EQ(cudnnDeriveBNTensorDescriptor(bd.d, xd.d, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_SUCCESS);
  std::vector<double> x = values<double>(24, 1);
  for (int i = 0; i < 24; ++i) x[static_cast<size_t>(i)] += 0.01 * i;
  DeviceArray<double> dx(24), y(24), dg(24), dgrad(24), ds(2), db(2), dgs(2), dgb(2), sm(2), si(2);
  upload(dx, x), upload(dg, values<double>(24, 5)), upload(ds, std::vector<double>(2, 1.0));
  upload(db, std::vector<double>(2, 0.0));
  const double one = 1, zero = 0;
  ASSERT_EQ(cudnnBatchNormalizationForwardTraining(dnn.h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd.d,
                                                   dx.get(), xd.d, y.get(), bd.d, ds.get(), db.get(), 0.1,
                                                   nullptr, nullptr, 0.1, sm.get(), si.get()),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudnnBatchNormalizationBackward(dnn.h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, xd.d,
                                            dx.get(), xd.d, dg.get(), xd.d, dgrad.get(), bd.d, ds.get(),
                                            dgs.get(), dgb.get(), 1e-5, sm.get(), si.get()),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  EXPECT_NE(emulation::last_fault().find("forward and backward must use the same epsilon"), std::string::npos)
      << emulation::last_fault();
}

TEST(CudnnBatchNormModel, BackwardMatchesFiniteDifferences) {
  check_backward({3, 2, 2, 2, true}, false);
  check_backward({3, 2, 2, 2, true}, true);
  check_backward({4, 2, 1, 3, false}, false);
  check_backward({4, 2, 1, 3, false}, true);
}

TEST(CudnnBatchNormModel, BackwardArgumentChecks) {
  Dnn dnn;
  Desc xd(CUDNN_DATA_FLOAT, 2, 2, 1, 1), bd(CUDNN_DATA_FLOAT, 1, 2, 1, 1),
      other(CUDNN_DATA_FLOAT, 2, 1, 2, 1);
  DeviceArray<float> x(4), dy(4), dx(4), p(2), gs(2), gb(2), sm(2), si(2);
  upload(si, std::vector<float>(2, 1 / std::sqrt(1e-5f)));  // x is 0: what the forward saves for eps 1e-5
  const float a = 1, b = 0;
  auto back = [&](cudnnTensorDescriptor_t dxd, const void* m, const void* i, double eps = 1e-5) {
    return cudnnBatchNormalizationBackward(dnn.h, CUDNN_BATCHNORM_SPATIAL, &a, &b, &a, &b, xd.d, x.get(),
                                           xd.d, dy.get(), dxd, dx.get(), bd.d, p.get(), gs.get(), gb.get(),
                                           eps, m, i);
  };
  EXPECT_EQ(back(xd.d, sm.get(), si.get()), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(back(xd.d, nullptr, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(back(xd.d, sm.get(), nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(back(xd.d, nullptr, si.get()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(back(other.d, nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(back(xd.d, nullptr, nullptr, -1e-3), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBatchNormalizationBackward(dnn.h, CUDNN_BATCHNORM_SPATIAL, &a, &b, nullptr, &b, xd.d,
                                            x.get(), xd.d, dy.get(), xd.d, dx.get(), bd.d, p.get(), gs.get(),
                                            gb.get(), 1e-5, nullptr, nullptr),
            CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
}

TEST(CudnnBatchNormModel, RunsOnTheHandlesStream) {
  test::DeferredStreams deferred;
  Dnn dnn;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, 0), cudaSuccess);
  ASSERT_EQ(cudnnSetStream(dnn.h, stream), CUDNN_STATUS_SUCCESS);
  Desc xd(CUDNN_DATA_FLOAT, 2, 1, 1, 1), bd(CUDNN_DATA_FLOAT, 1, 1, 1, 1);
  DeviceArray<float> x(2), y(2), p(1);
  upload(x, std::vector<float>{1, 3});
  upload(p, std::vector<float>{1});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const float a = 1, b = 0;
  ASSERT_EQ(cudnnBatchNormalizationForwardTraining(dnn.h, CUDNN_BATCHNORM_SPATIAL, &a, &b, xd.d, x.get(),
                                                   xd.d, y.get(), bd.d, p.get(), p.get(), 0.1, nullptr,
                                                   nullptr, 0.0, nullptr, nullptr),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(y.get()[1], 0.0f);  // still queued
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(y.get()[1], 2.0f);  // (3 - 2) / 1 + 1
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// ---- pooling forward

namespace {

struct Pool {
  cudnnPoolingMode_t mode;
  cudnnNanPropagation_t nan;
  int kh, kw, ph, pw, sh, sw;
};

// The host reference, from cudnnPoolingMode_t's definitions.
std::vector<double> pool_reference(const Pool& p, const std::vector<double>& x, int planes, int h, int w,
                                   int oh, int ow) {
  std::vector<double> y;
  for (int c = 0; c < planes; ++c)
    for (int i = 0; i < oh; ++i)
      for (int j = 0; j < ow; ++j) {
        std::vector<double> window;
        for (int a = 0; a < p.kh; ++a)
          for (int b = 0; b < p.kw; ++b) {
            const int r = i * p.sh - p.ph + a, q = j * p.sw - p.pw + b;
            if (r >= 0 && r < h && q >= 0 && q < w) window.push_back(x[(c * h + r) * w + q]);
          }
        double sum = 0, best = -INFINITY;
        bool nan = false;
        for (double v : window)
          sum += v, nan = nan || std::isnan(v), best = std::isnan(v) ? best : std::max(best, v);
        if (p.mode == CUDNN_POOLING_MAX || p.mode == CUDNN_POOLING_MAX_DETERMINISTIC)
          y.push_back(nan && p.nan == CUDNN_PROPAGATE_NAN ? NAN : best);
        else if (p.mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING)
          y.push_back(sum / (p.kh * p.kw));
        else
          y.push_back(sum / static_cast<double>(window.size()));
      }
  return y;
}

struct PoolDesc {
  cudnnPoolingDescriptor_t d = nullptr;
  explicit PoolDesc(const Pool& p) {
    EXPECT_EQ(cudnnCreatePoolingDescriptor(&d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetPooling2dDescriptor(d, p.mode, p.nan, p.kh, p.kw, p.ph, p.pw, p.sh, p.sw),
              CUDNN_STATUS_SUCCESS);
  }
  ~PoolDesc() { cudnnDestroyPoolingDescriptor(d); }
};

template <class T>
void check_pool(const Pool& p, std::vector<T> x, int n, int c, int h, int w) {
  SCOPED_TRACE("mode " + std::to_string(p.mode) + " nan " + std::to_string(p.nan));
  const int oh = (h + 2 * p.ph - p.kh) / p.sh + 1, ow = (w + 2 * p.pw - p.kw) / p.sw + 1;
  Dnn dnn;
  PoolDesc pd(p);
  Desc xd(dnn_type<T>(), n, c, h, w), yd(dnn_type<T>(), n, c, oh, ow);
  DeviceArray<T> dx(x.size()), dy(size_t(n) * c * oh * ow);
  upload(dx, x);
  const std::vector<T> prior = values<T>(dy.host().size(), 7);
  upload(dy, prior);
  const T alpha = 2, beta = 0.5;
  ASSERT_EQ(cudnnPoolingForward(dnn.h, pd.d, &alpha, xd.d, dx.get(), &beta, yd.d, dy.get()),
            CUDNN_STATUS_SUCCESS);
  std::vector<double> want = pool_reference(p, to_double(x), n * c, h, w, oh, ow);
  for (size_t i = 0; i < want.size(); ++i) want[i] = alpha * want[i] + beta * prior[i];
  const std::vector<T> got = dy.host();
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << i;
    } else {
      EXPECT_NEAR(static_cast<double>(got[i]), want[i], 1e-6) << i;
    }
  }
}

}  // namespace

TEST(CudnnPoolingModel, EachModeWithPaddingAndStrides) {
  const std::vector<cudnnPoolingMode_t> modes{CUDNN_POOLING_MAX, CUDNN_POOLING_MAX_DETERMINISTIC,
                                              CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                              CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING};
  for (cudnnPoolingMode_t mode : modes) {
    check_pool<float>({mode, CUDNN_PROPAGATE_NAN, 3, 2, 1, 1, 2, 1}, values<float>(2 * 2 * 5 * 4, 1), 2, 2, 5,
                      4);
    check_pool<double>({mode, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2}, values<double>(3 * 4 * 6, 2), 1, 3,
                       4, 6);
    check_pool<double>({mode, CUDNN_PROPAGATE_NAN, 3, 3, 1, 1, 1, 1}, values<double>(9, 3), 1, 1, 3, 3);
  }
}

TEST(CudnnPoolingModel, MaxFollowsTheNanOption) {
  std::vector<float> x = values<float>(16, 1);
  x[5] = NAN;
  for (auto nan : {CUDNN_PROPAGATE_NAN, CUDNN_NOT_PROPAGATE_NAN})
    check_pool<float>({CUDNN_POOLING_MAX, nan, 2, 2, 0, 0, 2, 2}, x, 1, 1, 4, 4);
}

TEST(CudnnPoolingModel, ArgumentChecks) {
  Dnn dnn;
  PoolDesc pd({CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 1, 1, 2, 2});
  PoolDesc too_much_pad({CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 2, 2, 1, 1});
  // 4x4 with window 2, pad 1, stride 2: floor((4 + 2 - 2) / 2) + 1 = 3.
  Desc x(CUDNN_DATA_FLOAT, 1, 2, 4, 4), y(CUDNN_DATA_FLOAT, 1, 2, 3, 3), bigger(CUDNN_DATA_FLOAT, 1, 2, 4, 3);
  Desc smaller(CUDNN_DATA_FLOAT, 1, 2, 2, 3), other_c(CUDNN_DATA_FLOAT, 1, 1, 3, 3),
      dbl(CUDNN_DATA_DOUBLE, 1, 2, 3, 3);
  DeviceArray<float> dx(32), dy(18);
  upload(dx, values<float>(32, 1));
  const float a = 1, b = 0;
  auto fwd = [&](cudnnPoolingDescriptor_t p, cudnnTensorDescriptor_t yd, const void* xp = nullptr) {
    return cudnnPoolingForward(dnn.h, p, &a, x.d, xp ? xp : dx.get(), &b, yd, dy.get());
  };
  EXPECT_EQ(fwd(pd.d, y.d), CUDNN_STATUS_SUCCESS);
  const std::vector<float> full = dy.host();
  EXPECT_EQ(fwd(pd.d, bigger.d), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(pd.d, other_c.d), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(pd.d, dbl.d), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(fwd(too_much_pad.d, y.d), CUDNN_STATUS_BAD_PARAM);
  // A smaller output holds the leading windows.
  upload(dy, std::vector<float>(18, 0.0f));
  ASSERT_EQ(fwd(pd.d, smaller.d), CUDNN_STATUS_SUCCESS);
  const std::vector<float> part = dy.host();
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(part[(c * 2 + i) * 3 + j], full[(c * 3 + i) * 3 + j]);
  EXPECT_EQ(cudnnPoolingForward(dnn.h, pd.d, nullptr, x.d, dx.get(), &b, y.d, dy.get()),
            CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
  ClearEmulatorErrors clear;
  const std::vector<float> host(32);
  EXPECT_EQ(fwd(pd.d, y.d, host.data()), CUDNN_STATUS_EXECUTION_FAILED_CUDART);
  EXPECT_NE(emulation::last_fault().find("cudnnPoolingForward x: "), std::string::npos)
      << emulation::last_fault();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
}
