// DistributedSampler: PyTorch's sharding (disjoint shards covering the data, one permutation
// per epoch on every rank, padding by wrapping or drop_last) and its use by the DataLoader.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::data;

namespace {
std::vector<std::vector<int64_t>> shards(size_t n, int world, uint64_t epoch, bool shuffle, bool drop_last) {
  std::vector<std::vector<int64_t>> out;
  for (int r = 0; r < world; ++r)
    out.push_back(DistributedSampler(world, r, shuffle, 42, drop_last).indices(epoch, n));
  return out;
}
}  // namespace

TEST(DistributedSampler, ShardsAreDisjointAndCoverTheData) {
  for (int world : {1, 2, 3, 4}) {
    const auto s = shards(64, world, 0, true, false);
    std::multiset<int64_t> seen;
    for (const auto& shard : s) {
      EXPECT_EQ(shard.size(), (64 + world - 1) / world);
      seen.insert(shard.begin(), shard.end());
    }
    std::set<int64_t> distinct(seen.begin(), seen.end());
    EXPECT_EQ(distinct.size(), 64u) << "world " << world;  // covering
    EXPECT_EQ(seen.size() - 64, (world - 64 % world) % world)
        << "world " << world;  // only the padding repeats
  }
}

TEST(DistributedSampler, WithoutShuffleItStridesLikePyTorch) {
  // torch: indices[rank:total_size:num_replicas] over range(10) padded with 0, 1.
  const auto s = shards(10, 3, 0, false, false);
  EXPECT_EQ(s[0], (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(s[1], (std::vector<int64_t>{1, 4, 7, 0}));
  EXPECT_EQ(s[2], (std::vector<int64_t>{2, 5, 8, 1}));
  const auto d = shards(10, 3, 0, false, true);
  EXPECT_EQ(d[0], (std::vector<int64_t>{0, 3, 6}));
  EXPECT_EQ(d[1], (std::vector<int64_t>{1, 4, 7}));
  EXPECT_EQ(d[2], (std::vector<int64_t>{2, 5, 8}));
  // A world larger than the data wraps more than once.
  const auto tiny = shards(2, 5, 0, false, false);
  EXPECT_EQ(tiny[4], (std::vector<int64_t>{0}));
}

TEST(DistributedSampler, EveryRankDrawsTheSamePermutationAndEachEpochANewOne) {
  const std::vector<int64_t> perm0 = shuffled_indices(20, 42, 0), perm1 = shuffled_indices(20, 42, 1);
  EXPECT_NE(perm0, perm1);
  for (int r = 0; r < 4; ++r) {
    const std::vector<int64_t> shard = DistributedSampler(4, r, true, 42).indices(1, 20);
    for (size_t i = 0; i < shard.size(); ++i) EXPECT_EQ(shard[i], perm1[static_cast<size_t>(r) + 4 * i]);
  }
}

TEST(DistributedSampler, TheDataLoaderBatchesTheShardAndPassesItsEpoch) {
  auto data = std::make_shared<TensorDataset>(arange(10).reshape({10, 1}), arange(10, TensorOptions(kInt64)));
  auto sampler = std::make_shared<DistributedSampler>(2, 1, true, 7);
  DataLoaderOptions options;
  options.batch_size = 2;
  options.prefetch = false;
  options.sampler = sampler;
  DataLoader loader(data, options);
  EXPECT_EQ(loader.size(), 3u);  // 5 examples per rank
  for (uint64_t epoch = 0; epoch < 2; ++epoch) {
    std::vector<int64_t> seen;
    for (Batch& b : loader)
      for (int64_t t : b.target.to_vector<int64_t>()) seen.push_back(t);
    EXPECT_EQ(seen, sampler->indices(epoch, 10)) << "epoch " << epoch;
  }
  options.shuffle = true;
  EXPECT_THROW_MSG(DataLoader(data, options), ValueError,
                   "DataLoader: shuffle must be false when a sampler is given");
}

TEST(DistributedSampler, BadRanksAreValueErrors) {
  EXPECT_THROW_MSG(DistributedSampler(0, 0), ValueError,
                   "DistributedSampler: world_size must be at least 1, got 0");
  EXPECT_THROW_MSG(DistributedSampler(2, 2), ValueError, "DistributedSampler: rank must be in [0, 1], got 2");
}
