// The cuDNN batch-normalization models (EMBER_CUDA=EMULATE only), after NVIDIA's cuDNN API
// Reference 9.x, cudnn_ops library: "cudnnDeriveBNTensorDescriptor()",
// "cudnnBatchNormalizationForwardTraining()", "cudnnBatchNormalizationForwardInference()"
// and "cudnnBatchNormalizationBackward()", in CUDNN_BATCHNORM_SPATIAL (statistics per
// channel, over N, H and W) and CUDNN_BATCHNORM_PER_ACTIVATION (per C, H, W position, over N)
// mode, on the 4-D NCHW descriptors the model has. Host math in double.
#include <cmath>
#include <initializer_list>
#include <string>

#include "cuda_emulator/cudnn_model.h"

namespace ember::emulation::dnn {
namespace {

bool valid_mode(cudnnBatchNormMode_t m) {
  return m == CUDNN_BATCHNORM_PER_ACTIVATION || m == CUDNN_BATCHNORM_SPATIAL;
}
bool spatial(cudnnBatchNormMode_t m) { return m == CUDNN_BATCHNORM_SPATIAL; }
bool same_shape(const cudnnTensorStruct& a, const cudnnTensorStruct& b) {
  return a.n == b.n && a.c == b.c && a.h == b.h && a.w == b.w;
}

// How the statistics group x's elements: parameter p covers, in each of the `images`
// images, the run x[i * image + p * run + j] for j < run.
struct Groups {
  int64_t images = 0, params = 0, run = 0, image = 0;
  int64_t count() const { return images * run; }
  template <class F>
  void each(int64_t p, F f) const {
    for (int64_t i = 0; i < images; ++i)
      for (int64_t j = 0; j < run; ++j) f(i * image + p * run + j);
  }
};

Groups groups_of(const cudnnTensorStruct& x, cudnnBatchNormMode_t mode) {
  const int64_t hw = int64_t(x.h) * x.w;
  return spatial(mode) ? Groups{x.n, x.c, hw, x.c * hw} : Groups{x.n, x.c * hw, 1, x.c * hw};
}

// The checks the three calls share, in the reference's BAD_PARAM lists: x and y (or x, dy
// and dx) set, of one shape and type ("dimensions or data types mismatch"); the parameter
// descriptor 1xCx1x1 (spatial) or 1xCxHxW (per activation); epsilon >= CUDNN_BN_MIN_EPSILON
// (NaN refused). A parameter descriptor of another type than x's is NOT_SUPPORTED (the
// reference's supported combinations: float parameters for float data, double for double).
cudnnStatus_t check_shapes(cudnnBatchNormMode_t mode, std::initializer_list<const cudnnTensorStruct*> data,
                           const cudnnTensorStruct* params, double epsilon) {
  if (!valid_mode(mode)) return CUDNN_STATUS_BAD_PARAM;
  for (const cudnnTensorStruct* d : data)
    if (!is_set(d)) return CUDNN_STATUS_BAD_PARAM;
  if (!is_set(params)) return CUDNN_STATUS_BAD_PARAM;
  const cudnnTensorStruct& x = **data.begin();
  for (const cudnnTensorStruct* d : data)
    if (!same_shape(*d, x) || d->type != x.type) return CUDNN_STATUS_BAD_PARAM;
  const bool s = spatial(mode);
  if (params->n != 1 || params->c != x.c || params->h != (s ? 1 : x.h) || params->w != (s ? 1 : x.w))
    return CUDNN_STATUS_BAD_PARAM;
  if (!(epsilon >= CUDNN_BN_MIN_EPSILON)) return CUDNN_STATUS_BAD_PARAM;
  if (params->type != x.type) return CUDNN_STATUS_NOT_SUPPORTED;
  return CUDNN_STATUS_SUCCESS;
}

struct Pointer {
  const void* p;
  size_t bytes;
  const char* what;
};

// Null was refused (or allowed) before; each pointer given is checked as the GPU would use it.
cudnnStatus_t check_pointers(cudnnHandle_t handle, const char* call, cudnnDataType_t type,
                             std::initializer_list<Pointer> pointers) {
  for (const Pointer& p : pointers)
    if (p.p)
      if (const cudnnStatus_t s =
              check_pointer(handle, p.p, p.bytes, element_size(type), std::string(call) + " " + p.what))
        return s;
  return CUDNN_STATUS_SUCCESS;
}

bool any_null(std::initializer_list<const void*> pointers) {
  for (const void* p : pointers)
    if (!p) return true;
  return false;
}

// The mean and the biased variance of parameter p's elements (two passes, in double).
template <class T>
void moments(const Groups& g, const T* x, int64_t p, double* mean, double* var) {
  double sum = 0, sq = 0;
  g.each(p, [&](int64_t i) { sum += static_cast<double>(x[i]); });
  *mean = sum / static_cast<double>(g.count());
  g.each(p,
         [&](int64_t i) { sq += (static_cast<double>(x[i]) - *mean) * (static_cast<double>(x[i]) - *mean); });
  *var = sq / static_cast<double>(g.count());
}

struct Training {
  Groups g;
  double alpha, beta, factor, epsilon;
  const void *x, *scale, *bias;
  void *y, *running_mean, *running_var, *save_mean, *save_inv;
};

template <class T>
void train(const Training& t) {
  const T* x = static_cast<const T*>(t.x);
  const T* scale = static_cast<const T*>(t.scale);
  const T* bias = static_cast<const T*>(t.bias);
  T* y = static_cast<T*>(t.y);
  const double n = static_cast<double>(t.g.count());
  for (int64_t p = 0; p < t.g.params; ++p) {
    double mean = 0, var = 0;
    moments(t.g, x, p, &mean, &var);
    const double inv = 1.0 / std::sqrt(var + t.epsilon);
    const double a = static_cast<double>(scale[p]), b = static_cast<double>(bias[p]);
    t.g.each(p, [&](int64_t i) {
      blend(&y[i], a * (static_cast<double>(x[i]) - mean) * inv + b, t.alpha, t.beta);
    });
    if (t.running_mean) {
      T* rm = static_cast<T*>(t.running_mean);
      T* rv = static_cast<T*>(t.running_var);
      rm[p] = static_cast<T>((1 - t.factor) * static_cast<double>(rm[p]) + t.factor * mean);
      rv[p] = static_cast<T>((1 - t.factor) * static_cast<double>(rv[p]) + t.factor * var * n / (n - 1));
    }
    if (t.save_mean) {
      static_cast<T*>(t.save_mean)[p] = static_cast<T>(mean);
      static_cast<T*>(t.save_inv)[p] = static_cast<T>(inv);
    }
  }
}

struct Inference {
  Groups g;
  double alpha, beta, epsilon;
  const void *x, *scale, *bias, *mean, *var;
  void* y;
};

template <class T>
void infer(const Inference& t) {
  const T* x = static_cast<const T*>(t.x);
  T* y = static_cast<T*>(t.y);
  for (int64_t p = 0; p < t.g.params; ++p) {
    const double mean = static_cast<double>(static_cast<const T*>(t.mean)[p]);
    const double inv = 1.0 / std::sqrt(static_cast<double>(static_cast<const T*>(t.var)[p]) + t.epsilon);
    const double a = static_cast<double>(static_cast<const T*>(t.scale)[p]);
    const double b = static_cast<double>(static_cast<const T*>(t.bias)[p]);
    t.g.each(p, [&](int64_t i) {
      blend(&y[i], a * (static_cast<double>(x[i]) - mean) * inv + b, t.alpha, t.beta);
    });
  }
}

struct Backward {
  int device;
  Groups g;
  double alpha_data, beta_data, alpha_param, beta_param, epsilon;
  const void *x, *dy, *scale, *saved_mean, *saved_inv;
  void *dx, *dscale, *dbias;
};

// With x^ = (x - mean) * inv over the m elements of a group: dbias = sum dy,
// dscale = sum dy x^, dx = scale * inv / m * (m dy - dbias - x^ dscale).
template <class T>
void backward(const Backward& t) {
  const T* x = static_cast<const T*>(t.x);
  const T* dy = static_cast<const T*>(t.dy);
  T* dx = static_cast<T*>(t.dx);
  const double m = static_cast<double>(t.g.count());
  for (int64_t p = 0; p < t.g.params; ++p) {
    double mean = 0, inv = 0;
    if (t.saved_mean) {
      mean = static_cast<double>(static_cast<const T*>(t.saved_mean)[p]);
      inv = static_cast<double>(static_cast<const T*>(t.saved_inv)[p]);
      // The reference: the same epsilon "should be used in forward and backward functions".
      // The saved 1/sqrt(var + eps) must be this epsilon's (the strict choice: a mismatch is
      // a fault, as a kernel's, reported at the next synchronisation).
      double batch_mean = 0, var = 0;
      moments(t.g, x, p, &batch_mean, &var);
      const double expected = 1.0 / std::sqrt(var + t.epsilon);
      if (!(std::fabs(inv - expected) <= 1e-3 * expected)) {
        set_sticky_error(t.device, cudaErrorLaunchFailure,
                         "cudnnBatchNormalizationBackward: savedInvVariance " + std::to_string(inv) +
                             " is not 1/sqrt(var + epsilon) = " + std::to_string(expected) + " for epsilon " +
                             std::to_string(t.epsilon) + ": forward and backward must use the same epsilon");
        return;
      }
    } else {
      double var = 0;
      moments(t.g, x, p, &mean, &var);
      inv = 1.0 / std::sqrt(var + t.epsilon);
    }
    double dbias = 0, dscale = 0;
    t.g.each(p, [&](int64_t i) {
      dbias += static_cast<double>(dy[i]);
      dscale += static_cast<double>(dy[i]) * (static_cast<double>(x[i]) - mean) * inv;
    });
    const double k = static_cast<double>(static_cast<const T*>(t.scale)[p]) * inv / m;
    t.g.each(p, [&](int64_t i) {
      const double xhat = (static_cast<double>(x[i]) - mean) * inv;
      blend(&dx[i], k * (m * static_cast<double>(dy[i]) - dbias - xhat * dscale), t.alpha_data, t.beta_data);
    });
    blend(&static_cast<T*>(t.dscale)[p], dscale, t.alpha_param, t.beta_param);
    blend(&static_cast<T*>(t.dbias)[p], dbias, t.alpha_param, t.beta_param);
  }
}

}  // namespace
}  // namespace ember::emulation::dnn

