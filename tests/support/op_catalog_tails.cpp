// Catalog cases whose sizes end mid-block and mid-warp, so that a CUDA kernel's tail (the
// last, partial block of a grid-stride loop; the last lanes of a row) is where its bugs
// show. Elementwise kernels run 256 threads a block (kernels/cuda/cuda_loops.cuh; the
// vector path one thread per 4 elements), row kernels 32, 128 or 512 (row_launch.cuh); the
// emulated device has 4 SMs, so grids stop at 128 blocks and larger sizes grid-stride.
//
// A loop that stops one element short leaves a NaN (the parity suite fills fresh device
// memory with NaNs). A loop that runs one element past the end writes memory nobody reads
// when the output was allocated for the op, which only a memory checker sees (the ASan
// stage). So where an op can write into a view, the cases below hand it a view with more
// of its base after the last element (a prefix, a corner of a matrix): one element too many
// lands in the base, which the case returns whole.
#include "support/op_catalog_args.h"

namespace ember::test {
namespace {

using namespace catalog;
using Args = const std::vector<Tensor>&;

// Tail cases check the kernels' edges, not the formulas (the small cases do that): finite
// differences over thousands of elements would only slow gradcheck down.
OpSpec tail(OpSpec s) {
  s.finite_differences = false;
  return s;
}
OpSpec not_differentiable(OpSpec s) {
  s.differentiable = false;
  return s;
}
// In-place writes into a view of a clone: checked forward only.
OpSpec writes_into_view(OpSpec s) { return not_differentiable(std::move(s)); }
// copy_ takes its source from any device.
OpSpec copies_into_view(OpSpec s) {
  s.crosses_devices = true;
  return writes_into_view(std::move(s));
}

// The other float dtype: float32 on the device becomes float64 and back (the CPU's float64
// reference goes through float32), so copy_ converts and takes the kernel path, not a memcpy.
DType other_float(DType t) { return t == kFloat32 ? kFloat64 : kFloat32; }

}  // namespace

std::vector<OpSpec> tails_cases() {
  std::vector<OpSpec> ops;
  // ---- elementwise (cuda_loops.cuh) ----
  // 2051 = 4 * 512 + 3: the vector path's 513 threads (3 blocks, the last with one thread),
  // then a scalar tail of 3.
  ops.push_back(tail({"add_tail_2051", "add", {f("lhs", {2051}), f("rhs", {2051})}, [](Args a) {
                        return add(a[0], a[1]);
                      }}));
  // Misaligned by one element: the scalar path over 1001 = 3 * 256 + 233 (7 warps and 9 lanes).
  ops.push_back(tail({"mul_tail_misaligned_1001", "mul", {f("lhs", {1002}), f("rhs", {1002})}, [](Args a) {
                        return mul(a[0].narrow(0, 1, 1001), a[1].narrow(0, 1, 1001));
                      }}));
  // Broadcast: the strided path over 37 * 29 = 1073 elements.
  ops.push_back(tail({"sub_tail_broadcast_37x29", "sub", {f("lhs", {37, 29}), f("rhs", {29})}, [](Args a) {
                        return sub(a[0], a[1]);
                      }}));
  ops.push_back(tail({"exp_tail_1001", "exp", {f("input", {1001})}, [](Args a) { return exp(a[0]); }}));
  ops.push_back(tail(
      {"tanh_tail_strided_29x37", "tanh", {f("input", {37, 29})}, [](Args a) { return tanh(a[0].t()); }}));
  ops.push_back(tail({"where_tail_37x29",
                      "where",
                      {boolean("condition", {37, 29}), f("input", {37, 29}), f("other", {29})},
                      [](Args a) { return where(a[0], a[1], a[2]); }}));
  // ---- writes into views: one element too many lands in the returned base ----
  // copy_ with a conversion into a prefix: the contiguous (vector) path, 1001 of 1030.
  ops.push_back(
      copies_into_view({"copy_tail_prefix_1001", "copy_", {f("self", {1030}), f("src", {1001})}, [](Args a) {
                          Tensor base = a[0].clone();
                          base.narrow(0, 0, 1001).copy_(a[1].to(other_float(a[1].dtype())));
                          return base;
                        }}));
  // copy_ into the 37 x 29 corner of a 40 x 33 matrix: the strided path; past the end is
  // row 37 of the base.
  ops.push_back(copies_into_view(
      {"copy_tail_corner_37x29", "copy_", {f("self", {40, 33}), f("src", {37, 29})}, [](Args a) {
         Tensor base = a[0].clone();
         base.narrow(0, 0, 37).narrow(1, 0, 29).copy_(a[1]);
         return base;
       }}));
  // mul_ on the corner: the product (strided operands) copied back into the view.
  ops.push_back(writes_into_view(
      {"mul__tail_corner_37x29", "mul_", {f("self", {40, 33}), f("other", {29})}, [](Args a) {
         Tensor base = a[0].clone();
         base.narrow(0, 0, 37).narrow(1, 0, 29).mul_(a[1]);
         return base;
       }}));
  // fill_ of a prefix of 1001 (fill kernel), and of the corner (through a copy).
  ops.push_back(writes_into_view({"fill__tail_prefix_1001", "fill_", {f("self", {1030})}, [](Args a) {
                                    Tensor base = a[0].clone();
                                    base.narrow(0, 0, 1001).fill_(0.25);
                                    return base;
                                  }}));
  ops.push_back(writes_into_view({"fill__tail_corner_37x29", "fill_", {f("self", {40, 33})}, [](Args a) {
                                    Tensor base = a[0].clone();
                                    base.narrow(0, 0, 37).narrow(1, 0, 29).fill_(-0.5);
                                    return base;
                                  }}));
  // ---- reductions (cuda_reduce.cu) ----
  // Rows of 37: one thread a row (reduce_thread_kernel), 301 rows over 2 blocks.
  ops.push_back(
      tail({"sum_tail_rows_of_37", "sum", {f("input", {301, 37})}, [](Args a) { return sum(a[0], {1}); }}));
  // Rows of 257: a block a row (reduce_block_kernel), one element past the 256 threads.
  ops.push_back(tail(
      {"mean_tail_rows_of_257", "mean", {f("input", {5, 257})}, [](Args a) { return mean(a[0], {1}); }}));
  // 4099 elements into one: two splits (4096 a split) and the finishing pass.
  ops.push_back(tail({"sum_tail_all_4099", "sum", {f("input", {4099})}, [](Args a) { return sum(a[0]); }}));
  ops.push_back(tail(
      {"amax_tail_rows_of_1025", "amax", {f("input", {3, 1025})}, [](Args a) { return amax(a[0], {1}); }}));
  ops.push_back(not_differentiable(
      {"argmax_tail_rows_of_257", "argmax", {f("input", {7, 257})}, [](Args a) { return argmax(a[0], 1); }}));
  // ---- rows (cuda_softmax_loss.cu, cuda_layer_norm.cu) ----
  // Rows of 37: blocks of 128 threads, a row ending in the second warp.
  ops.push_back(tail({"softmax_tail_rows_of_37", "softmax", {f("input", {9, 37}, -3, 3)}, [](Args a) {
                        return softmax(a[0], 1);
                      }}));
  // 150 rows of 5: blocks of 32, more rows than the 128 blocks (the grid strides over rows).
  ops.push_back(
      tail({"log_softmax_tail_150_rows_of_5", "log_softmax", {f("input", {150, 5}, -3, 3)}, [](Args a) {
              return log_softmax(a[0], 1);
            }}));
  // Rows of 1025: blocks of 512 threads, the last element alone in its round.
  ops.push_back(tail({"softmax_tail_rows_of_1025", "softmax", {f("input", {3, 1025}, -3, 3)}, [](Args a) {
                        return softmax(a[0], 1);
                      }}));
  ops.push_back(tail({"cross_entropy_tail_33_classes",
                      "cross_entropy",
                      {f("input", {37, 33}, -3, 3), idx("target", {37}, 0, 33)},
                      [](Args a) { return cross_entropy(a[0], a[1], Reduction::None); }}));
  ops.push_back(tail({"layer_norm_tail_rows_of_37",
                      "layer_norm",
                      {f("input", {9, 37}), f("weight", {37}), f("bias", {37})},
                      [](Args a) { return layer_norm(a[0], {37}, a[1], a[2]); }}));
  // 257 rows of 33: the weight and bias gradients' column reduction in 2 chunks of rows
  // (256 a chunk), the second of one row.
  ops.push_back(tail({"layer_norm_tail_257_rows_of_33",
                      "layer_norm",
                      {f("input", {257, 33}), f("weight", {33}), f("bias", {33})},
                      [](Args a) { return layer_norm(a[0], {33}, a[1], a[2]); }}));
  // ---- indexing (cuda_index.cu; the gradients are scatter-adds) ----
  ops.push_back(tail({"index_select_tail_1001_rows",
                      "index_select",
                      {f("input", {37, 3}), idx("index", {1001}, 0, 37)},
                      [](Args a) { return index_select(a[0], 0, a[1]); }}));
  ops.push_back(
      tail({"gather_tail_37x41", "gather", {f("input", {37, 29}), idx("index", {37, 41}, 0, 29)}, [](Args a) {
              return gather(a[0], 1, a[1]);
            }}));
  ops.push_back(tail({"embedding_tail_33x31",
                      "embedding",
                      {idx("indices", {33, 31}, 0, 50), f("weight", {50, 7})},
                      [](Args a) { return embedding(a[0], a[1]); }}));
  return ops;
}

}  // namespace ember::test
