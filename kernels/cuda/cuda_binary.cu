// Binary elementwise ops and comparisons on CUDA, operands broadcast to the output's shape
// (zero strides). ReluBackward is fn::ReluBackward here too: one NaN rule on both devices.
#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cuda/cuda_loops.cuh"
#include "ember/kernels/elementwise_dispatch.h"

namespace ember {

void CudaBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  if (is_comparison(op)) {
    EMBER_DISPATCH_ALL(a.dtype(), "comparison", [&] {
      with_comparison(op, [&](auto f) { cuda_detail::launch_map2<bool, scalar_t, scalar_t>(out, a, b, f); });
    });
    return;
  }
  EMBER_DISPATCH_NUMERIC(a.dtype(), "binary", [&] {
    with_binary<scalar_t>(
        op, [&](auto f) { cuda_detail::launch_map2<scalar_t, scalar_t, scalar_t>(out, a, b, f); });
  });
}

}  // namespace ember
