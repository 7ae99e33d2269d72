// The scratch buffers the CPU convolutions keep per thread (kernels/cpu/conv/conv_scratch.h): a
// buffer over the bound is not kept after the call that needed it, buffers within it are
// reused across calls, and the CPU backend's empty_cache frees every thread's.
#include <gtest/gtest.h>

#include <cstddef>
#include <future>
#include <thread>

#include "ember/core/threads.h"
#include "ember/ember.h"
#include "ember/kernels/cpu/conv/conv_buffers.h"
#include "ember/kernels/cpu/conv/conv_route.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "support/threads_guard.h"

namespace {
using namespace ember;

using test::ThreadsGuard;

// Dilation 2 keeps a layer off the direct and shifted routes: im2col's columns, C * 9 * Ho * Wo
// floats per sample, 16 * 9 * 360 * 360 * 4 bytes = 71 MiB here, more than the bound.
constexpr int64_t kSide = 360;
const Conv2dParams kDilated{1, 1, 2, 2, 2, 2};

float at(const Tensor& y, int64_t n, int64_t h, int64_t w) {
  return y.select(0, n).select(0, 0).select(0, h).select(0, w).item<float>();
}

Tensor dilated_conv(int64_t n, int64_t side) {
  return conv2d(ones({n, 16, side, side}), ones({1, 16, 3, 3}), Tensor(), 1, 2, 2);
}

TEST(ConvScratch, ABufferOverTheBoundIsNotKeptAfterTheCall) {
  ASSERT_EQ(
      cpu::conv2d_route(cpu::ConvPass::forward, kFloat32, 16, kSide, kSide, 1, 3, 3, kSide, kSide, kDilated),
      cpu::ConvRoute::columns);
  ASSERT_GT(size_t{16 * 9 * kSide * kSide * 4}, cpu::kConvScratchKeep);
  ThreadsGuard one(1);
  cpu_backend().empty_cache();
  const Tensor y = dilated_conv(1, kSide);
  EXPECT_EQ(at(y, 0, 100, 100), 144.0f);  // the conv ran: 16 * 9 ones
  EXPECT_LT(cpu::conv_scratch_kept(), cpu::kConvScratchKeep);
}

TEST(ConvScratch, ABufferOverTheBoundIsNotKeptByAWorkerEither) {
  ThreadsGuard two(2);
  cpu_backend().empty_cache();
  // Two samples, one per chunk: each thread that takes one fills 71 MiB of columns.
  const Tensor y = dilated_conv(2, kSide);
  EXPECT_EQ(at(y, 1, 7, 9), 144.0f);
  EXPECT_LT(cpu::conv_scratch_kept_all_threads(), cpu::kConvScratchKeep);
}

TEST(ConvScratch, EmptyCacheFreesEveryThreadsBuffers) {
  for (int threads : {1, 2}) {
    ThreadsGuard guard(threads);
    dilated_conv(8, 40);  // 0.9 MiB of columns per sample: kept
    dilated_conv(8, 40);
    EXPECT_GT(cpu::conv_scratch_kept(), size_t{0}) << threads;
    cpu_backend().empty_cache();
    EXPECT_EQ(cpu::conv_scratch_kept(), size_t{0}) << threads;
    EXPECT_EQ(cpu::conv_scratch_kept_all_threads(), size_t{0}) << threads;
  }
}

TEST(ConvScratch, BuffersWithinTheBoundAreReusedAcrossCalls) {
  // A training step asks for the same sizes every iteration: they must not be allocated again.
  float* first = nullptr;
  {
    cpu::ConvScratchScope call;
    first = cpu::conv_scratch<float>(cpu::kConvColumns, 1 << 20);
  }
  {
    cpu::ConvScratchScope call;
    EXPECT_EQ(cpu::conv_scratch<float>(cpu::kConvColumns, 1 << 20), first);
    EXPECT_EQ(cpu::conv_scratch<float>(cpu::kConvColumns, 1000), first);
    EXPECT_GE(cpu::conv_scratch_kept(), size_t{4} << 20);
  }
  cpu_backend().empty_cache();
  EXPECT_EQ(cpu::conv_scratch_kept(), size_t{0});
}

TEST(ConvScratch, AThreadInsideAConvolutionFreesItsBuffersWhenTheCallEnds) {
  // empty_cache cannot free buffers a convolution on another thread is using: that thread
  // frees them when its call ends.
  std::promise<void> taken, emptied;
  size_t during = 0, after = 1;
  std::thread other([&] {
    {
      cpu::ConvScratchScope call;
      float* p = cpu::conv_scratch<float>(cpu::kConvColumns, 1 << 20);
      taken.set_value();
      emptied.get_future().wait();
      p[(1 << 20) - 1] = 2.0f;  // still this call's memory
      during = cpu::conv_scratch_kept();
    }
    after = cpu::conv_scratch_kept();
  });
  taken.get_future().wait();
  cpu_backend().empty_cache();
  emptied.set_value();
  other.join();
  EXPECT_EQ(during, size_t{4} << 20);
  EXPECT_EQ(after, size_t{0});
}

}  // namespace
