// cudnnAddTensor and cudnnConvolutionBackwardBias (EMBER_CUDA=EMULATE only), after NVIDIA's
// cuDNN API Reference 9.x: "cudnnAddTensor()" (cudnn_ops library) and
// "cudnnConvolutionBackwardBias()" (cudnn_cnn library). Host math in double, queued on the
// handle's stream; beta == 0 does not read the output (blend).
#include <vector>

#include "cuda_emulator/cudnn_model.h"

namespace ember::emulation::dnn {
namespace {

// Reads alpha and beta for data of type t (null: BAD_PARAM_NULL_POINTER).
cudnnStatus_t read_scales(const void* alpha, const void* beta, cudnnDataType_t t, double* a, double* b) {
  return read_scale(alpha, t, a) && read_scale(beta, t, b) ? CUDNN_STATUS_SUCCESS
                                                           : CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
}

// C = alpha * A + beta * C, A broadcast along its dimensions of size 1.
template <class T>
void add(const cudnnTensorStruct& ad, const T* a, const cudnnTensorStruct& cd, T* c, double alpha,
         double beta) {
  size_t i = 0;
  for (int n = 0; n < cd.n; ++n)
    for (int ch = 0; ch < cd.c; ++ch)
      for (int h = 0; h < cd.h; ++h)
        for (int w = 0; w < cd.w; ++w, ++i) {
          const size_t an = ad.n == 1 ? 0 : size_t(n), ac = ad.c == 1 ? 0 : size_t(ch);
          const size_t ah = ad.h == 1 ? 0 : size_t(h), aw = ad.w == 1 ? 0 : size_t(w);
          blend(c + i, double(a[((an * ad.c + ac) * ad.h + ah) * ad.w + aw]), alpha, beta);
        }
}

// db[k] = alpha * (the sum of dy[n, k, h, w] over n, h, w) + beta * db[k].
template <class T>
void bias_gradient(const cudnnTensorStruct& dyd, const T* dy, T* db, double alpha, double beta) {
  std::vector<double> sum(size_t(dyd.c), 0.0);
  const size_t plane = size_t(dyd.h) * dyd.w;
  for (size_t n = 0; n < size_t(dyd.n); ++n)
    for (size_t k = 0; k < size_t(dyd.c); ++k)
      for (size_t i = 0; i < plane; ++i) sum[k] += double(dy[(n * dyd.c + k) * plane + i]);
  for (size_t k = 0; k < sum.size(); ++k) blend(db + k, sum[k], alpha, beta);
}

// The pointer checks of a call reading `in` (in_desc) and writing `out` (out_desc).
cudnnStatus_t check_pointers(cudnnHandle_t handle, const cudnnTensorStruct& in_desc, const void* in,
                             const cudnnTensorStruct& out_desc, const void* out, const char* in_name,
                             const char* out_name) {
  const size_t es = element_size(in_desc.type);
  if (const cudnnStatus_t s = check_pointer(handle, in, elements(in_desc) * es, es, in_name)) return s;
  return check_pointer(handle, out, elements(out_desc) * es, es, out_name);
}

}  // namespace
}  // namespace ember::emulation::dnn

using namespace ember::emulation::dnn;

// "cudnnAddTensor()": "Each dimension of the bias tensor A must match the corresponding
// dimension of the destination tensor C or must be equal to 1", the value of A then used
// along that dimension. BAD_PARAM when A's dimensions are "incompatible with the output
// tensor dimensions or the dataType of the two tensor descriptors are different"; an unset
// descriptor is BAD_PARAM too. Only 4-D NCHW is modelled (the descriptors allow no other).
cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t aDesc,
                             const void* A, const void* beta, const cudnnTensorDescriptor_t cDesc, void* C) {
  if (const cudnnStatus_t s = check_handle(handle)) return s;
  if (!is_set(aDesc) || !is_set(cDesc) || aDesc->type != cDesc->type) return CUDNN_STATUS_BAD_PARAM;
  const cudnnTensorStruct a = *aDesc, c = *cDesc;
  auto fits = [](int from, int to) { return from == to || from == 1; };
  if (!fits(a.n, c.n) || !fits(a.c, c.c) || !fits(a.h, c.h) || !fits(a.w, c.w)) return CUDNN_STATUS_BAD_PARAM;
  double alpha_value = 0, beta_value = 0;
  if (const cudnnStatus_t s = read_scales(alpha, beta, c.type, &alpha_value, &beta_value)) return s;
  if (const cudnnStatus_t s = check_pointers(handle, a, A, c, C, "cudnnAddTensor A", "cudnnAddTensor C"))
    return s;
  enqueue(handle, [=] {
    if (c.type == CUDNN_DATA_DOUBLE)
      add(a, static_cast<const double*>(A), c, static_cast<double*>(C), alpha_value, beta_value);
    else
      add(a, static_cast<const float*>(A), c, static_cast<float*>(C), alpha_value, beta_value);
  });
  return CUDNN_STATUS_SUCCESS;
}

// "cudnnConvolutionBackwardBias()": "the sum of every element belonging to the same feature
// map across all of the images of the input tensor". BAD_PARAM when "one of the parameters
// n, height, width of the output tensor is not 1", "the numbers of feature maps of the input
// tensor and output tensor differ" or "the dataType of the two tensor descriptors is
// different"; an unset descriptor is BAD_PARAM too.
cudnnStatus_t cudnnConvolutionBackwardBias(cudnnHandle_t handle, const void* alpha,
                                           const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                           const void* beta, const cudnnTensorDescriptor_t dbDesc, void* db) {
  if (const cudnnStatus_t s = check_handle(handle)) return s;
  if (!is_set(dyDesc) || !is_set(dbDesc) || dyDesc->type != dbDesc->type) return CUDNN_STATUS_BAD_PARAM;
  const cudnnTensorStruct dyd = *dyDesc, dbd = *dbDesc;
  if (dbd.n != 1 || dbd.h != 1 || dbd.w != 1 || dbd.c != dyd.c) return CUDNN_STATUS_BAD_PARAM;
  double alpha_value = 0, beta_value = 0;
  if (const cudnnStatus_t s = read_scales(alpha, beta, dyd.type, &alpha_value, &beta_value)) return s;
  if (const cudnnStatus_t s = check_pointers(handle, dyd, dy, dbd, db, "cudnnConvolutionBackwardBias dy",
                                             "cudnnConvolutionBackwardBias db"))
    return s;
  enqueue(handle, [=] {
    if (dyd.type == CUDNN_DATA_DOUBLE)
      bias_gradient(dyd, static_cast<const double*>(dy), static_cast<double*>(db), alpha_value, beta_value);
    else
      bias_gradient(dyd, static_cast<const float*>(dy), static_cast<float*>(db), alpha_value, beta_value);
  });
  return CUDNN_STATUS_SUCCESS;
}
