// Without AddressSanitizer, the emulated caching allocator guards the bytes after each block
// (kernels/cuda/cuda_allocator.cpp): a kernel that writes one element past a tensor ends the
// process when the tensor is freed, in every emulated mode, so a tail overrun fails the test
// that ran it. The ASan build (tests/cuda_asan) checks the same write as a report naming the
// kernel instead.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "cuda_emulator/sanitizer.h"
#include "ember/ember.h"
#include "ember/kernels/cuda/cuda_context.h"
#include "emulation_support.h"

using namespace ember;

#if !defined(EMBER_EMULATION_ASAN)
namespace {

__global__ void write_up_to_kernel(float* out, int64_t last) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i <= last) out[i] = 2.0f;
}

// EMBER_CUDA_CACHING_ALLOCATOR=0 hands each tensor to cudaMalloc as it is, unguarded: for
// AddressSanitizer or compute-sanitizer (the emulated stages run with the cache).
bool guarded() {
  const char* caching = std::getenv("EMBER_CUDA_CACHING_ALLOCATOR");
  return !caching || std::string(caching) != "0";
}

}  // namespace

TEST(EmulatedMemoryGuard, AKernelWritingOnePastATensorEndsTheProcess) {
  if (!guarded()) GTEST_SKIP() << "the cache is off: no guard";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        {
          // 1001 floats: a tail that ends mid-block and mid-warp.
          Tensor t = zeros({1001}, TensorOptions().device(Device::cuda(0)));
          EMBER_LAUNCH(write_up_to_kernel, 4, 256, 0, cuda_detail::stream(0),
                       static_cast<float*>(t.raw_data()), t.numel());
        }  // freed: the guard is checked in stream order
        cudaDeviceSynchronize();
      },
      "ember: device memory overrun on cuda:0: byte 0 past the end of a 4004-byte allocation");
}

TEST(EmulatedMemoryGuard, WritesUpToTheLastElementPass) {
  std::vector<float> v;
  {
    Tensor t = zeros({1001}, TensorOptions().device(Device::cuda(0)));
    EMBER_LAUNCH(write_up_to_kernel, 4, 256, 0, cuda_detail::stream(0), static_cast<float*>(t.raw_data()),
                 t.numel() - 1);
    v = t.cpu().to_vector<float>();
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(v, std::vector<float>(1001, 2.0f));
}
#endif
