#pragma once
// Samplers: which examples a DataLoader epoch visits, and in which order
// (DataLoaderOptions::sampler). DistributedSampler gives each rank of a data-parallel job its
// own shard, as torch.utils.data.distributed.DistributedSampler does.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ember/core/export.h"

namespace ember::data {

/// The example order of one epoch.
class EMBER_API Sampler {
 public:
  virtual ~Sampler();
  /// The indices epoch `epoch` visits, for a dataset of dataset_size examples.
  virtual std::vector<int64_t> indices(uint64_t epoch, size_t dataset_size) const = 0;
  /// How many indices an epoch has (indices(e, n).size(), without drawing them).
  virtual size_t size(size_t dataset_size) const = 0;
};

/// A permutation of 0 .. n - 1 that depends only on (seed, epoch, n), the same on every
/// machine: the DataLoader's shuffle, and the order DistributedSampler shards.
EMBER_API std::vector<int64_t> shuffled_indices(size_t n, uint64_t seed, uint64_t epoch);

/// Splits each epoch's order among world_size ranks, as PyTorch does: every rank draws the
/// same permutation (from seed and the epoch, so the DataLoader's epoch, set_epoch included,
/// reshuffles it; no separate sampler.set_epoch call), then takes every world_size-th index
/// from position rank. The shards are disjoint, and together they cover the data: an order
/// whose length does not divide by world_size is padded with its own first indices
/// (drop_last = false), or its tail is dropped (drop_last = true) so that every rank gets the
/// same number of examples and takes the same number of steps.
class EMBER_API DistributedSampler final : public Sampler {
 public:
  /// ValueError unless world_size >= 1 and 0 <= rank < world_size.
  DistributedSampler(int world_size, int rank, bool shuffle = true, uint64_t seed = 0,
                     bool drop_last = false);

  std::vector<int64_t> indices(uint64_t epoch, size_t dataset_size) const override;
  /// Examples per rank: ceil(n / world_size), or floor with drop_last.
  size_t size(size_t dataset_size) const override;

  int world_size() const { return world_size_; }
  int rank() const { return rank_; }

 private:
  int world_size_;
  int rank_;
  bool shuffle_;
  uint64_t seed_;
  bool drop_last_;
};

/// Visits only the given examples, in a new order each epoch (from seed and the epoch), as
/// torch.utils.data.SubsetRandomSampler does: training on part of a dataset without copying
/// it. ValueError for a negative index; IndexError when an epoch is drawn for a dataset the
/// indices do not fit in.
class EMBER_API SubsetRandomSampler final : public Sampler {
 public:
  explicit SubsetRandomSampler(std::vector<int64_t> subset, uint64_t seed = 0);

  std::vector<int64_t> indices(uint64_t epoch, size_t dataset_size) const override;
  size_t size(size_t dataset_size) const override;

 private:
  std::vector<int64_t> subset_;
  uint64_t seed_;
};

}  // namespace ember::data
