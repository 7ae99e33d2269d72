// Memcheck through AddressSanitizer: in the ASan build of the emulated CUDA backend, a
// kernel that writes one element past a tensor is an ASan report whose stack names the
// kernel. Built and run only there (tests/CMakeLists.txt: ember_cuda_asan_tests, label
// asan), since nothing else would catch the write and a skip fails the emulated stage. CI
// runs it with EMBER_CUDA_CACHING_ALLOCATOR=0 (each tensor its own cudaMalloc: a
// heap-buffer-overflow); with the cache on, the block's rounding is poisoned instead
// (use-after-poison).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include "ember/ember.h"
#include "ember/kernels/cuda/cuda_context.h"
#include "ember/kernels/cuda/launch.cuh"

using namespace ember;

namespace {

__global__ void write_one_past_the_end_kernel(float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = 1.0f;  // the bug: `<=`
}

}  // namespace

TEST(CudaAddressSanitizer, AKernelWritingOnePastATensorIsAReportNamingTheKernel) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        // 1001 floats: a tail that ends mid-block and mid-warp.
        Tensor t = zeros({1001}, TensorOptions().device(Device::cuda(0)));
        EMBER_LAUNCH(write_one_past_the_end_kernel, 4, 256, 0, cuda_detail::stream(0),
                     static_cast<float*>(t.raw_data()), t.numel());
        cudaDeviceSynchronize();
      },
      "AddressSanitizer: (heap-buffer-overflow|use-after-poison).*WRITE of size "
      "4.*write_one_past_the_end_kernel");
}

TEST(CudaAddressSanitizer, TheSameKernelWithinBoundsIsNoReport) {
  Tensor t = zeros({1001}, TensorOptions().device(Device::cuda(0)));
  EMBER_LAUNCH(write_one_past_the_end_kernel, 4, 256, 0, cuda_detail::stream(0),
               static_cast<float*>(t.raw_data()), t.numel() - 1);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<float> v = t.cpu().to_vector<float>();
  EXPECT_EQ(v.front(), 1.0f);
  EXPECT_EQ(v.back(), 1.0f);
}
