// The thread order (EMBER_EMULATED_CUDA_THREAD_ORDER): the order in which a block's threads
// start and resume after a barrier, and the missing barrier it exposes.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "emulation_support.h"

using ember::test::DeviceArray;
namespace emulation = ember::emulation;

namespace {

constexpr unsigned kThreads = 16;

// Slot k of order holds the k-th thread to start; slot kThreads + k the k-th to resume
// after the barrier.
__global__ void record_thread_order(unsigned* counter, unsigned* order) {
  order[atomicAdd(&counter[0], 1u)] = threadIdx.x;
  __syncthreads();
  order[kThreads + atomicAdd(&counter[1], 1u)] = threadIdx.x;
}

// Thread 0 hands a value to its block through shared memory (as a block reduction hands on
// its result), at the start or after a first barrier (then the order of the resume
// matters). Without the second barrier a thread that runs before thread 0 reads what the
// previous block left behind: -1, written after the last barrier.
__global__ void broadcast_from_thread_zero(int* out, bool first_barrier, bool barrier) {
  __shared__ int value;
  if (first_barrier) __syncthreads();
  if (threadIdx.x == 0) value = 100 + static_cast<int>(blockIdx.x);
  if (barrier) __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = value;
  __syncthreads();
  if (threadIdx.x == 0) value = -1;
}

// Restores the configured thread order at scope end.
struct KeepThreadOrder {
  emulation::ThreadOrder configured = emulation::thread_order();
  ~KeepThreadOrder() { emulation::set_thread_order(configured, 20261201); }
};

std::string fault() { return emulation::last_fault(); }

std::vector<unsigned> run_record() {
  DeviceArray<unsigned> counter(2), order(2 * kThreads);
  EMBER_LAUNCH(record_thread_order, 1, kThreads, 0, nullptr, counter.get(), order.get());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << fault();
  return order.host();
}

std::vector<int> run_broadcast(bool first_barrier, bool barrier, unsigned blocks) {
  DeviceArray<int> out(blocks * kThreads);
  EMBER_LAUNCH(broadcast_from_thread_zero, blocks, kThreads, 0, nullptr, out.get(), first_barrier, barrier);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << fault();
  return out.host();
}

}  // namespace

TEST(EmulatedThreadOrder, ThreadsStartAndResumeForwardReversedOrShuffledBySeed) {
  KeepThreadOrder keep;
  std::vector<unsigned> forward(kThreads);
  std::iota(forward.begin(), forward.end(), 0u);
  const std::vector<unsigned> backward(forward.rbegin(), forward.rend());
  auto twice = [](const std::vector<unsigned>& a, const std::vector<unsigned>& b) {
    std::vector<unsigned> v = a;
    v.insert(v.end(), b.begin(), b.end());
    return v;
  };
  emulation::set_thread_order(emulation::ThreadOrder::Forward);
  EXPECT_EQ(run_record(), twice(forward, forward));
  emulation::set_thread_order(emulation::ThreadOrder::Reverse);
  EXPECT_EQ(emulation::thread_order(), emulation::ThreadOrder::Reverse);
  EXPECT_EQ(run_record(), twice(backward, backward));

  emulation::set_thread_order(emulation::ThreadOrder::Shuffle, 7);
  const std::vector<unsigned> a = run_record(), b = run_record();
  emulation::set_thread_order(emulation::ThreadOrder::Shuffle, 7);
  EXPECT_EQ(run_record(), a) << "the same seed draws the same orders";
  EXPECT_NE(a, b) << "each launch draws its own orders";
  const std::vector<unsigned> start(a.begin(), a.begin() + kThreads), resume(a.begin() + kThreads, a.end());
  EXPECT_NE(start, forward);
  EXPECT_NE(start, resume) << "each barrier draws a new order";
  for (std::vector<unsigned> round : {start, resume}) {
    std::sort(round.begin(), round.end());
    EXPECT_EQ(round, forward) << "every thread runs once per round";
  }
}

TEST(EmulatedThreadOrder, AMissingBarrierBeforeASharedReadGivesStaleValuesOutOfThreadOrder) {
  KeepThreadOrder keep;
  const unsigned blocks = 3;
  for (bool first_barrier : {false, true}) {
    const std::string which = first_barrier ? "after a first barrier" : "at the start";
    // With the barrier every thread reads its block's value, in every order.
    for (emulation::ThreadOrder order : {emulation::ThreadOrder::Forward, emulation::ThreadOrder::Reverse,
                                         emulation::ThreadOrder::Shuffle}) {
      emulation::set_thread_order(order, 3);
      const std::vector<int> v = run_broadcast(first_barrier, true, blocks);
      for (unsigned i = 0; i < blocks * kThreads; ++i)
        ASSERT_EQ(v[i], 100 + static_cast<int>(i / kThreads)) << which << ", thread " << i % kThreads;
    }
    // Without it thread 0 runs first in thread order: the bug goes unseen there.
    emulation::set_thread_order(emulation::ThreadOrder::Forward);
    std::vector<int> v = run_broadcast(first_barrier, false, blocks);
    for (unsigned i = 0; i < blocks * kThreads; ++i)
      EXPECT_EQ(v[i], 100 + static_cast<int>(i / kThreads)) << which << ", thread " << i % kThreads;
    // Reversed, thread 0 runs last: threads 1 to 15 read the previous block's -1.
    emulation::set_thread_order(emulation::ThreadOrder::Reverse);
    v = run_broadcast(first_barrier, false, blocks);
    for (unsigned i = 0; i < blocks * kThreads; ++i)
      EXPECT_EQ(v[i], i % kThreads == 0 ? 100 + static_cast<int>(i / kThreads) : -1)
          << which << ", thread " << i % kThreads;
    // Shuffled, the threads drawn before thread 0 read -1, the others the block's value.
    emulation::set_thread_order(emulation::ThreadOrder::Shuffle, 3);
    v = run_broadcast(first_barrier, false, blocks);
    unsigned stale = 0;
    for (unsigned i = 0; i < blocks * kThreads; ++i) {
      const int right = 100 + static_cast<int>(i / kThreads);
      EXPECT_TRUE(v[i] == right || (v[i] == -1 && i % kThreads != 0)) << which << ", thread " << i % kThreads;
      stale += v[i] == -1;
    }
    EXPECT_GT(stale, 0u) << which << ": thread 0 drawn first in every block";
  }
}