using namespace ember::emulation;
using namespace ember::emulation::dnn;

// "cudnnDeriveBNTensorDescriptor()": 1xCx1x1 for CUDNN_BATCHNORM_SPATIAL, 1xCxHxW for
// CUDNN_BATCHNORM_PER_ACTIVATION, of x's type (float and double data). BAD_PARAM for an
// invalid mode, and (the strict choice: the reference requires x "set up with proper
// dimensions prior to calling") for an x descriptor never set.
cudnnStatus_t cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t derived, const cudnnTensorDescriptor_t x,
                                            cudnnBatchNormMode_t mode) {
  if (!derived || !x) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!valid_mode(mode) || !is_set(x)) return CUDNN_STATUS_BAD_PARAM;
  const bool s = spatial(mode);
  *derived = cudnnTensorStruct{true, x->type, 1, x->c, s ? 1 : x->h, s ? 1 : x->w};
  return CUDNN_STATUS_SUCCESS;
}

// "cudnnBatchNormalizationForwardTraining()": y = alpha * (scale (x - mean) / sqrt(var +
// epsilon) + bias) + beta * y, with the batch's mean and biased variance;
// runningMean = runningMean (1 - factor) + mean factor, and the running variance likewise
// with the unbiased ("sample") variance, var * m / (m - 1); resultSaveMean = mean and
// resultSaveInvVariance = 1 / sqrt(var + epsilon). Statuses: BAD_PARAM_NULL_POINTER for a
// null alpha, beta, x, y, bnScale or bnBias; BAD_PARAM when exactly one of the running (or
// of the save) pointers is null, for check_shapes' cases, and (the strict choice: the
// reference is silent, the unbiased variance divides by zero) when a running variance is
// asked for from one element per group; NOT_SUPPORTED for mixed types; the pointer
// statuses of check_pointer. The running and save outputs are not blended.
cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t x_desc, const void* x, const cudnnTensorDescriptor_t y_desc, void* y,
    const cudnnTensorDescriptor_t bn_desc, const void* bn_scale, const void* bn_bias, double factor,
    void* running_mean, void* running_var, double epsilon, void* save_mean, void* save_inv) {
  if (const cudnnStatus_t s = check_handle(handle)) return s;
  if (any_null({alpha, beta, x, y, bn_scale, bn_bias})) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!running_mean != !running_var || !save_mean != !save_inv) return CUDNN_STATUS_BAD_PARAM;
  if (const cudnnStatus_t s = check_shapes(mode, {x_desc, y_desc}, bn_desc, epsilon)) return s;
  const Groups g = groups_of(*x_desc, mode);
  if (running_var && g.count() < 2) return CUDNN_STATUS_BAD_PARAM;
  const cudnnDataType_t type = x_desc->type;
  const size_t data = elements(*x_desc) * element_size(type),
               params = elements(*bn_desc) * element_size(type);
  if (const cudnnStatus_t s = check_pointers(handle, "cudnnBatchNormalizationForwardTraining", type,
                                             {{x, data, "x"},
                                              {y, data, "y"},
                                              {bn_scale, params, "bnScale"},
                                              {bn_bias, params, "bnBias"},
                                              {running_mean, params, "resultRunningMean"},
                                              {running_var, params, "resultRunningVariance"},
                                              {save_mean, params, "resultSaveMean"},
                                              {save_inv, params, "resultSaveInvVariance"}}))
    return s;
  Training t{g,           0,         0,       factor, epsilon, x, bn_scale, bn_bias, y, running_mean,
             running_var, save_mean, save_inv};
  read_scale(alpha, type, &t.alpha);
  read_scale(beta, type, &t.beta);
  enqueue(handle, [t, type] { type == CUDNN_DATA_DOUBLE ? train<double>(t) : train<float>(t); });
  return CUDNN_STATUS_SUCCESS;
}

