#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>

#include "ember/ember.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::data;
using ember::test::values_near;

namespace {

// n examples: data row i = [i, 10 i], target i.
std::shared_ptr<TensorDataset> rows(int64_t n) {
  std::vector<float> data;
  std::vector<int64_t> targets;
  for (int64_t i = 0; i < n; ++i) {
    data.push_back(static_cast<float>(i));
    data.push_back(static_cast<float>(10 * i));
    targets.push_back(i);
  }
  return std::make_shared<TensorDataset>(from_vector(data, {n, 2}), from_vector(targets));
}

DataLoaderOptions with_batch(size_t batch_size) {
  DataLoaderOptions o;
  o.batch_size = batch_size;
  return o;
}

// The targets of every batch of one epoch, batch by batch.
std::vector<std::vector<int64_t>> epoch_targets(DataLoader& loader) {
  std::vector<std::vector<int64_t>> out;
  for (Batch& b : loader) out.push_back(b.target.to_vector<int64_t>());
  return out;
}

std::vector<int64_t> flat(const std::vector<std::vector<int64_t>>& batches) {
  std::vector<int64_t> out;
  for (const auto& b : batches) out.insert(out.end(), b.begin(), b.end());
  return out;
}

struct DatasetFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Examples built one by one (no get_batch override); get(fail_at) throws.
class CountingDataset : public Dataset {
 public:
  explicit CountingDataset(size_t n, int64_t fail_at = -1) : n_(n), fail_at_(fail_at) {}
  size_t size() const override { return n_; }
  Example get(size_t i) const override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      threads_.insert(std::this_thread::get_id());
    }
    if (static_cast<int64_t>(i) == fail_at_) throw DatasetFailure("cannot read example " + std::to_string(i));
    return {full({2, 2}, static_cast<double>(i)), scalar_tensor(static_cast<double>(i), kInt64)};
  }
  std::set<std::thread::id> threads() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return threads_;
  }

 private:
  size_t n_;
  int64_t fail_at_;
  mutable std::mutex mutex_;
  mutable std::set<std::thread::id> threads_;
};

}  // namespace

