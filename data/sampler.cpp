#include "ember/data/sampler.h"

#include <numeric>
#include <random>
#include <utility>

#include "ember/core/error.h"

namespace ember::data {

Sampler::~Sampler() = default;

std::vector<int64_t> shuffled_indices(size_t n, uint64_t seed, uint64_t epoch) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), int64_t{0});
  // seed_seq, mt19937_64 and this Fisher-Yates loop are all specified exactly by the
  // standard (std::shuffle and the distributions are not), so orders match everywhere.
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                    static_cast<uint32_t>(epoch), static_cast<uint32_t>(epoch >> 32)};
  std::mt19937_64 rng(seq);
  for (size_t i = order.size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(rng() % i);  // bias below i / 2^64: negligible
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

DistributedSampler::DistributedSampler(int world_size, int rank, bool shuffle, uint64_t seed, bool drop_last)
    : world_size_(world_size), rank_(rank), shuffle_(shuffle), seed_(seed), drop_last_(drop_last) {
  if (world_size < 1)
    raise<ValueError>("DistributedSampler: world_size must be at least 1, got ", world_size);
  if (rank < 0 || rank >= world_size)
    raise<ValueError>("DistributedSampler: rank must be in [0, ", world_size - 1, "], got ", rank);
}

size_t DistributedSampler::size(size_t dataset_size) const {
  const size_t w = static_cast<size_t>(world_size_);
  return drop_last_ ? dataset_size / w : (dataset_size + w - 1) / w;
}

std::vector<int64_t> DistributedSampler::indices(uint64_t epoch, size_t dataset_size) const {
  std::vector<int64_t> order;
  if (shuffle_) {
    order = shuffled_indices(dataset_size, seed_, epoch);
  } else {
    order.resize(dataset_size);
    std::iota(order.begin(), order.end(), int64_t{0});
  }
  const size_t per_rank = size(dataset_size);
  const size_t total = per_rank * static_cast<size_t>(world_size_);
  // Padding wraps around, repeatedly when the world is larger than the dataset.
  for (size_t i = 0; order.size() < total && dataset_size > 0; ++i) order.push_back(order[i]);
  std::vector<int64_t> shard;
  shard.reserve(per_rank);
  for (size_t i = static_cast<size_t>(rank_); i < total; i += static_cast<size_t>(world_size_))
    shard.push_back(order[i]);
  return shard;
}

SubsetRandomSampler::SubsetRandomSampler(std::vector<int64_t> subset, uint64_t seed)
    : subset_(std::move(subset)), seed_(seed) {
  for (int64_t i : subset_)
    if (i < 0) raise<ValueError>("SubsetRandomSampler: indices must be >= 0, got ", i);
}

std::vector<int64_t> SubsetRandomSampler::indices(uint64_t epoch, size_t dataset_size) const {
  for (int64_t i : subset_)
    if (static_cast<uint64_t>(i) >= dataset_size)
      raise<IndexError>("SubsetRandomSampler: index ", i, " is out of range for a dataset of ", dataset_size,
                        " examples");
  std::vector<int64_t> order = shuffled_indices(subset_.size(), seed_, epoch);
  for (int64_t& position : order) position = subset_[static_cast<size_t>(position)];
  return order;
}

size_t SubsetRandomSampler::size(size_t /*dataset_size*/) const { return subset_.size(); }

}  // namespace ember::data
