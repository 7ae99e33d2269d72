// One convolution problem of the cuDNN models (EMBER_CUDA=EMULATE only): its checks, the
// modelled algorithms and the host math all three directions share (cudnn_convolution.h).
#include <cstring>
#include <memory>
#include <vector>

#include "cuda_emulator/cudnn_convolution.h"

namespace ember::emulation::dnn {
namespace {

// "cudnnGetConvolution2dForwardOutputDim()": each spatial output dimension is
// 1 + (input + 2 * pad - ((filter - 1) * dilation + 1)) / stride; N is x's, C is w's K.
// False when the dilated filter is larger than the padded input (no output exists).
bool output_dims(const cudnnTensorStruct& x, const cudnnFilterStruct& w, const cudnnConvolutionStruct& c,
                 cudnnTensorStruct* y) {
  using Wide = long long;  // no int overflow for large dilations or pads
  const Wide span_h = Wide(w.h - 1) * c.dilation_h + 1, span_w = Wide(w.w - 1) * c.dilation_w + 1;
  const Wide in_h = x.h + Wide(2) * c.pad_h, in_w = x.w + Wide(2) * c.pad_w;
  if (span_h > in_h || span_w > in_w) return false;
  *y = cudnnTensorStruct{
      true, x.type, x.n, w.k, int(1 + (in_h - span_h) / c.stride_h), int(1 + (in_w - span_w) / c.stride_w)};
  return true;
}

bool supported_configuration(cudnnDataType_t data, cudnnDataType_t compute) {
  return (data == CUDNN_DATA_FLOAT && compute == CUDNN_DATA_FLOAT) ||
         (data == CUDNN_DATA_DOUBLE && compute == CUDNN_DATA_DOUBLE);
}

// Calls tap(x index, w index, y index) for every product the convolution sums: y[n, k, p, q]
// takes x[n, c, p * u - pad_h + r * dilation_h, q * v - pad_w + s * dilation_w] (inside the
// input; the padding is zeros) times w[k, c, r, s], the filter flipped in r and s in
// CUDNN_CONVOLUTION mode ("cudnnConvolutionMode_t").
template <class Tap>
void for_each_tap(const ConvProblem& p, Tap tap) {
  const cudnnTensorStruct &x = p.x, &y = p.y;
  const cudnnFilterStruct& w = p.w;
  const cudnnConvolutionStruct& c = p.conv;
  const bool flip = c.mode == CUDNN_CONVOLUTION;
  for (size_t n = 0; n < size_t(x.n); ++n)
    for (size_t k = 0; k < size_t(w.k); ++k)
      for (int oh = 0; oh < y.h; ++oh)
        for (int ow = 0; ow < y.w; ++ow) {
          const size_t yi = ((n * w.k + k) * y.h + oh) * y.w + ow;
          for (size_t ch = 0; ch < size_t(x.c); ++ch)
            for (int r = 0; r < w.h; ++r) {
              const int ih = oh * c.stride_h - c.pad_h + r * c.dilation_h;
              if (ih < 0 || ih >= x.h) continue;
              for (int s = 0; s < w.w; ++s) {
                const int iw = ow * c.stride_w - c.pad_w + s * c.dilation_w;
                if (iw < 0 || iw >= x.w) continue;
                const int fr = flip ? w.h - 1 - r : r, fs = flip ? w.w - 1 - s : s;
                tap(((n * x.c + ch) * x.h + ih) * x.w + iw, ((k * x.c + ch) * w.h + fr) * w.w + fs, yi);
              }
            }
        }
}

size_t output_elements(ConvDirection dir, const ConvProblem& p) {
  return dir == ConvDirection::Forward        ? elements(p.y)
         : dir == ConvDirection::BackwardData ? elements(p.x)
                                              : elements(p.w);
}

// The direction's sums in double, then blended into out.
template <class T>
void convolve(ConvDirection dir, const ConvProblem& p, const T* a, const T* b, T* out, double alpha,
              double beta) {
  std::vector<double> acc(output_elements(dir, p), 0.0);
  switch (dir) {
    case ConvDirection::Forward:  // a = x, b = w
      for_each_tap(p, [&](size_t xi, size_t wi, size_t yi) { acc[yi] += double(a[xi]) * double(b[wi]); });
      break;
    case ConvDirection::BackwardData:  // a = w, b = dy
      for_each_tap(p, [&](size_t xi, size_t wi, size_t yi) { acc[xi] += double(b[yi]) * double(a[wi]); });
      break;
    case ConvDirection::BackwardFilter:  // a = x, b = dy
      for_each_tap(p, [&](size_t xi, size_t wi, size_t yi) { acc[wi] += double(a[xi]) * double(b[yi]); });
      break;
  }
  for (size_t i = 0; i < acc.size(); ++i) blend(out + i, acc[i], alpha, beta);
}

}  // namespace

cudnnStatus_t check_problem(ConvDirection dir, const cudnnTensorStruct* x, const cudnnFilterStruct* w,
                            const cudnnConvolutionStruct* conv, const cudnnTensorStruct* y,
                            ConvProblem* out) {
  if (!is_set(x) || !is_set(w) || !is_set(conv) || !is_set(y)) return CUDNN_STATUS_BAD_PARAM;
  if (x->type != w->type || x->type != y->type || x->c != w->c) return CUDNN_STATUS_BAD_PARAM;
  cudnnTensorStruct expected;
  if (!output_dims(*x, *w, *conv, &expected)) return CUDNN_STATUS_BAD_PARAM;
  if (expected.n != y->n || expected.c != y->c || expected.h != y->h || expected.w != y->w)
    return dir == ConvDirection::Forward ? CUDNN_STATUS_NOT_SUPPORTED : CUDNN_STATUS_BAD_PARAM;
  if (!supported_configuration(x->type, conv->compute)) return CUDNN_STATUS_NOT_SUPPORTED;
  *out = ConvProblem{*x, *w, *conv, *y};
  return CUDNN_STATUS_SUCCESS;
}

int conv_algorithm_count(ConvDirection dir) {
  switch (dir) {
    case ConvDirection::Forward:
      return CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    case ConvDirection::BackwardData:
      return CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    case ConvDirection::BackwardFilter:
      return CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  }
  return 0;
}

// The modelled algorithms, each with a workspace of the kind its name suggests (so some
// need none and some need one that grows with the problem), and the determinism the
// cudnn_cnn enum comments state. The rest of the enumerants are not modelled.
ConvAlgorithm conv_algorithm(ConvDirection dir, int algo, const ConvProblem& p) {
  const double flops = 2.0 * elements(p.y) * p.w.c * p.w.h * p.w.w;
  const size_t esize = element_size(p.x.type);
  const size_t one_image_columns =
      esize * size_t(p.w.c) * p.w.h * p.w.w * p.y.h * p.y.w;  // im2col of one image
  auto algorithm = [&](bool deterministic, size_t workspace, double speed) {
    return ConvAlgorithm{true, deterministic, workspace, flops / 1e9 / speed};
  };
  switch (dir) {
    case ConvDirection::Forward:
      if (algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM) return algorithm(true, 0, 1.0);
      if (algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) {  // precomputed input offsets
        ConvAlgorithm vectorised = algorithm(true, sizeof(int) * size_t(p.w.c) * p.w.h * p.w.w, 1.6);
        vectorised.operand_alignment = 16;
        return vectorised;
      }
      if (algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM) return algorithm(true, one_image_columns, 1.3);
      break;
    case ConvDirection::BackwardData:
      if (algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0) return algorithm(false, 0, 1.4);  // atomic adds
      if (algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1) return algorithm(true, one_image_columns, 1.1);
      break;
    case ConvDirection::BackwardFilter:
      if (algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0) return algorithm(false, 0, 1.2);
      if (algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1) return algorithm(true, one_image_columns, 1.0);
      if (algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3)  // partial filter gradients, summed in any order
        return algorithm(false, esize * elements(p.w), 1.5);
      break;
  }
  return ConvAlgorithm{};
}

bool operands_aligned(const ConvAlgorithm& info, const void* a, const void* b, const void* out) {
  if (info.operand_alignment == 0) return true;
  for (const void* ptr : {a, b, static_cast<const void*>(out)})
    if (reinterpret_cast<uintptr_t>(ptr) % info.operand_alignment) return false;
  return true;
}

cudnnStatus_t check_workspace(cudnnHandle_t handle, const void* workspace, size_t given, size_t needed) {
  if (given < needed) return CUDNN_STATUS_BAD_PARAM;
  return check_pointer(handle, workspace, needed, 16, "cuDNN convolution workspace");
}

cudnnStatus_t check_conv_pointers(cudnnHandle_t handle, ConvDirection dir, const ConvProblem& p,
                                  const void* a, const void* b, const void* out) {
  const size_t es = element_size(p.x.type);
  const size_t nx = elements(p.x) * es, nw = elements(p.w) * es, ny = elements(p.y) * es;
  struct Arg {
    const void* ptr;
    size_t bytes;
    const char* what;
  };
  const Arg args[3] = {
      dir == ConvDirection::Forward        ? Arg{a, nx, "x"}
      : dir == ConvDirection::BackwardData ? Arg{a, nw, "w"}
                                           : Arg{a, nx, "x"},
      dir == ConvDirection::Forward ? Arg{b, nw, "w"} : Arg{b, ny, "dy"},
      dir == ConvDirection::Forward        ? Arg{out, ny, "y"}
      : dir == ConvDirection::BackwardData ? Arg{out, nx, "dx"}
                                           : Arg{out, nw, "dw"},
  };
  for (const Arg& arg : args) {
    const std::string what = std::string("cuDNN convolution ") + arg.what;
    if (const cudnnStatus_t s = check_pointer(handle, arg.ptr, arg.bytes, es, what)) return s;
  }
  return CUDNN_STATUS_SUCCESS;
}

void enqueue_convolution(cudnnHandle_t handle, ConvDirection dir, const ConvProblem& p, const void* a,
                         const void* b, void* out, double alpha, double beta, void* workspace,
                         size_t workspace_bytes) {
  enqueue(handle, [=] {
    if (workspace_bytes) std::memset(workspace, 0xA5, workspace_bytes);  // the algorithm's scratch, all of it
    if (p.x.type == CUDNN_DATA_DOUBLE)
      convolve(dir, p, static_cast<const double*>(a), static_cast<const double*>(b),
               static_cast<double*>(out), alpha, beta);
    else
      convolve(dir, p, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(out),
               alpha, beta);
  });
}

}  // namespace ember::emulation::dnn
