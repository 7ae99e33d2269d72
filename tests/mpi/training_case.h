#pragma once
// The data both a data-parallel run and its one-process reference train on: 64 seeded
// "images" for the tutorial net, identical on every rank, and the rank's contiguous shard.
#include <cstdint>
#include <utility>

#include "ember/ember.h"

namespace ember::test {

struct TrainingData {
  Tensor images;  // [64, 1, 28, 28]
  Tensor labels;  // [64] int64
};

inline TrainingData training_data() {
  manual_seed(1234);
  TrainingData d;
  d.images = randn({64, 1, 28, 28});
  d.labels = randint(0, 10, {64});
  return d;
}

/// The first example and the count of shard `rank` of `n` examples split over `world` ranks
/// as evenly as possible, larger shards first (64 over 3: 22, 21, 21).
inline std::pair<int64_t, int64_t> shard_of(int64_t n, int rank, int world) {
  const int64_t base = n / world, extra = n % world;
  const int64_t count = base + (rank < extra ? 1 : 0);
  const int64_t first = rank * base + std::min<int64_t>(rank, extra);
  return {first, count};
}

}  // namespace ember::test