// "cudnnBatchNormalizationForwardInference()": y = alpha * (scale (x - estimatedMean) /
// sqrt(estimatedVariance + epsilon) + bias) + beta * y. Statuses: BAD_PARAM_NULL_POINTER
// for a null alpha, beta, x, y, bnScale, bnBias, estimatedMean or estimatedVariance;
// BAD_PARAM and NOT_SUPPORTED as check_shapes says; the pointer statuses of check_pointer.
cudnnStatus_t cudnnBatchNormalizationForwardInference(cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                                                      const void* alpha, const void* beta,
                                                      const cudnnTensorDescriptor_t x_desc, const void* x,
                                                      const cudnnTensorDescriptor_t y_desc, void* y,
                                                      const cudnnTensorDescriptor_t bn_desc,
                                                      const void* bn_scale, const void* bn_bias,
                                                      const void* mean, const void* var, double epsilon) {
  if (const cudnnStatus_t s = check_handle(handle)) return s;
  if (any_null({alpha, beta, x, y, bn_scale, bn_bias, mean, var})) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (const cudnnStatus_t s = check_shapes(mode, {x_desc, y_desc}, bn_desc, epsilon)) return s;
  const cudnnDataType_t type = x_desc->type;
  const size_t data = elements(*x_desc) * element_size(type),
               params = elements(*bn_desc) * element_size(type);
  if (const cudnnStatus_t s = check_pointers(handle, "cudnnBatchNormalizationForwardInference", type,
                                             {{x, data, "x"},
                                              {y, data, "y"},
                                              {bn_scale, params, "bnScale"},
                                              {bn_bias, params, "bnBias"},
                                              {mean, params, "estimatedMean"},
                                              {var, params, "estimatedVariance"}}))
    return s;
  Inference t{groups_of(*x_desc, mode), 0, 0, epsilon, x, bn_scale, bn_bias, mean, var, y};
  read_scale(alpha, type, &t.alpha);
  read_scale(beta, type, &t.beta);
  enqueue(handle, [t, type] { type == CUDNN_DATA_DOUBLE ? infer<double>(t) : infer<float>(t); });
  return CUDNN_STATUS_SUCCESS;
}

