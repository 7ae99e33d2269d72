// Stream order with deferred streams: while a copy queued on one stream has not run, the
// memory it reads may be neither written by work of another stream that does not wait for
// it (a kernel, memset, copy or cuBLAS product), nor freed, nor returned to Ember's caching
// allocator for the device's stream to reuse. Each is a sticky illegal address at once,
// naming the writer, both streams and the copy.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device_values.h"
#include "ember/ember.h"
#include "emulation_support.h"

using namespace ember;
using ember::test::ClearEmulatorErrors;
using ember::test::DeferredStreams;
using ember::test::DeviceArray;
using ember::test::OnDevice;

namespace {

__global__ void store(float* out, float v) { out[threadIdx.x] = v; }

std::string fault() { return emulation::last_fault(); }

::testing::AssertionResult has(const std::string& text) {
  if (fault().find(text) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" not in the diagnosis: " << fault();
}

// Two streams, one per device, and 16 floats on each device (src = 1, 2, ..., dst = 0).
struct TwoStreams {
  cudaStream_t s0 = nullptr, s1 = nullptr;
  float *src = nullptr, *dst = nullptr;
  static constexpr size_t kBytes = 16 * sizeof(float);
  TwoStreams() {
    std::vector<float> v(16);
    for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i + 1);
    OnDevice on0(0);
    EXPECT_EQ(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking), cudaSuccess);
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&src), kBytes), cudaSuccess);
    EXPECT_EQ(cudaMemcpyAsync(src, v.data(), kBytes, cudaMemcpyHostToDevice, s0), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
    OnDevice on1(1);
    EXPECT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&dst), kBytes), cudaSuccess);
    EXPECT_EQ(cudaMemsetAsync(dst, 0, kBytes, s1), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  }
  ~TwoStreams() {
    emulation::clear_errors();
    {
      OnDevice on1(1);
      cudaStreamSynchronize(s1);
      cudaFree(dst);
      cudaStreamDestroy(s1);
    }
    OnDevice on0(0);
    cudaFree(src);
    cudaStreamDestroy(s0);
  }
  // src's values into dst, queued on cuda:1's stream.
  void queue_peer_copy() const {
    OnDevice on1(1);
    ASSERT_EQ(cudaMemcpyPeerAsync(dst, 1, src, 0, kBytes, s1), cudaSuccess);
  }
  std::vector<float> values_of(float* p, int device) const {
    OnDevice on(device);
    std::vector<float> v(16);
    EXPECT_EQ(cudaMemcpyAsync(v.data(), p, kBytes, cudaMemcpyDeviceToHost, device == 0 ? s0 : s1),
              cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(device == 0 ? s0 : s1), cudaSuccess);
    return v;
  }
};

std::vector<float> one_to_sixteen() {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i + 1);
  return v;
}

}  // namespace

TEST(EmulatedStreamOrder, AKernelOverwritingAQueuedCopysSourceFromAnotherStreamFails) {
  ClearEmulatorErrors clear;
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  DeferredStreams deferred;
  TwoStreams t;
  t.queue_peer_copy();
  OnDevice on0(0);
  EMBER_LAUNCH(store, 1, 16, 0, t.s0, t.src, -1.0f);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(fault().rfind("cuda:0: kernel store argument 0, queued on stream ", 0), 0u) << fault();
  EXPECT_TRUE(has(" of cuda:0, uses 1 bytes at "));
  EXPECT_TRUE(has(" while cudaMemcpyPeerAsync of 64 bytes from "));
  EXPECT_TRUE(has(" on cuda:0 to "));
  EXPECT_TRUE(has(" on cuda:1, queued before it on stream "));
  EXPECT_TRUE(has(" of cuda:1, still reads 64 bytes at "));
  EXPECT_TRUE(has(" does not wait for that copy (a stream-order bug: "));
  // The kernel did not run: the copy, run now, still reads 1 to 16.
  emulation::clear_errors();
  EXPECT_EQ(t.values_of(t.dst, 1), one_to_sixteen());
}

TEST(EmulatedStreamOrder, WaitingForAnEventAfterTheCopyOrdersTheWrite) {
  ClearEmulatorErrors clear;
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  DeferredStreams deferred;
  TwoStreams t;
  t.queue_peer_copy();
  cudaEvent_t copied = nullptr;
  {
    OnDevice on1(1);
    ASSERT_EQ(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(copied, t.s1), cudaSuccess);
  }
  OnDevice on0(0);
  ASSERT_EQ(cudaStreamWaitEvent(t.s0, copied, 0), cudaSuccess);
  ASSERT_EQ(cudaEventDestroy(copied), cudaSuccess);
  EMBER_LAUNCH(store, 1, 16, 0, t.s0, t.src, -1.0f);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess) << fault();
  // Synchronising cuda:0's stream first runs the copy (the wait), then the kernel.
  EXPECT_EQ(t.values_of(t.src, 0), std::vector<float>(16, -1.0f));
  EXPECT_EQ(t.values_of(t.dst, 1), one_to_sixteen());
}

