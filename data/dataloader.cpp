#include "ember/data/dataloader.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>
#include <utility>

#include "ember/core/error.h"

namespace ember::data {
namespace detail {

// One epoch: its example order, the batch being looked at, and (with prefetch) the worker
// that prepares the following ones. Iterators share it; the last one to go stops the worker.
class EpochState {
 public:
  EpochState(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options, std::vector<int64_t> order,
             size_t batches)
      : dataset_(std::move(dataset)),
        options_(std::move(options)),
        order_(std::move(order)),
        batches_(batches) {
    if (options_.prefetch && batches_ > 0) worker_ = std::thread([this] { work(); });
  }

  ~EpochState() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

  EpochState(const EpochState&) = delete;
  EpochState& operator=(const EpochState&) = delete;

  /// Makes the next batch current, or marks the epoch done. A failure to prepare it is
  /// rethrown here, and ends the epoch.
  void advance() {
    current_ = Batch();
    if (consumed_ == batches_) {
      done_ = true;
      return;
    }
    try {
      current_ = options_.prefetch ? take() : make_batch(consumed_);
    } catch (...) {
      done_ = true;
      throw;
    }
    ++consumed_;
  }

  Batch& current() { return current_; }
  bool done() const { return done_; }

 private:
  struct Slot {
    Batch batch;
    std::exception_ptr error;
  };
  // Batches prepared ahead of the one the loop holds: enough to hide one slow batch, few
  // enough that device memory is not hoarded.
  static constexpr size_t kDepth = 2;

  Batch make_batch(size_t b) const {
    const size_t first = b * options_.batch_size;
    const size_t last = std::min(first + options_.batch_size, order_.size());
    const std::vector<int64_t> indices(order_.begin() + static_cast<std::ptrdiff_t>(first),
                                       order_.begin() + static_cast<std::ptrdiff_t>(last));
    Batch batch;
    if (options_.collate) {
      std::vector<Example> examples;
      examples.reserve(indices.size());
      for (int64_t i : indices) examples.push_back(dataset_->get(static_cast<size_t>(i)));
      batch = options_.collate(examples);
    } else {
      batch = dataset_->get_batch(indices);
    }
    if (options_.device) batch = batch.to(*options_.device);  // data, target and every named field
    return batch;
  }

  // Runs on the worker thread: everything it throws travels to the loop through the queue.
  void work() {
    for (size_t b = 0; b < batches_; ++b) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || queue_.size() < kDepth; });
        if (stop_) return;
      }
      Slot slot;
      try {
        slot.batch = make_batch(b);
      } catch (...) {
        slot.error = std::current_exception();
      }
      const bool failed = slot.error != nullptr;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stop_) return;
        queue_.push_back(std::move(slot));
      }
      changed_.notify_all();
      if (failed) return;
    }
  }

  Batch take() {
    Slot slot;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return !queue_.empty(); });
      slot = std::move(queue_.front());
      queue_.pop_front();
    }
    changed_.notify_all();
    if (slot.error) std::rethrow_exception(slot.error);
    return std::move(slot.batch);
  }

  const std::shared_ptr<const Dataset> dataset_;
  const DataLoaderOptions options_;
  const std::vector<int64_t> order_;
  const size_t batches_;

  // The iterating thread's side.
  Batch current_;
  size_t consumed_ = 0;
  bool done_ = false;

  // Shared with the worker, under mutex_.
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Slot> queue_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace detail

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(std::move(options)) {
  if (!dataset_) raise<ValueError>("DataLoader: dataset is null");
  if (options_.batch_size == 0) raise<ValueError>("DataLoader: batch_size must be at least 1, got 0");
  // (n + b - 1) / b wraps for a batch_size near SIZE_MAX (an epoch of no batches), and a
  // batch's first dim is an int64: 2^31 - 1 is far above any real batch and safe in both.
  if (options_.batch_size > kMaxBatchSize)
    raise<ValueError>("DataLoader: batch_size must be at most ", kMaxBatchSize, ", got ",
                      options_.batch_size);
  if (options_.sampler && options_.shuffle)
    raise<ValueError>(
        "DataLoader: shuffle must be false when a sampler is given (the sampler orders the examples)");
}

size_t DataLoader::size() const {
  const size_t n = options_.sampler ? options_.sampler->size(dataset_->size()) : dataset_->size();
  const size_t b = options_.batch_size;
  return options_.drop_last ? n / b : (n + b - 1) / b;
}

std::vector<int64_t> DataLoader::epoch_order(uint64_t epoch) const {
  if (options_.sampler) return options_.sampler->indices(epoch, dataset_->size());
  if (options_.shuffle) return shuffled_indices(dataset_->size(), options_.seed, epoch);
  std::vector<int64_t> order(dataset_->size());
  std::iota(order.begin(), order.end(), int64_t{0});
  return order;
}

DataLoader::Iterator DataLoader::begin() {
  const uint64_t epoch = epoch_++;
  auto state = std::make_shared<detail::EpochState>(dataset_, options_, epoch_order(epoch), size());
  state->advance();
  return Iterator(std::move(state));
}

bool DataLoader::Iterator::at_end() const { return !state_ || state_->done(); }

Batch& DataLoader::Iterator::operator*() const {
  if (at_end()) raise<ValueError>("DataLoader: dereferencing an iterator at the end of the epoch");
  return state_->current();
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  if (at_end()) raise<ValueError>("DataLoader: incrementing an iterator at the end of the epoch");
  state_->advance();
  return *this;
}

bool DataLoader::Iterator::operator==(const Iterator& other) const {
  if (at_end() || other.at_end()) return at_end() && other.at_end();
  return state_ == other.state_;  // copies share the epoch, hence the position
}

}  // namespace ember::data
