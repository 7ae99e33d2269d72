#pragma once
// Argument makers shared by the catalog's files (op_catalog.cpp, op_catalog_block_paths.cpp).
#include <string>
#include <vector>

#include "support/op_catalog.h"

namespace ember::test {
namespace catalog {

inline ArgSpec f(const std::string& name, Shape shape, double lo = -1, double hi = 1) {
  return ArgSpec{name, std::move(shape), kFloat32, lo, hi, true};
}
inline ArgSpec idx(const std::string& name, Shape shape, double lo, double hi) {
  return ArgSpec{name, std::move(shape), kInt64, lo, hi, false};
}
// A floating argument that gradcheck leaves alone (running statistics).
inline ArgSpec fixed(const std::string& name, Shape shape, double lo, double hi) {
  return ArgSpec{name, std::move(shape), kFloat32, lo, hi, false};
}
inline ArgSpec boolean(const std::string& name, Shape shape) {
  return ArgSpec{name, std::move(shape), kBool, 0, 2, false};
}

}  // namespace catalog

/// The cases of every op the elementwise table generates, drawn from each functor's domain
/// (op_catalog_elementwise.cpp).
std::vector<OpSpec> elementwise_cases();
/// The cases whose sizes reach the CUDA block-reduction and wide-row kernels
/// (op_catalog_block_paths.cpp).
std::vector<OpSpec> block_path_cases();
/// layer_norm's cases (op_catalog_layernorm.cpp).
std::vector<OpSpec> layernorm_cases();
/// The class losses' ignore_index and label_smoothing cases (op_catalog_training.cpp).
std::vector<OpSpec> training_cases();

/// The transformer toolkit's pointwise ops and moments: gelu, masked_fill, var, std
/// (op_catalog_pointwise.cpp).
std::vector<OpSpec> pointwise_cases();
/// Scalar promotion, floor_divide and int32 indices (op_catalog_scalars.cpp).
std::vector<OpSpec> scalars_cases();
/// scaled_dot_product_attention's cases (op_catalog_attention.cpp).
std::vector<OpSpec> attention_cases();
/// Sizes that end mid-block and mid-warp, and writes into views with more base after them:
/// the CUDA kernels' tails (op_catalog_tails.cpp).
std::vector<OpSpec> tails_cases();

}  // namespace ember::test
