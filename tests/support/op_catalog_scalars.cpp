// Catalog cases for scalar promotion, floor_divide and int32 indices: the mixed-device
// tests, gradcheck and the CUDA parity suite run them like every other op.
#include "support/op_catalog_args.h"

namespace ember::test {
namespace {

using namespace catalog;
using Args = const std::vector<Tensor>&;

OpSpec not_differentiable(OpSpec s) {
  s.differentiable = false;
  return s;
}

}  // namespace

std::vector<OpSpec> scalars_cases() {
  std::vector<OpSpec> ops;
  // (floor_divide of two tensors: from the op table, op_catalog_elementwise.cpp.)
  ops.push_back({"floor_divide_scalar_strided", "floor_divide", {f("input", {4, 3}, -3, 3)}, [](Args a) {
                   return floor_divide(a[0].t(), 0.75);
                 }});
  // Integer tensors promoted by floating scalars and divided truly (float32 results).
  ops.push_back(
      not_differentiable({"int_tensor_times_half", "mul", {idx("input", {2, 3}, -5, 5)}, [](Args a) {
                            return a[0].t() * 0.5;
                          }}));
  ops.push_back(not_differentiable(
      {"int_tensor_true_division", "div", {idx("lhs", {6}, -9, 9), idx("rhs", {6}, 1, 4)}, [](Args a) {
         return a[0] / a[1];
       }}));
  ops.push_back(not_differentiable(
      {"int_floor_divide", "floor_divide", {idx("lhs", {2, 3}, -9, 9), idx("rhs", {3}, 1, 4)}, [](Args a) {
         return floor_divide(a[0], a[1]);
       }}));
  // where with a scalar side: the tensor side gets its gradient, the scalar none.
  ops.push_back(
      {"where_scalar_other", "where", {boolean("condition", {2, 3}), f("input", {2, 3})}, [](Args a) {
         return where(a[0], a[1], 0.25);
       }});
  ops.push_back({"where_scalar_input", "where", {boolean("condition", {2, 3}), f("other", {3})}, [](Args a) {
                   return where(a[0], 2, a[1]);
                 }});
  // int32 indices, widened to int64 by the front-ends.
  ops.push_back(
      {"index_select_int32", "index_select", {f("input", {4, 3}), idx("index", {5}, 0, 4)}, [](Args a) {
         return index_select(a[0], 0, a[1].to(kInt32));
       }});
  ops.push_back(
      {"embedding_int32", "embedding", {idx("indices", {2, 3}, 0, 5), f("weight", {5, 4})}, [](Args a) {
         return embedding(a[0].to(kInt32), a[1]);
       }});
  ops.push_back({"gather_int32", "gather", {f("input", {3, 4}), idx("index", {3, 5}, 0, 4)}, [](Args a) {
                   return gather(a[0], 1, a[1].to(kInt32));
                 }});
  return ops;
}

}  // namespace ember::test
