// Strict devices (EMBER_EMULATED_CUDA_STRICT_DEVICES=1, on in CI): a kernel's or cuBLAS's
// pointer argument on another device than its work is an illegal address even where peer
// access is enabled (as it is once a tensor has crossed devices), so a cuda:1 kernel handed
// cuda:0's buffer fails; copies between devices stay allowed.
#include <gtest/gtest.h>

#include <cublas_v2.h>

#include <string>
#include <vector>

#include "device_values.h"
#include "ember/ember.h"
#include "ember/extend/backend.h"
#include "emulation_support.h"

using namespace ember;
using ember::test::ClearEmulatorErrors;
using ember::test::DeviceArray;
using ember::test::OnDevice;
using ember::test::StrictDevices;

namespace {

__global__ void store(float* out, float v) { out[threadIdx.x] = v; }

std::string fault() { return emulation::last_fault(); }

// Peer access from the current device to peer, whether or not an earlier copy enabled it.
void enable_peer_access(int peer) {
  if (cudaDeviceEnablePeerAccess(peer, 0) == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
}

constexpr const char* kStrict =
    " (strict devices: arguments live on the device of their work, peer access or not)";

}  // namespace

TEST(EmulatedStrictDevices, AKernelArgumentOfAnotherDeviceFailsDespitePeerAccess) {
  ClearEmulatorErrors clear;
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  OnDevice on0(0);
  enable_peer_access(1);
  float* theirs = nullptr;
  {
    OnDevice on1(1);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&theirs), 32 * sizeof(float)), cudaSuccess);
  }
  {
    StrictDevices strict(true);
    EMBER_LAUNCH(store, 1, 32, 0, nullptr, theirs, 3.0f);
    EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT_EQ(fault().rfind("cuda:0: kernel store argument 0: ", 0), 0u) << fault();
    EXPECT_NE(fault().find(" is memory of cuda:1, used on cuda:0" + std::string(kStrict)), std::string::npos)
        << fault();
    EXPECT_NE(emulation::describe().find(", strict devices)"), std::string::npos) << emulation::describe();
  }
  emulation::clear_errors();
  {
    StrictDevices lenient(false);  // the same launch through peer access
    EMBER_LAUNCH(store, 1, 32, 0, nullptr, theirs, 3.0f);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << fault();
    EXPECT_EQ(emulation::describe().find("strict devices"), std::string::npos) << emulation::describe();
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  OnDevice on1(1);
  EXPECT_EQ(cudaFree(theirs), cudaSuccess);
}

TEST(EmulatedStrictDevices, EmbersKernelHandedAnotherDevicesTensorNamesTheKernel) {
  ClearEmulatorErrors clear;
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  StrictDevices strict(true);
  const Tensor param = zeros({8}, TensorOptions().device(Device::cuda(1)));
  const Tensor grad = ones({8}, TensorOptions().device(Device::cuda(0)));  // the wrong device
  (void)grad.to(Device::cuda(1));  // a copy across: peer access on both ways
  SgdParams sgd;
  sgd.lr = 0.5;
  try {
    NoGradGuard no_grad;
    backend_for(Device::cuda(1)).sgd_step({param}, {grad}, {}, sgd);  // lists travel in a struct
    ADD_FAILURE() << "no error";
  } catch (const CudaError& e) {
    const std::string msg = e.what();
    EXPECT_NE(
        msg.find(
            "an illegal memory access was encountered (emulated: cuda:1: kernel sgd_kernel argument 0: "),
        std::string::npos)
        << msg;
    EXPECT_NE(msg.find(" is memory of cuda:0, used on cuda:1" + std::string(kStrict)), std::string::npos)
        << msg;
  }
}

TEST(EmulatedStrictDevices, CublasOperandsOfAnotherDeviceFail) {
  ClearEmulatorErrors clear;
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  StrictDevices strict(true);
  OnDevice on0(0);
  enable_peer_access(1);
  cublasHandle_t h = nullptr;
  ASSERT_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  DeviceArray<float> a(4), c(4);
  float* b = nullptr;
  {
    OnDevice on1(1);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&b), 4 * sizeof(float)), cudaSuccess);
  }
  const float one = 1, zero = 0;
  EXPECT_EQ(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a.get(), CUDA_R_32F, 2, 0,
                                       b, CUDA_R_32F, 2, 0, &zero, c.get(), CUDA_R_32F, 2, 0, 1,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(fault().rfind("cuda:0: cublasGemmStridedBatchedEx B: ", 0), 0u) << fault();
  EXPECT_NE(fault().find(" is memory of cuda:1, used on cuda:0" + std::string(kStrict)), std::string::npos)
      << fault();
  emulation::clear_errors();
  EXPECT_EQ(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
  OnDevice on1(1);
  EXPECT_EQ(cudaFree(b), cudaSuccess);
}

TEST(EmulatedStrictDevices, CopiesBetweenDevicesStayAllowed) {
  ClearEmulatorErrors clear;
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  StrictDevices strict(true);
  const Tensor a = arange(0, 12, 1, kFloat32).reshape({3, 4});
  const Tensor crossed = a.to(Device::cuda(0)).t().to(Device::cuda(1));  // a peer copy of a strided source
  EXPECT_EQ(crossed.device(), Device::cuda(1));
  EXPECT_EQ((crossed * 2.0).cpu().to_vector<float>(), (a.t().contiguous() * 2.0).to_vector<float>());
  OnDevice on0(0);
  DeviceArray<float> src(4, 0), dst0(4);
  float* dst1 = nullptr;
  {
    OnDevice on1(1);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dst1), 4 * sizeof(float)), cudaSuccess);
  }
  const std::vector<float> v{1, 2, 3, 4};
  ASSERT_EQ(cudaMemcpyAsync(src.get(), v.data(), sizeof(float) * 4, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpyPeerAsync(dst1, 1, src.get(), 0, sizeof(float) * 4, nullptr), cudaSuccess) << fault();
  EXPECT_EQ(cudaMemcpyPeerAsync(dst0.get(), 0, dst1, 1, sizeof(float) * 4, nullptr), cudaSuccess) << fault();
  EXPECT_EQ(dst0.host(), v);
  OnDevice on1(1);
  EXPECT_EQ(cudaFree(dst1), cudaSuccess);
}
