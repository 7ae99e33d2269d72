// cudnnPoolingForward on the host (EMBER_CUDA=EMULATE only), after NVIDIA's cuDNN API
// Reference 9.x, cudnn_ops library: "cudnnPoolingForward()", with the modes of
// "cudnnPoolingMode_t" and the NaN option of "cudnnNanPropagation_t", on the 4-D NCHW
// descriptors the model has. Output (i, j) pools the window whose top-left corner is
// (i * stride_h - pad_h, j * stride_w - pad_w); positions in the padding are not values:
// max pooling skips them, AVERAGE_COUNT_INCLUDE_PADDING counts them (as zeros) in the
// divisor and AVERAGE_COUNT_EXCLUDE_PADDING does not.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "cuda_emulator/cudnn_model.h"

namespace ember::emulation::dnn {
namespace {

// The output size "cudnnGetPooling2dForwardOutputDim()" advises along one dimension.
// (A window larger than the padded input advises no output.)
int advised(int in, int window, int pad, int stride) {
  return in + 2 * pad < window ? 0 : (in + 2 * pad - window) / stride + 1;
}

bool is_max(cudnnPoolingMode_t m) { return m == CUDNN_POOLING_MAX || m == CUDNN_POOLING_MAX_DETERMINISTIC; }

struct Pooling {
  cudnnPoolingStruct pool;
  int planes, in_h, in_w, out_h, out_w;
  double alpha, beta;
  const void* x;
  void* y;
};

template <class T>
void pool(const Pooling& p) {
  const cudnnPoolingStruct& d = p.pool;
  const T* x = static_cast<const T*>(p.x);
  T* y = static_cast<T*>(p.y);
  for (int plane = 0; plane < p.planes; ++plane) {
    const T* in = x + int64_t(plane) * p.in_h * p.in_w;
    T* out = y + int64_t(plane) * p.out_h * p.out_w;
    for (int i = 0; i < p.out_h; ++i)
      for (int j = 0; j < p.out_w; ++j) {
        const int h0 = i * d.stride_h - d.pad_h, w0 = j * d.stride_w - d.pad_w;
        double best = -std::numeric_limits<double>::infinity(), sum = 0;
        int count = 0;
        bool nan = false;
        for (int h = std::max(h0, 0); h < std::min(h0 + d.window_h, p.in_h); ++h)
          for (int w = std::max(w0, 0); w < std::min(w0 + d.window_w, p.in_w); ++w) {
            const double v = static_cast<double>(in[h * p.in_w + w]);
            nan = nan || std::isnan(v);
            if (v > best) best = v;  // false for NaN: CUDNN_NOT_PROPAGATE_NAN skips it
            sum += v;
            ++count;
          }
        double r = 0;
        if (is_max(d.mode))
          r = nan && d.nan == CUDNN_PROPAGATE_NAN ? std::numeric_limits<double>::quiet_NaN() : best;
        else
          r = sum / (d.mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? d.window_h * d.window_w : count);
        blend(&out[i * p.out_w + j], r, p.alpha, p.beta);
      }
  }
}

}  // namespace
}  // namespace ember::emulation::dnn

using namespace ember::emulation;
using namespace ember::emulation::dnn;

// "cudnnPoolingForward()": y = alpha * pool(x) + beta * y. Statuses:
//  - BAD_PARAM_NULL_POINTER: a null alpha, beta, x or y.
//  - BAD_PARAM, as documented: n or c of x and y differ, or their data types differ. Also
//    an unset descriptor (the strict choice), and an output larger than
//    floor((H + 2 pad - window) / stride) + 1 (and likewise along W): the reference lets y
//    be "smaller or bigger than the dimensions advised" but does not say what a window past
//    the padded input holds, so the model refuses those (the strict choice); a smaller y
//    gets the leading windows. A window that holds no input position at all (pad >=
//    window) is refused too, for the same reason.
//  - the pointer statuses of check_pointer.
// With CUDNN_NOT_PROPAGATE_NAN a max ignores NaN (a window of NaN only gives -inf, the
// reference being silent); averages carry NaN whichever the option, as a sum does.
cudnnStatus_t cudnnPoolingForward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t pooling_desc,
                                  const void* alpha, const cudnnTensorDescriptor_t x_desc, const void* x,
                                  const void* beta, const cudnnTensorDescriptor_t y_desc, void* y) {
  if (const cudnnStatus_t s = check_handle(handle)) return s;
  if (!alpha || !beta || !x || !y) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!is_set(pooling_desc) || !is_set(x_desc) || !is_set(y_desc)) return CUDNN_STATUS_BAD_PARAM;
  const cudnnPoolingStruct& d = *pooling_desc;
  const cudnnTensorStruct &xd = *x_desc, &yd = *y_desc;
  if (xd.n != yd.n || xd.c != yd.c || xd.type != yd.type) return CUDNN_STATUS_BAD_PARAM;
  if (d.pad_h >= d.window_h || d.pad_w >= d.window_w) return CUDNN_STATUS_BAD_PARAM;
  if (yd.h > advised(xd.h, d.window_h, d.pad_h, d.stride_h) ||
      yd.w > advised(xd.w, d.window_w, d.pad_w, d.stride_w))
    return CUDNN_STATUS_BAD_PARAM;
  const cudnnDataType_t type = xd.type;
  const size_t e = element_size(type);
  if (const cudnnStatus_t s = check_pointer(handle, x, elements(xd) * e, e, "cudnnPoolingForward x"))
    return s;
  if (const cudnnStatus_t s = check_pointer(handle, y, elements(yd) * e, e, "cudnnPoolingForward y"))
    return s;
  Pooling p{d, xd.n * xd.c, xd.h, xd.w, yd.h, yd.w, 0, 0, x, y};
  read_scale(alpha, type, &p.alpha);
  read_scale(beta, type, &p.beta);
  enqueue(handle, [p, type] { type == CUDNN_DATA_DOUBLE ? pool<double>(p) : pool<float>(p); });
  return CUDNN_STATUS_SUCCESS;
}
