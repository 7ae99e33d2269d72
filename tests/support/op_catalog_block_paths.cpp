// Catalog cases sized to reach the CUDA kernels that small examples never launch. Each
// comment names the path (kernels/cuda/cuda_reduce.cu, cuda_softmax_loss.cu,
// cuda_pool_kernels.cu) on the emulated device (4 SMs) and on an H200 (132 SMs); the split
// count of a block reduction is min(ceil(4 * SMs / outputs), ceil(reduced / 4096)).
#include "support/op_catalog_args.h"

namespace ember::test {
namespace {

using namespace catalog;
using Args = const std::vector<Tensor>&;

// x's values replaced by pattern's, keeping x's identity gradient: d/dx (x - x + p) = 1.
// The difference x - x.detach() is exactly zero, so the values are pattern's, bit for bit.
Tensor values_of(const Tensor& x, const Tensor& pattern) { return x - x.detach() + pattern; }

// A few distinct values, so that pooling windows hold repeated maxima: trunc(2x) of x in
// [-1, 1) is -1, 0 or 1 (0 twice as often), the same on both devices.
Tensor steps_of(const Tensor& x) { return (x.detach() * 2.0).to(kInt64).to(x.dtype()); }

OpSpec not_differentiable(OpSpec s) {
  s.differentiable = false;
  return s;
}

// Ties make max pooling non-differentiable where they sit: finite differences see a kink,
// but the gradient must land where the CPU puts it (the first maximum of each window).
OpSpec with_ties(OpSpec s) {
  s.finite_differences = false;
  return s;
}

}  // namespace

std::vector<OpSpec> block_path_cases() {
  std::vector<OpSpec> ops;
  // ---- block reductions (cuda_reduce.cu: 256 or more reduced elements) ----
  // 3 outputs of 5000: reduce_block_kernel<false> in 2 splits, then reduce_finish_kernel.
  ops.push_back({"sum_wide_rows", "sum", {f("input", {3, 5000})}, [](Args a) { return sum(a[0], {1}); }});
  // 1 output of 15000: 4 splits of 3750 and the finishing pass.
  ops.push_back({"sum_wide_all", "sum", {f("input", {3, 5000})}, [](Args a) { return sum(a[0]); }});
  // 7 outputs of 300, stride 7: reduce_block_kernel<true> in one pass (300 < 4096).
  ops.push_back({"sum_tall_dim0", "sum", {f("input", {300, 7})}, [](Args a) { return sum(a[0], {0}); }});
  // 3 outputs of 600 over two non-adjacent dims: one pass, the reduced offsets through an
  // OffsetCalculator of two dims (inner_offset's general case).
  ops.push_back({"sum_block_two_dims", "sum", {f("input", {20, 3, 30})}, [](Args a) {
                   return sum(a[0], {0, 2});
                 }});
  // A maximum through the split path: 2 outputs of 5000, 2 splits and the finishing pass.
  ops.push_back({"amax_wide", "amax", {f("input", {2, 5000})}, [](Args a) { return amax(a[0], {1}); }});
  // ---- block arg-reductions (arg_block_kernel: 256 or more reduced elements) ----
  ops.push_back(not_differentiable(
      {"argmax_wide", "argmax", {f("input", {2, 1000})}, [](Args a) { return argmax(a[0], 1); }}));
  // A quarter of each row clamped to the maximum 0.5: the first of the tied indices wins,
  // across threads of the block (ArgCombine), as in the CPU's scan.
  ops.push_back(not_differentiable({"argmax_wide_ties", "argmax", {f("input", {2, 1000})}, [](Args a) {
                                      return argmax(clamp(a[0], -1, 0.5), 1);
                                    }}));
  // Down strided columns (stride 3), ties at the minimum -0.5.
  ops.push_back(not_differentiable({"argmin_tall_ties", "argmin", {f("input", {600, 3})}, [](Args a) {
                                      return argmin(clamp(a[0], -0.5, 1), 0);
                                    }}));
  // ---- wide rows (cuda_softmax_loss.cu: 512 threads a row above 1024 classes, 128 up to) ----
  // 3000 classes: softmax_kernel<512> and softmax_backward_kernel<512>, 6 elements a thread.
  ops.push_back(
      {"softmax_wide", "softmax", {f("input", {2, 3000}, -3, 3)}, [](Args a) { return softmax(a[0], 1); }});
  // Every log-probability subtracts the row's log-sum-exp, so that sum's rounding (it grows
  // with the row) enters gradcheck's weighted sum once per class: central differences are
  // off by about 1e-3 at this width. The small log_softmax case checks the formula.
  OpSpec wide_log{"log_softmax_wide", "log_softmax", {f("input", {2, 3000}, -3, 3)}, [](Args a) {
                    return log_softmax(a[0], 1);
                  }};
  wide_log.finite_differences = false;
  ops.push_back(wide_log);
  // 1000 classes: class_loss_kernel<128> and class_loss_backward_kernel<128>, 8 a thread.
  ops.push_back({"cross_entropy_1000_classes",
                 "cross_entropy",
                 {f("input", {4, 1000}, -3, 3), idx("target", {4}, 0, 1000)},
                 [](Args a) { return cross_entropy(a[0], a[1]); }});
  // ---- max pooling with ties (max_pool_indices_kernel, max_pool_backward_kernel) ----
  // Every value equal, overlapping padded windows: each index is its window's first cell
  // and cells that several windows pick gather all their gradients. (x * 0 mixes +0 and
  // -0, which compare equal: ties too.)
  ops.push_back(with_ties({"max_pool2d_all_equal", "max_pool2d", {f("input", {2, 2, 7, 6})}, [](Args a) {
                             return max_pool2d(values_of(a[0], zeros_like(a[0])), 3, 2, 1);
                           }}));
  ops.push_back(not_differentiable(
      {"max_pool2d_all_equal_indices", "max_pool2d", {f("input", {2, 2, 7, 6})}, [](Args a) {
         return max_pool2d_with_indices(a[0] * 0.0, 3, 2, 1).indices;
       }}));
  // Repeated maxima among three values, stride 1: most windows tie, some not.
  ops.push_back(
      with_ties({"max_pool2d_repeated_maxima", "max_pool2d", {f("input", {2, 3, 6, 7})}, [](Args a) {
                   return max_pool2d(values_of(a[0], steps_of(a[0])), 3, 1);
                 }}));
  ops.push_back(not_differentiable(
      {"max_pool2d_repeated_maxima_indices", "max_pool2d", {f("input", {2, 3, 6, 7})}, [](Args a) {
         return max_pool2d_with_indices(steps_of(a[0]), {2, 3}, 1).indices;
       }}));
  // ---- normal draws: within one float32 ulp (libm on the CPU, CUDA's log and cos) ----
  // 1001 values: not a multiple of the four a Philox counter gives, over several threads.
  OpSpec randn_case = not_differentiable(
      {"randn_like", "randn_like", {f("input", {7, 143})}, [](Args a) { return randn_like(a[0]); }});
  randn_case.random = true;
  randn_case.ulps = 1;
  ops.push_back(randn_case);
  return ops;
}

}  // namespace ember::test
