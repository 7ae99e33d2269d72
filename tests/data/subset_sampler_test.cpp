// SubsetRandomSampler: only the given examples, each once per epoch, in an order that depends
// on the seed and the epoch alone; bad indices are refused with Ember's errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::data;

TEST(SubsetRandomSampler, EachEpochVisitsTheSubsetOnceInItsOwnOrder) {
  const std::vector<int64_t> subset = {9, 2, 7, 4, 0, 5};
  const SubsetRandomSampler sampler(subset, 3);
  EXPECT_EQ(sampler.size(100), 6u);
  const std::vector<int64_t> e0 = sampler.indices(0, 100), e1 = sampler.indices(1, 100);
  // The subset permuted by the DataLoader's own shuffle of its positions.
  const std::vector<int64_t> p0 = shuffled_indices(6, 3, 0);
  ASSERT_EQ(e0.size(), 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(e0[i], subset[static_cast<size_t>(p0[i])]);
  EXPECT_NE(e0, e1);
  EXPECT_EQ(e0, SubsetRandomSampler(subset, 3).indices(0, 10));  // the same for the same seed
  std::vector<int64_t> sorted = e1, expected = subset;
  std::sort(sorted.begin(), sorted.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(sorted, expected);
}

TEST(SubsetRandomSampler, TheDataLoaderBatchesOnlyTheSubset) {
  auto data = std::make_shared<TensorDataset>(arange(10).reshape({10, 1}), arange(10, TensorOptions(kInt64)));
  auto sampler = std::make_shared<SubsetRandomSampler>(std::vector<int64_t>{1, 3, 8}, 5);
  DataLoaderOptions options;
  options.batch_size = 2;
  options.prefetch = false;
  options.sampler = sampler;
  DataLoader loader(data, options);
  EXPECT_EQ(loader.size(), 2u);
  for (uint64_t epoch = 0; epoch < 2; ++epoch) {
    std::vector<int64_t> seen;
    for (Batch& b : loader)
      for (int64_t t : b.target.to_vector<int64_t>()) seen.push_back(t);
    EXPECT_EQ(seen, sampler->indices(epoch, 10)) << "epoch " << epoch;
  }
}

TEST(SubsetRandomSampler, BadIndicesAreErrors) {
  EXPECT_THROW_MSG(SubsetRandomSampler({0, -2}), ValueError,
                   "SubsetRandomSampler: indices must be >= 0, got -2");
  const SubsetRandomSampler sampler({0, 4});
  EXPECT_THROW_MSG(sampler.indices(0, 4), IndexError,
                   "SubsetRandomSampler: index 4 is out of range for a dataset of 4 examples");
  EXPECT_TRUE(SubsetRandomSampler({}).indices(0, 0).empty());
}
