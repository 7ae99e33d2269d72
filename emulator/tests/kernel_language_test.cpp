// The emulated kernel language: barriers, the thread that leaves a block waiting, the
// launch limits a GPU enforces, the BlockReduce stand-in and the block orders.
#include <gtest/gtest.h>

#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "ember/core/error.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "emulation_support.h"

using ember::test::ClearEmulatorErrors;
using ember::test::DeviceArray;
namespace emulation = ember::emulation;

namespace {

constexpr int kBlock = 64;

// Each thread reads what its neighbour wrote before the barrier, then a tree reduction in
// shared memory (a barrier per level) leaves the block's sum in out_sum[block].
__global__ void neighbour_and_tree_sum(int* neighbour, int* out_sum) {
  __shared__ int values[kBlock];
  const unsigned t = threadIdx.x;
  values[t] = static_cast<int>(blockIdx.x * 1000 + t);
  __syncthreads();
  neighbour[blockIdx.x * kBlock + t] = values[(t + 1) % kBlock];
  __syncthreads();
  for (unsigned half = kBlock / 2; half > 0; half /= 2) {
    if (t < half) values[t] += values[t + half];
    __syncthreads();
  }
  if (t == 0) out_sum[blockIdx.x] = values[0];
}

__global__ void first_thread_leaves(int* out) {
  if (threadIdx.x == 0) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

__global__ void nothing(int*) {}

__global__ void record_index(unsigned* out) {
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  out[block * blockDim.x * blockDim.y * blockDim.z + thread] = block * 10000 + thread;
}

template <class T, int N>
__global__ void block_reduce(T* out, const T* in) {
  using Reduce = cub::BlockReduce<T, N>;
  __shared__ typename Reduce::TempStorage temp;
  out[threadIdx.x] = Reduce(temp).Reduce(in[threadIdx.x], [](T a, T b) { return a + b; });
}

// Two reductions on one TempStorage, with or without the barrier CUB asks for in between.
__global__ void reduce_twice(float* out, bool barrier) {
  using Reduce = cub::BlockReduce<float, kBlock>;
  __shared__ Reduce::TempStorage temp;
  const auto add = [](float a, float b) { return a + b; };
  const float first = Reduce(temp).Reduce(1.0f, add);
  if (barrier) __syncthreads();
  const float second = Reduce(temp).Reduce(2.0f, add);
  if (threadIdx.x == 0) {
    out[0] = first;
    out[1] = second;
  }
}

// The order blocks ran in: slot k holds the k-th block to run.
__global__ void record_block_order(unsigned* counter, unsigned* order) {
  if (threadIdx.x == 0) order[atomicAdd(counter, 1u)] = blockIdx.x;
}

std::string fault() { return emulation::last_fault(); }

}  // namespace

TEST(EmulatedKernels, BarriersShowEveryThreadsWritesToTheBlock) {
  const unsigned blocks = 3;
  DeviceArray<int> neighbour(blocks * kBlock), sums(blocks);
  EMBER_LAUNCH(neighbour_and_tree_sum, blocks, kBlock, 0, nullptr, neighbour.get(), sums.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess) << fault();
  const std::vector<int> n = neighbour.host(), s = sums.host();
  for (unsigned b = 0; b < blocks; ++b) {
    for (unsigned t = 0; t < kBlock; ++t)
      EXPECT_EQ(n[b * kBlock + t], static_cast<int>(b * 1000 + (t + 1) % kBlock))
          << "block " << b << " thread " << t;
    EXPECT_EQ(s[b], static_cast<int>(b * 1000 * kBlock + kBlock * (kBlock - 1) / 2)) << "block " << b;
  }
}

TEST(EmulatedKernels, AThreadEndingWhileOthersWaitAtABarrierIsAStickyLaunchFailure) {
  ClearEmulatorErrors clear;
  DeviceArray<int> out(32);
  EMBER_LAUNCH(first_thread_leaves, 1, 32, 0, nullptr, out.get());
  // A fault surfaces at the launch's check or, with deferred streams, at the next sync.
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  EXPECT_NE(fault().find("kernel first_thread_leaves: thread (0, 0, 0) of block (0, 0, 0) exited while 31 "
                         "thread(s) of its block wait at __syncthreads() (barrier 1)"),
            std::string::npos)
      << fault();
  // Sticky, as a fault on a GPU: the next checked call fails too, naming the diagnosis.
  try {
    EMBER_CUDA_CHECK(cudaDeviceSynchronize());
    ADD_FAILURE() << "no error";
  } catch (const ember::CudaError& e) {
    EXPECT_NE(
        std::string(e.what()).find("cudaDeviceSynchronize() failed: unspecified launch failure (emulated: "),
        std::string::npos)
        << e.what();
  }
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
}

TEST(EmulatedKernels, LaunchLimitsAreAGpusAndTheirErrorsAreNotSticky) {
  ClearEmulatorErrors clear;
  DeviceArray<int> out(1);
  struct Config {
    dim3 grid, block;
  };
  for (const Config& c :
       {Config{1, 1025}, Config{1, dim3(32, 32, 2)}, Config{1, dim3(1, 1, 65)}, Config{dim3(1, 65536), 32},
        Config{dim3(1, 1, 65536), 32}, Config{0, 32}, Config{1, 0}}) {
    EMBER_LAUNCH(nothing, c.grid, c.block, 0, nullptr, out.get());
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration)
        << "grid " << c.grid.x << "x" << c.grid.y << "x" << c.grid.z << ", block " << c.block.x << "x"
        << c.block.y << "x" << c.block.z;
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a configuration error is reported once";
  }
  EMBER_LAUNCH(nothing, 1, 1, 64 * 1024, nullptr, out.get());
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue) << "more than 48 KiB of dynamic shared memory";
  // Through Ember's launch check: a CudaError naming the runtime's message.
  EMBER_LAUNCH(nothing, 1, 2048, 0, nullptr, out.get());
  try {
    EMBER_CUDA_CHECK(cudaGetLastError());  // what EMBER_CUDA_LAUNCH_CHECK() does
    ADD_FAILURE() << "no error";
  } catch (const ember::CudaError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "cudaGetLastError() failed: invalid configuration argument (emulated: kernel "
                  "nothing: grid (1, 1, 1), block (2048, 1, 1): more than 1024 threads per block)",
                  0),
              0u)
        << e.what();
  }
  // The largest block and the edge of the grid's y limit still run.
  DeviceArray<unsigned> index(2 * 1024);
  EMBER_LAUNCH(record_index, dim3(1, 2), 1024, 0, nullptr, index.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess) << fault();
  EXPECT_EQ(index.host()[1024 + 1023], 10000u + 1023u);
}

