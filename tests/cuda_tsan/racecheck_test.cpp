// Racecheck through ThreadSanitizer (emulator/include/cuda_emulator/race_detection.h): in
// the TSan build of the emulated CUDA backend, a shared-memory read that no barrier orders
// after its write, and a plain read-modify-write of one global address by two threads of a
// launch (in one block or in two), are TSan reports whose stack names the kernel; the barrier
// and the atomic versions of the same kernels are no report. Built and run only there
// (tests/CMakeLists.txt: ember_cuda_tsan_tests, label tsan): nothing else sees these races,
// and the barrier-free versions give right answers everywhere. With the racecheck compiled
// off (-DEMBER_EMULATION_RACECHECK=0) the report cases fail.
#include <gtest/gtest.h>

#include <vector>

#include "emulation_support.h"

// Any report ends the process: the report cases run in a death test's child, and a report in
// a no-report case fails the whole binary. TSAN_OPTIONS may still override.
extern "C" const char* __tsan_default_options() { return "halt_on_error=1"; }

using ember::test::DeviceArray;

namespace {

constexpr int kThreads = 64;

// Thread 0 publishes a value in shared memory that the others read.
__global__ void share_without_barrier_kernel(float* out) {
  __shared__ float value;
  if (threadIdx.x == 0) value = 42.0f + static_cast<float>(blockIdx.x);
  // the bug: no __syncthreads() between the write and the reads
  out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

__global__ void share_with_barrier_kernel(float* out) {
  __shared__ float value;
  if (threadIdx.x == 0) value = 42.0f + static_cast<float>(blockIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

__global__ void add_plainly_kernel(float* sum) { *sum += 1.0f; }  // the bug: not atomicAdd

__global__ void add_atomically_kernel(float* sum, double* sum64, int* count) {
  atomicAdd(sum, 1.0f);
  atomicAdd(sum64, 0.5);
  atomicAdd(count, 1);
}

void run_and_wait(void (*launch)()) {
  launch();
  cudaDeviceSynchronize();
}

void race_in_shared_memory() {
  DeviceArray<float> out(kThreads);
  EMBER_LAUNCH(share_without_barrier_kernel, 1, kThreads, 0, nullptr, out.get());
  cudaDeviceSynchronize();
}

void race_in_one_block() {
  DeviceArray<float> sum(1);
  EMBER_LAUNCH(add_plainly_kernel, 1, kThreads, 0, nullptr, sum.get());
  cudaDeviceSynchronize();
}

void race_between_blocks() {
  DeviceArray<float> sum(1);
  EMBER_LAUNCH(add_plainly_kernel, 2, 1, 0, nullptr, sum.get());
  cudaDeviceSynchronize();
}

}  // namespace

TEST(CudaThreadSanitizer, ASharedValueReadWithoutABarrierIsAReportNamingTheKernel) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(run_and_wait(&race_in_shared_memory),
               "ThreadSanitizer: data race.*share_without_barrier_kernel");
}

TEST(CudaThreadSanitizer, TheSameWithABarrierIsNoReport) {
  // Four blocks: each block's shared memory is new, not the previous block's.
  DeviceArray<float> out(4 * kThreads);
  EMBER_LAUNCH(share_with_barrier_kernel, 4, kThreads, 0, nullptr, out.get());
  const std::vector<float> v = out.host();
  for (int i = 0; i < 4 * kThreads; ++i) ASSERT_EQ(v[i], 42.0f + static_cast<float>(i / kThreads)) << i;
}

TEST(CudaThreadSanitizer, APlainAddByTwoThreadsOfABlockIsAReportNamingTheKernel) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(run_and_wait(&race_in_one_block), "ThreadSanitizer: data race.*add_plainly_kernel");
}

TEST(CudaThreadSanitizer, APlainAddByTwoBlocksOfALaunchIsAReportNamingTheKernel) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(run_and_wait(&race_between_blocks), "ThreadSanitizer: data race.*add_plainly_kernel");
}

TEST(CudaThreadSanitizer, AtomicAddsAreNoReportAndCountEveryThread) {
  DeviceArray<float> sum(1);
  DeviceArray<double> sum64(1);
  DeviceArray<int> count(1);
  EMBER_LAUNCH(add_atomically_kernel, 3, kThreads, 0, nullptr, sum.get(), sum64.get(), count.get());
  EXPECT_EQ(sum.host()[0], 3.0f * kThreads);
  EXPECT_EQ(sum64.host()[0], 1.5 * kThreads);
  EXPECT_EQ(count.host()[0], 3 * kThreads);
}

// The host's writes before a launch, and the kernel's before the synchronisation that runs
// it, are ordered with the host as a GPU orders them, with the work deferred to that
// synchronisation too.
TEST(CudaThreadSanitizer, LaunchAndSynchronisationAreEdgesWithTheHostWithDeferredStreams) {
  const bool deferred = ember::emulation::deferred_streams();
  ember::emulation::set_deferred_streams(true);
  {
    DeviceArray<float> sum(1);
    DeviceArray<double> sum64(1);
    DeviceArray<int> count(1);
    EMBER_LAUNCH(add_atomically_kernel, 2, kThreads, 0, nullptr, sum.get(), sum64.get(), count.get());
    EMBER_LAUNCH(add_plainly_kernel, 1, 1, 0, nullptr, sum.get());  // after the first, on its stream
    EXPECT_EQ(sum.host()[0], 2.0f * kThreads + 1.0f);
    EXPECT_EQ(count.host()[0], 2 * kThreads);
  }
  ember::emulation::set_deferred_streams(deferred);
}
