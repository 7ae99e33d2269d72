// Unary elementwise ops on CUDA: each op is a functor from kernels/functors.h (shared with
// the CPU) run by the loops of cuda_loops.cuh, relu included (one NaN rule on both devices).
#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cuda/cuda_loops.cuh"
#include "ember/kernels/elementwise_dispatch.h"

namespace ember {

void CudaBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in, double p0, double p1) {
  if (op == UnaryOp::LogicalNot) {
    EMBER_DISPATCH_ALL(in.dtype(), "logical_not",
                       [&] { cuda_detail::launch_map1<bool, scalar_t>(out, in, fn::LogicalNot{}); });
    return;
  }
  EMBER_DISPATCH_NUMERIC(in.dtype(), "unary", [&] {
    with_unary<scalar_t>(op, p0, p1,
                         [&](auto f) { cuda_detail::launch_map1<scalar_t, scalar_t>(out, in, f); });
  });
}

}  // namespace ember