TEST(EmulatedKernels, ThreeDimensionalGridsAndBlocksNumberEveryThreadOnce) {
  const dim3 grid(2, 3, 2), block(4, 2, 3);
  const unsigned n = 12 * 24;
  DeviceArray<unsigned> out(n, 0xFF);
  EMBER_LAUNCH(record_index, grid, block, 0, nullptr, out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess) << fault();
  const std::vector<unsigned> v = out.host();
  for (unsigned i = 0; i < n; ++i) EXPECT_EQ(v[i], (i / 24) * 10000 + i % 24) << i;
}

TEST(EmulatedKernels, BlockReduceReturnsTheTotalOnThreadZeroOnly) {
  constexpr int N = 128;
  std::vector<float> f(N);
  std::vector<long long> q(N);
  for (int i = 0; i < N; ++i) {
    f[i] = 0.5f * static_cast<float>(i);
    q[i] = i * 3 - 100;
  }
  DeviceArray<float> fin(N), fout(N);
  DeviceArray<long long> qin(N), qout(N);
  cudaMemcpyAsync(fin.get(), f.data(), sizeof(float) * N, cudaMemcpyHostToDevice);
  cudaMemcpyAsync(qin.get(), q.data(), sizeof(long long) * N, cudaMemcpyHostToDevice);
  EMBER_LAUNCH((block_reduce<float, N>), 1, N, 0, nullptr, fout.get(), fin.get());
  EMBER_LAUNCH((block_reduce<long long, N>), 1, N, 0, nullptr, qout.get(), qin.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess) << fault();
  const std::vector<float> fo = fout.host();
  const std::vector<long long> qo = qout.host();
  EXPECT_EQ(fo[0], 0.5f * N * (N - 1) / 2);
  EXPECT_EQ(qo[0], 3LL * N * (N - 1) / 2 - 100LL * N);
  // CUB leaves the other threads' results undefined: poisoned here.
  for (int i = 1; i < N; ++i) {
    EXPECT_TRUE(std::isnan(fo[i])) << i;
    EXPECT_EQ(qo[i], -1) << i;
  }
}

TEST(EmulatedKernels, BlockReduceInABlockOfAnotherSizeIsALaunchFailure) {
  ClearEmulatorErrors clear;
  DeviceArray<float> in(64), out(64);
  EMBER_LAUNCH((block_reduce<float, 128>), 1, 64, 0, nullptr, out.get(), in.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  EXPECT_NE(fault().find("cub::BlockReduce<T, 128> used in a block of 64 threads"), std::string::npos)
      << fault();
}

TEST(EmulatedKernels, BlockReduceTempStorageNeedsABarrierBeforeItsReuse) {
  ClearEmulatorErrors clear;
  DeviceArray<float> out(2);
  EMBER_LAUNCH(reduce_twice, 1, kBlock, 0, nullptr, out.get(), true);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess) << fault();
  EXPECT_EQ(out.host(), (std::vector<float>{64.0f, 128.0f}));
  EMBER_LAUNCH(reduce_twice, 1, kBlock, 0, nullptr, out.get(), false);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  EXPECT_NE(
      fault().find("cub::BlockReduce TempStorage reused without a __syncthreads() after the previous Reduce"),
      std::string::npos)
      << fault();
}

TEST(EmulatedKernels, BlocksRunForwardReversedOrShuffledBySeed) {
  const unsigned blocks = 16;
  auto run = [&] {
    DeviceArray<unsigned> counter(1), order(blocks);
    EMBER_LAUNCH(record_block_order, blocks, 32, 0, nullptr, counter.get(), order.get());
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << fault();
    return order.host();
  };
  const emulation::BlockOrder configured = emulation::block_order();
  std::vector<unsigned> forward(blocks);
  std::iota(forward.begin(), forward.end(), 0u);
  emulation::set_block_order(emulation::BlockOrder::Forward);
  EXPECT_EQ(run(), forward);
  emulation::set_block_order(emulation::BlockOrder::Reverse);
  EXPECT_EQ(run(), std::vector<unsigned>(forward.rbegin(), forward.rend()));
  emulation::set_block_order(emulation::BlockOrder::Shuffle, 7);
  const std::vector<unsigned> a = run(), b = run();
  emulation::set_block_order(emulation::BlockOrder::Shuffle, 7);
  EXPECT_EQ(run(), a) << "the same seed draws the same orders";
  EXPECT_NE(a, forward);
  EXPECT_NE(a, b) << "each launch draws its own order";
  std::vector<unsigned> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, forward) << "every block runs once";
  emulation::set_block_order(configured);
}
