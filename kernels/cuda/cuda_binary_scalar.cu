// Tensor-scalar forms of the binary ops and comparisons: the scalar, converted to the tensor's
// dtype (the front-end promoted the tensor first), is bound into the functor, which then runs
// as a unary map.
#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cast.h"
#include "ember/kernels/cuda/cuda_loops.cuh"
#include "ember/kernels/elementwise_dispatch.h"
#include "ember/kernels/scalar_cast.h"

namespace ember {
namespace {

// The scalar's side is a member, not a template argument: one kernel per op and dtype serves
// both sides (half the instantiations, which made this the longest file to compile in every
// build; the branch is uniform across a launch).
template <class F, class T>
struct BindScalar {
  F f;
  T s;
  bool scalar_first;
  EMBER_HD auto operator()(T x) const { return scalar_first ? f(s, x) : f(x, s); }
};

template <class T, class F>
void run_scalar(const Tensor& out, const Tensor& a, F f, T s, bool scalar_first) {
  using To = decltype(f(s, s));
  cuda_detail::launch_map1<To, T>(out, a, BindScalar<F, T>{f, s, scalar_first});
}

}  // namespace

void CudaBackend::binary_scalar(BinaryOp op, const Tensor& out, const Tensor& a, const Scalar& s,
                                bool scalar_first) {
  if (is_comparison(op)) {
    EMBER_DISPATCH_ALL(a.dtype(), "comparison", [&] {
      with_comparison(
          op, [&](auto f) { run_scalar<scalar_t>(out, a, f, scalar_value<scalar_t>(s), scalar_first); });
    });
    return;
  }
  EMBER_DISPATCH_NUMERIC(a.dtype(), "binary", [&] {
    with_binary<scalar_t>(
        op, [&](auto f) { run_scalar<scalar_t>(out, a, f, scalar_value<scalar_t>(s), scalar_first); });
  });
}

}  // namespace ember
