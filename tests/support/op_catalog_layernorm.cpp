// layer_norm's catalog cases: with and without the affine transform, normalized_shape of one
// and two dims, strided and empty inputs, a row with a large common offset, and sizes that
// reach the CUDA kernels' paths (kernels/cuda/cuda_layer_norm.cu): a block of 32, 128 or 512
// threads a row (rows up to 32, up to 1024, longer), and the weight and bias gradients' column
// reduction in one chunk of rows or in several (256 rows or more) with its finishing pass.
#include "support/op_catalog_args.h"

namespace ember::test {
namespace {

using namespace catalog;
using Args = const std::vector<Tensor>&;

}  // namespace

std::vector<OpSpec> layernorm_cases() {
  std::vector<OpSpec> ops;
  ops.push_back(
      {"layer_norm", "layer_norm", {f("input", {4, 5}), f("weight", {5}), f("bias", {5})}, [](Args a) {
         return layer_norm(a[0], {5}, a[1], a[2]);
       }});
  ops.push_back({"layer_norm_no_affine", "layer_norm", {f("input", {3, 2, 6})}, [](Args a) {
                   return layer_norm(a[0], {6});
                 }});
  ops.push_back({"layer_norm_weight_only", "layer_norm", {f("input", {4, 5}), f("weight", {5})}, [](Args a) {
                   return layer_norm(a[0], {5}, a[1], Tensor(), 1e-3);
                 }});
  ops.push_back({"layer_norm_bias_only", "layer_norm", {f("input", {4, 5}), f("bias", {5})}, [](Args a) {
                   return layer_norm(a[0], {5}, Tensor(), a[1]);
                 }});
  // normalized_shape of two dims: weight and bias [3, 4], rows of 12.
  ops.push_back({"layer_norm_two_dims",
                 "layer_norm",
                 {f("input", {2, 3, 4}), f("weight", {3, 4}), f("bias", {3, 4})},
                 [](Args a) {
                   return layer_norm(a[0], {3, 4}, a[1], a[2]);
                 }});
  // A transposed input and a narrowed (strided) weight.
  ops.push_back({"layer_norm_strided",
                 "layer_norm",
                 {f("input", {5, 4}), f("weight", {2, 5}), f("bias", {5})},
                 [](Args a) { return layer_norm(a[0].t(), {5}, a[1].select(0, 1), a[2]); }});
  // No rows: an empty result, zero gradients for weight and bias.
  ops.push_back({"layer_norm_empty_batch",
                 "layer_norm",
                 {f("input", {0, 5}), f("weight", {5}), f("bias", {5})},
                 [](Args a) { return layer_norm(a[0], {5}, a[1], a[2]); }});
  // Values 10^4 + [-1, 1): statistics taken about zero in float32 would lose the deviations.
  ops.push_back({"layer_norm_large_offset",
                 "layer_norm",
                 {f("input", {3, 7}, 1e4 - 1, 1e4 + 1), f("weight", {7}), f("bias", {7})},
                 [](Args a) { return layer_norm(a[0], {7}, a[1], a[2]); }});
  // Rows of 200: blocks of 128 threads.
  ops.push_back({"layer_norm_rows_of_200",
                 "layer_norm",
                 {f("input", {3, 200}), f("weight", {200}), f("bias", {200})},
                 [](Args a) { return layer_norm(a[0], {200}, a[1], a[2]); }});
  // Rows of 3000: blocks of 512 threads, 6 elements a thread.
  ops.push_back({"layer_norm_wide_rows",
                 "layer_norm",
                 {f("input", {2, 3000}), f("weight", {3000}), f("bias", {3000})},
                 [](Args a) { return layer_norm(a[0], {3000}, a[1], a[2]); }});
  // 300 rows of 40: the column reduction in 2 chunks of rows and its finishing pass, and a
  // tile of 32 columns with 8 past the end.
  ops.push_back({"layer_norm_many_rows",
                 "layer_norm",
                 {f("input", {300, 40}), f("weight", {40}), f("bias", {40})},
                 [](Args a) { return layer_norm(a[0], {40}, a[1], a[2]); }});
  return ops;
}

}  // namespace ember::test