TEST(EmulatedStreamOrder, MemsetsAndCopiesIntoTheSourceFailTooButNotOnTheCopysOwnStream) {
  ClearEmulatorErrors clear;
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  DeferredStreams deferred;
  TwoStreams t;
  t.queue_peer_copy();
  OnDevice on0(0);
  EXPECT_EQ(cudaMemsetAsync(t.src + 4, 0, 8, t.s0), cudaErrorIllegalAddress);
  EXPECT_EQ(fault().rfind("cuda:0: cudaMemsetAsync of 8 bytes at ", 0), 0u) << fault();
  EXPECT_TRUE(has(", uses 8 bytes at "));
  emulation::clear_errors();
  const std::vector<float> zeros(16, 0.0f);
  EXPECT_EQ(cudaMemcpyAsync(t.src + 15, zeros.data(), 4, cudaMemcpyHostToDevice, t.s0),
            cudaErrorIllegalAddress);
  EXPECT_EQ(fault().rfind("cuda:0: cudaMemcpyAsync of 4 bytes from ", 0), 0u) << fault();
  emulation::clear_errors();
  // Memory next to the source is free to write; so is the source, from the copy's stream.
  DeviceArray<float> other(16);
  EXPECT_EQ(cudaMemsetAsync(other.get(), 0, TwoStreams::kBytes, t.s0), cudaSuccess) << fault();
  {
    OnDevice on1(1);
    EXPECT_EQ(cudaMemcpyPeerAsync(t.src, 0, t.dst + 15, 1, 4, t.s1), cudaSuccess) << fault();
  }
  EXPECT_EQ(t.values_of(t.dst, 1), one_to_sixteen());
  std::vector<float> src = one_to_sixteen();
  src[0] = 16.0f;  // dst's last value, copied back after the first copy had read src
  EXPECT_EQ(t.values_of(t.src, 0), src);
}

TEST(EmulatedStreamOrder, FreeingAQueuedCopysSourceFails) {
  ClearEmulatorErrors clear;
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  DeferredStreams deferred;
  TwoStreams t;
  t.queue_peer_copy();
  {
    OnDevice on0(0);
    // cudaFree waits for cuda:0's work, not for the copy queued on cuda:1.
    EXPECT_EQ(cudaFree(t.src), cudaErrorIllegalAddress);
    EXPECT_EQ(fault().rfind("cuda:0: cudaFree of 64 bytes at ", 0), 0u) << fault();
    EXPECT_TRUE(has(" on cuda:0 while cudaMemcpyPeerAsync of 64 bytes from "));
    EXPECT_TRUE(has("(a stream-order bug: cudaFree waits for its own device only)"));
  }
  // The block was kept for the copy, which still reads 1 to 16 (t frees it at the end).
  emulation::clear_errors();
  EXPECT_EQ(t.values_of(t.dst, 1), one_to_sixteen());
}

TEST(EmulatedStreamOrder, ImmediateStreamsHaveNoPendingCopies) {
  ClearEmulatorErrors clear;
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  DeferredStreams immediate(false);
  TwoStreams t;
  t.queue_peer_copy();  // runs now
  OnDevice on0(0);
  EMBER_LAUNCH(store, 1, 16, 0, t.s0, t.src, -1.0f);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess) << fault();
  EXPECT_EQ(t.values_of(t.dst, 1), one_to_sixteen());
}

// What the caching allocator's invariant needs (M10: the source's stream must wait for a
// peer copy before its block is reused): a tensor copied to cuda:1 and dropped at once on
// cuda:0, its block handed to the next tensor there, still arrives whole.
TEST(EmulatedStreamOrder, EmbersCopyBetweenDevicesLetsTheSourceBlockBeReusedAtOnce) {
  ClearEmulatorErrors clear;
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  DeferredStreams deferred;
  for (int from : {0, 1}) {
    const int to = 1 - from;
    Tensor a = full({600}, 3.0, TensorOptions().device(Device::cuda(from)));
    const Tensor b = a.to(Device::cuda(to));
    a = Tensor();  // back to cuda:from's cache, the copy still queued on cuda:to
    const Tensor c = full({600}, 7.0, TensorOptions().device(Device::cuda(from)));
    EXPECT_EQ(b.cpu().to_vector<float>(), std::vector<float>(600, 3.0f)) << "from cuda:" << from;
    EXPECT_EQ(c.cpu().to_vector<float>(), std::vector<float>(600, 7.0f)) << "from cuda:" << from;
  }
}

TEST(EmulatedStreamOrder, ABlockReturnedToTheCacheWhileACopyReadsItFails) {
  ClearEmulatorErrors clear;
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  DeferredStreams deferred;
  TwoStreams t;
  t.queue_peer_copy();
  // What Ember's caching allocator asks when a block comes back: here cuda:0's stream s0
  // would reuse src while the copy on cuda:1 still reads it.
  EXPECT_FALSE(emulation::may_reuse(0, t.s0, t.src, TwoStreams::kBytes));
  EXPECT_EQ(
      fault().rfind("cuda:0: a block of 64 bytes returned to the caching allocator of cuda:0 for reuse", 0),
      0u)
      << fault();
  emulation::clear_errors();
  EXPECT_TRUE(emulation::may_reuse(1, t.s1, t.src, TwoStreams::kBytes)) << "the copy's own stream";
  EXPECT_EQ(t.values_of(t.dst, 1), one_to_sixteen());
  EXPECT_TRUE(emulation::may_reuse(0, t.s0, t.src, TwoStreams::kBytes)) << "the copy has run";
}