// "cudnnBatchNormalizationBackward()": dx, resultBnScaleDiff and resultBnBiasDiff (see
// backward above), dx blended with alphaDataDiff / betaDataDiff and the two parameter
// gradients with alphaParamDiff / betaParamDiff. With savedMean and savedInvVariance the
// saved statistics are used as they are (epsilon unused); with both null, they are computed
// again from x and epsilon. Statuses: BAD_PARAM_NULL_POINTER for a null scaling factor, x,
// dy, dx, bnScale, resultBnScaleDiff or resultBnBiasDiff; BAD_PARAM when exactly one of
// savedMean and savedInvVariance is null, and as check_shapes says (x, dy and dx one shape
// and type); NOT_SUPPORTED for mixed types; the pointer statuses of check_pointer.
cudnnStatus_t cudnnBatchNormalizationBackward(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha_data, const void* beta_data,
    const void* alpha_param, const void* beta_param, const cudnnTensorDescriptor_t x_desc, const void* x,
    const cudnnTensorDescriptor_t dy_desc, const void* dy, const cudnnTensorDescriptor_t dx_desc, void* dx,
    const cudnnTensorDescriptor_t bn_desc, const void* bn_scale, void* dscale, void* dbias, double epsilon,
    const void* saved_mean, const void* saved_inv) {
  if (const cudnnStatus_t s = check_handle(handle)) return s;
  if (any_null({alpha_data, beta_data, alpha_param, beta_param, x, dy, dx, bn_scale, dscale, dbias}))
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!saved_mean != !saved_inv) return CUDNN_STATUS_BAD_PARAM;
  if (const cudnnStatus_t s = check_shapes(mode, {x_desc, dy_desc, dx_desc}, bn_desc, epsilon)) return s;
  const cudnnDataType_t type = x_desc->type;
  const size_t data = elements(*x_desc) * element_size(type),
               params = elements(*bn_desc) * element_size(type);
  if (const cudnnStatus_t s = check_pointers(handle, "cudnnBatchNormalizationBackward", type,
                                             {{x, data, "x"},
                                              {dy, data, "dy"},
                                              {dx, data, "dx"},
                                              {bn_scale, params, "bnScale"},
                                              {dscale, params, "resultBnScaleDiff"},
                                              {dbias, params, "resultBnBiasDiff"},
                                              {saved_mean, params, "savedMean"},
                                              {saved_inv, params, "savedInvVariance"}}))
    return s;
  Backward t{handle->device,
             groups_of(*x_desc, mode),
             0,
             0,
             0,
             0,
             epsilon,
             x,
             dy,
             bn_scale,
             saved_mean,
             saved_inv,
             dx,
             dscale,
             dbias};
  read_scale(alpha_data, type, &t.alpha_data);
  read_scale(beta_data, type, &t.beta_data);
  read_scale(alpha_param, type, &t.alpha_param);
  read_scale(beta_param, type, &t.beta_param);
  enqueue(handle, [t, type] { type == CUDNN_DATA_DOUBLE ? backward<double>(t) : backward<float>(t); });
  return CUDNN_STATUS_SUCCESS;
}
