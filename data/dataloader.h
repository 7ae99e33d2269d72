#pragma once
// DataLoader: batches of a Dataset, optionally shuffled, prepared ahead on a worker thread
// and moved to a device.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

#include "ember/core/device.h"
#include "ember/data/dataset.h"
#include "ember/data/sampler.h"

namespace ember::data {

/// Turns examples fetched with Dataset::get into a batch.
using CollateFn = std::function<Batch(const std::vector<Example>&)>;

struct DataLoaderOptions {
  /// Examples per batch; 0 throws ValueError.
  size_t batch_size = 1;
  /// Visit the examples in a new random order each epoch, drawn from (seed, epoch).
  bool shuffle = false;
  uint64_t seed = 0;
  /// Skip the last batch when it would be smaller than batch_size.
  bool drop_last = false;
  /// Where batches arrive (data, target and every named field); unset keeps them where the
  /// collate put them.
  std::optional<Device> device;
  /// Prepare up to two batches ahead on a worker thread (including the device move).
  bool prefetch = true;
  /// When set, batches are collate(get(i) for each index); otherwise Dataset::get_batch.
  CollateFn collate;
  /// When set, it chooses each epoch's examples and order (e.g. a DistributedSampler); it
  /// shuffles itself, so shuffle must stay false (ValueError).
  std::shared_ptr<const Sampler> sampler;
};

namespace detail {
class EpochState;
}  // namespace detail

/// Iterates a dataset in batches: `for (Batch& b : loader)`. Each begin() starts a new
/// epoch (reshuffling when asked). An exception thrown while preparing a batch, on the
/// worker thread or not, is rethrown by the begin() or ++ that would have produced it.
/// Leaving a loop early is fine: the epoch's worker stops and is joined when the last
/// iterator of that epoch is destroyed.
class EMBER_API DataLoader {
 public:
  /// The largest batch_size accepted: 2^31 - 1.
  static constexpr size_t kMaxBatchSize = 2147483647;
  /// ValueError for a null dataset, or a batch_size of 0 or above kMaxBatchSize.
  DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options = {});

  /// An input iterator over one epoch's batches.
  class EMBER_API Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    using pointer = Batch*;
    using reference = Batch&;

    Iterator() = default;  // the end
    Batch& operator*() const;
    Batch* operator->() const { return &**this; }
    Iterator& operator++();
    void operator++(int) { ++*this; }
    /// Iterators are equal when both are at the end (the comparison a loop makes) or are
    /// copies within one epoch (single pass: copies advance together).
    bool operator==(const Iterator& other) const;
    bool operator!=(const Iterator& other) const { return !(*this == other); }

   private:
    friend class DataLoader;
    explicit Iterator(std::shared_ptr<detail::EpochState> state) : state_(std::move(state)) {}
    bool at_end() const;
    std::shared_ptr<detail::EpochState> state_;
  };

  /// Starts the next epoch and returns its first batch's position.
  Iterator begin();
  Iterator end() const { return Iterator(); }

  /// Batches per epoch.
  size_t size() const;
  /// Epochs started so far (begin() calls), i.e. the number of the next epoch.
  uint64_t epochs_started() const { return epoch_; }
  /// Makes the next begin() start epoch `epoch` (to resume a run with its shuffle order).
  void set_epoch(uint64_t epoch) { epoch_ = epoch; }
  const Dataset& dataset() const { return *dataset_; }
  const DataLoaderOptions& options() const { return options_; }

  /// The example order of epoch `epoch` (0-based): the sampler's when there is one; else
  /// identity without shuffle, otherwise a permutation that depends only on (seed, epoch,
  /// dataset size).
  std::vector<int64_t> epoch_order(uint64_t epoch) const;

 private:
  std::shared_ptr<const Dataset> dataset_;
  DataLoaderOptions options_;
  uint64_t epoch_ = 0;
};

}  // namespace ember::data
