#pragma once
// The number of CPU threads Ember's kernels (and Eigen's GEMM) may use.
#include "ember/core/export.h"

namespace ember {

/// Sets the CPU thread count (>= 1; ValueError otherwise).
EMBER_API void set_num_threads(int n);
/// The CPU thread count in use.
EMBER_API int get_num_threads();

}  // namespace ember