TEST(DataLoader, BatchesInOrderWithAShortLastOne) {
  for (bool prefetch : {true, false}) {
    auto opts = with_batch(4);
    opts.prefetch = prefetch;
    DataLoader loader(rows(10), opts);
    EXPECT_EQ(loader.size(), 3u);
    std::vector<Shape> shapes;
    std::vector<float> firsts;
    for (Batch& b : loader) {
      shapes.push_back(b.data.shape());
      EXPECT_EQ(b.data.dtype(), kFloat32);
      EXPECT_EQ(b.target.dtype(), kInt64);
      EXPECT_TRUE(b.data.device().is_cpu());
      firsts.push_back(b.data.to_vector<float>()[0]);
    }
    EXPECT_EQ(shapes, (std::vector<Shape>{{4, 2}, {4, 2}, {2, 2}}));
    EXPECT_EQ(firsts, (std::vector<float>{0, 4, 8}));
    EXPECT_EQ(epoch_targets(loader), (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
  }
}

TEST(DataLoader, BatchValuesAreTheRows) {
  DataLoader loader(rows(5), with_batch(2));
  auto it = loader.begin();
  EXPECT_TRUE(values_near(it->data, {0, 0, 1, 10}, {2, 2}));
  ++it;
  EXPECT_TRUE(values_near(it->data, {2, 20, 3, 30}, {2, 2}));
  ++it;
  EXPECT_TRUE(values_near(it->data, {4, 40}, {1, 2}));
  ++it;
  EXPECT_TRUE(it == loader.end());
  EXPECT_THROW_MSG(*it, ValueError, "DataLoader: dereferencing an iterator at the end");
  EXPECT_THROW_MSG(++it, ValueError, "DataLoader: incrementing an iterator at the end");
}

TEST(DataLoader, DropLastSkipsTheShortBatch) {
  auto opts = with_batch(4);
  opts.drop_last = true;
  DataLoader loader(rows(10), opts);
  EXPECT_EQ(loader.size(), 2u);
  EXPECT_EQ(epoch_targets(loader), (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  DataLoader exact(rows(8), opts);
  EXPECT_EQ(exact.size(), 2u);
  DataLoader too_small(rows(3), opts);
  EXPECT_EQ(too_small.size(), 0u);
  EXPECT_TRUE(too_small.begin() == too_small.end());
  opts.drop_last = false;
  DataLoader one(rows(3), opts);
  EXPECT_EQ(epoch_targets(one), (std::vector<std::vector<int64_t>>{{0, 1, 2}}));
}

TEST(DataLoader, RejectsBadOptions) {
  EXPECT_THROW_LINE(DataLoader(rows(3), with_batch(0)), ValueError,
                    "DataLoader: batch_size must be at least 1, got 0");
  EXPECT_THROW_LINE(DataLoader(nullptr, with_batch(1)), ValueError, "DataLoader: dataset is null");
  // SIZE_MAX used to give an epoch of no batches without an error.
  EXPECT_THROW_LINE(DataLoader(rows(3), with_batch(SIZE_MAX)), ValueError,
                    "DataLoader: batch_size must be at most 2147483647, got 18446744073709551615");
  EXPECT_THROW_MSG(DataLoader(rows(3), with_batch(size_t{1} << 31)), ValueError,
                   "DataLoader: batch_size must be at most 2147483647, got 2147483648");
  DataLoader largest(rows(3), with_batch(DataLoader::kMaxBatchSize));
  EXPECT_EQ(largest.size(), 1u);
  EXPECT_EQ(epoch_targets(largest), (std::vector<std::vector<int64_t>>{{0, 1, 2}}));
}

TEST(DataLoader, ShuffleVisitsEveryIndexOnceInAReproducibleOrder) {
  auto opts = with_batch(7);
  opts.shuffle = true;
  opts.seed = 42;
  DataLoader a(rows(50), opts), b(rows(50), opts);
  const auto a0 = flat(epoch_targets(a)), a1 = flat(epoch_targets(a));
  const auto b0 = flat(epoch_targets(b)), b1 = flat(epoch_targets(b));
  EXPECT_EQ(a0, b0);  // same seed, same epoch: same order
  EXPECT_EQ(a1, b1);
  EXPECT_NE(a0, a1);  // a new order each epoch
  EXPECT_EQ(a.epochs_started(), 2u);
  for (const auto& order : {a0, a1}) {
    std::vector<int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> all(50);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(sorted, all);
    EXPECT_NE(order, all);
  }
  EXPECT_EQ(a0, a.epoch_order(0));
  EXPECT_EQ(a1, a.epoch_order(1));
  a.set_epoch(1);  // a resumed run replays epoch 1's order
  EXPECT_EQ(flat(epoch_targets(a)), a1);
  opts.seed = 43;
  DataLoader c(rows(50), opts);
  EXPECT_NE(flat(epoch_targets(c)), a0);
  // The order depends only on (seed, epoch, size): std::mt19937_64 seeded through
  // std::seed_seq and a plain Fisher-Yates loop, all exactly specified by the standard.
  opts.seed = 0;
  EXPECT_EQ(DataLoader(rows(10), opts).epoch_order(0), (std::vector<int64_t>{8, 2, 3, 5, 1, 6, 9, 7, 0, 4}));
}

TEST(DataLoader, DataAndTargetsStayPaired) {
  auto opts = with_batch(8);
  opts.shuffle = true;
  DataLoader loader(rows(30), opts);
  for (Batch& b : loader) {
    const auto d = b.data.to_vector<float>();
    const auto t = b.target.to_vector<int64_t>();
    for (size_t k = 0; k < t.size(); ++k) {
      EXPECT_EQ(d[2 * k], static_cast<float>(t[k]));
      EXPECT_EQ(d[2 * k + 1], static_cast<float>(10 * t[k]));
    }
  }
}

TEST(DataLoader, DefaultGetBatchStacksExamples) {
  auto ds = std::make_shared<CountingDataset>(5);
  DataLoader loader(ds, with_batch(3));
  auto it = loader.begin();
  EXPECT_TRUE(values_near(it->data, {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}, {3, 2, 2}));
  EXPECT_TRUE(values_near(it->target, {0, 1, 2}, {3}));
  EXPECT_EQ(it->target.dtype(), kInt64);
}

TEST(DataLoader, DatasetExceptionsReachTheIteratingThread) {
  for (bool prefetch : {true, false}) {
    SCOPED_TRACE(prefetch ? "prefetch" : "no prefetch");
    auto ds = std::make_shared<CountingDataset>(20, 9);
    auto opts = with_batch(4);
    opts.prefetch = prefetch;
    DataLoader loader(ds, opts);
    int seen = 0;
    bool caught = false;
    try {
      for (Batch& b : loader) {
        EXPECT_EQ(b.target.to_vector<int64_t>()[0], 4 * seen);
        ++seen;
      }
    } catch (const DatasetFailure& e) {
      caught = true;
      EXPECT_EQ(std::string(e.what()), "cannot read example 9");
    }
    EXPECT_TRUE(caught);
    EXPECT_EQ(seen, 2);  // batches 0 and 1 arrive, batch 2 holds example 9
    const auto threads = ds->threads();
    EXPECT_EQ(threads.count(std::this_thread::get_id()), prefetch ? 0u : 1u);
    // The next epoch starts afresh and fails at the same place.
    seen = 0;
    EXPECT_THROW(
        for (Batch& b
             : loader) {
          (void)b;
          ++seen;
        },
        DatasetFailure);
    EXPECT_EQ(seen, 2);
  }
}

TEST(DataLoader, AFailingFirstBatchThrowsFromBegin) {
  for (bool prefetch : {true, false}) {
    auto opts = with_batch(4);
    opts.prefetch = prefetch;
    DataLoader loader(std::make_shared<CountingDataset>(8, 0), opts);
    EXPECT_THROW(loader.begin(), DatasetFailure);
  }
}

TEST(DataLoader, AbandoningALoopEarlyDoesNotHang) {
  auto ds = rows(1000);
  for (int round = 0; round < 20; ++round) {
    DataLoader loader(ds, with_batch(1));
    int n = 0;
    for (Batch& b : loader) {
      (void)b;
      if (++n == 2) break;  // the worker is blocked on a full queue now, or about to be
    }
    // A second epoch while nothing holds the first.
    auto it = loader.begin();
    EXPECT_EQ(it->target.item<int64_t>(), 0);
  }  // the loader and the last epoch's iterator go; their worker must be joined
}

TEST(DataLoader, AnIteratorOutlivesItsLoader) {
  auto loader = std::make_unique<DataLoader>(rows(6), with_batch(2));
  auto it = loader->begin();
  loader.reset();
  std::vector<int64_t> firsts;
  for (; it != DataLoader::Iterator(); ++it) firsts.push_back(it->target.to_vector<int64_t>()[0]);
  EXPECT_EQ(firsts, (std::vector<int64_t>{0, 2, 4}));
}

TEST(DataLoader, ASlowConsumerGetsEveryBatch) {
  DataLoader loader(rows(12), with_batch(1));
  int64_t expected = 0;
  for (Batch& b : loader) {
    if (expected % 4 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(b.target.item<int64_t>(), expected++);
  }
  EXPECT_EQ(expected, 12);
}

TEST(DataLoader, UsesTheCollateFunction) {
  auto opts = with_batch(4);
  std::atomic<int> calls{0};
  opts.collate = [&calls](const std::vector<Example>& examples) {
    ++calls;
    // Sum of the examples' first data values, and how many there were.
    double sum = 0;
    for (const Example& e : examples) sum += e.data.to_vector<double>()[0];
    return Batch{scalar_tensor(sum), scalar_tensor(static_cast<double>(examples.size()), kInt64)};
  };
  DataLoader loader(rows(10), opts);
  std::vector<double> sums;
  std::vector<int64_t> counts;
  for (Batch& b : loader) {
    sums.push_back(b.data.item<double>());
    counts.push_back(b.target.item<int64_t>());
  }
  EXPECT_EQ(sums, (std::vector<double>{0 + 1 + 2 + 3, 4 + 5 + 6 + 7, 8 + 9}));
  EXPECT_EQ(counts, (std::vector<int64_t>{4, 4, 2}));
  EXPECT_EQ(calls.load(), 3);
}

TEST(DataLoader, DeviceOptionDeliversBatchesOnTheDevice) {
  test::EmulatedCuda emu(2);
  for (bool prefetch : {true, false}) {
    auto opts = with_batch(4);
    opts.device = Device::cuda(0);
    opts.prefetch = prefetch;
    DataLoader loader(rows(6), opts);
    int64_t next = 0;
    for (Batch& b : loader) {
      EXPECT_EQ(b.data.device(), Device::cuda(0));
      EXPECT_EQ(b.target.device(), Device::cuda(0));
      for (int64_t t : b.target.to_vector<int64_t>()) EXPECT_EQ(t, next++);
    }
    EXPECT_EQ(next, 6);
    opts.device = Device::cuda(5);
    DataLoader bad(rows(6), opts);
    EXPECT_THROW_LINE(bad.begin(), DeviceError, "cuda:5 requested, but only 2 CUDA devices are available");
  }
}

TEST(DataLoader, MnistSampleEpoch) {
  auto train = std::make_shared<MNIST>(std::string(EMBER_SOURCE_DIR) + "/examples/data/mnist-sample", true,
                                       Normalize(MNIST::kMean, MNIST::kStd));
  auto opts = with_batch(64);
  opts.shuffle = true;
  DataLoader loader(train, opts);
  EXPECT_EQ(loader.size(), 125u);
  std::array<int64_t, 10> counts{};
  size_t batches = 0;
  for (Batch& b : loader) {
    ++batches;
    EXPECT_EQ(b.data.shape(), (Shape{64, 1, 28, 28}));
    for (int64_t t : b.target.to_vector<int64_t>()) counts.at(static_cast<size_t>(t))++;
  }
  EXPECT_EQ(batches, 125u);
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  EXPECT_EQ(total, 8000);
  // Per-digit counts of the training split: the README's whole-sample counts less 200 each.
  EXPECT_EQ(counts, (std::array<int64_t, 10>{801, 927, 791, 832, 780, 663, 814, 870, 744, 778}));
}
