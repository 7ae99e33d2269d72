#pragma once
// Metrics over a data-parallel job: each rank measures its own shard, these combine the
// numbers so that every rank (and rank 0, which reports) sees the job's figure.
#include <cstdint>

#include "ember/nn/parallel/process_group.h"

namespace ember::nn::parallel {

/// The mean of value over the ranks (a loss, an accuracy), the same on every rank.
EMBER_API double mean_over_ranks(double value, ProcessGroup& group = ProcessGroup::world());
/// The sum of count over the ranks (correct predictions, examples seen).
EMBER_API int64_t sum_over_ranks(int64_t count, ProcessGroup& group = ProcessGroup::world());

}  // namespace ember::nn::parallel
