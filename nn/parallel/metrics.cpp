#include "ember/nn/parallel/metrics.h"

#include <vector>

#include "ember/core/ops/factory.h"

namespace ember::nn::parallel {

// float64 and int64 scalars: a loss summed over many ranks keeps its digits, and counts stay
// exact.
double mean_over_ranks(double value, ProcessGroup& group) {
  const Tensor t = from_vector(std::vector<double>{value});
  group.all_reduce(t, AllReduceOp::Avg);
  return t.item<double>();
}

int64_t sum_over_ranks(int64_t count, ProcessGroup& group) {
  const Tensor t = from_vector(std::vector<int64_t>{count});
  group.all_reduce(t, AllReduceOp::Sum);
  return t.item<int64_t>();
}

}  // namespace ember::nn::parallel
