// Device discovery, transfers and synchronisation for the CUDA backend. Every copy runs on
// the device's one stream, so it is ordered with the kernels around it; copies to the host
// wait for it and then raise what kernels reported (bad indices).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "ember/kernels/cuda/cuda_backend.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/cuda_context.h"

namespace ember {

Backend& builtin_cuda_backend() {
  static CudaBackend instance;
  return instance;
}

namespace {

// What the runtime said when first asked for devices, kept to explain a count of zero.
struct DeviceProbe {
  int count = 0;
  cudaError_t status = cudaSuccess;
  int driver = 0;  // the driver's CUDA version; 0 when none is installed
};

const DeviceProbe& device_probe() {
  static const DeviceProbe probe = [] {
    DeviceProbe p;
    p.status = cudaGetDeviceCount(&p.count);
    // Any failure (no driver: "CUDA driver version is insufficient", no device) means zero.
    if (p.status != cudaSuccess) p.count = 0;
    if (cudaDriverGetVersion(&p.driver) != cudaSuccess) p.driver = 0;
    cudaGetLastError();
    return p;
  }();
  return probe;
}

std::string cuda_version_str(int v) { return detail::concat(v / 1000, ".", v % 1000 / 10); }

// Why there is no device, in the words cuda::versions() uses for the driver.
std::string no_device_reason() {
  const DeviceProbe& p = device_probe();
  const std::string said = detail::concat("(cudaGetDeviceCount: ", cudaGetErrorString(p.status), ")");
  switch (p.status) {
    case cudaSuccess:
      return "the driver reports 0 devices";
    case cudaErrorInsufficientDriver: {
      if (p.driver == 0) return "no NVIDIA driver is installed " + said;
      int runtime = 0;
      cudaRuntimeGetVersion(&runtime);
      return detail::concat("the NVIDIA driver (CUDA ", cuda_version_str(p.driver),
                            ") is older than the CUDA runtime (", cuda_version_str(runtime), ") ", said);
    }
    case cudaErrorNoDevice:
      return "the driver finds no CUDA device (none installed, or CUDA_VISIBLE_DEVICES hides them) " + said;
    default:
      return "the CUDA runtime could not count the devices " + said;
  }
}

}  // namespace

int builtin_cuda_device_count() { return device_probe().count; }

int CudaBackend::device_count() const { return builtin_cuda_device_count(); }

void CudaBackend::check_device(Device device) const {
  if (device.is_cuda() && builtin_cuda_device_count() == 0)
    raise<DeviceError>(device.str(), " requested, but no CUDA device is available: ", no_device_reason());
  Backend::check_device(device);
}

CudaDeviceGuard::CudaDeviceGuard(int device) {
  EMBER_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ != device) EMBER_CUDA_CHECK(cudaSetDevice(device));
}
CudaDeviceGuard::~CudaDeviceGuard() {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current != previous_ && previous_ >= 0)
    cudaSetDevice(previous_);
}

namespace {

// Lets dst read src directly where the hardware allows it (both directions, once per pair);
// cudaMemcpyPeerAsync stages through the host by itself where it does not.
void enable_peer_access(int a, int b) {
  static std::mutex mutex;
  static std::set<std::pair<int, int>> done;
  std::lock_guard<std::mutex> lock(mutex);
  if (!done.insert({std::min(a, b), std::max(a, b)}).second) return;
  for (auto [from, to] : {std::pair<int, int>{a, b}, std::pair<int, int>{b, a}}) {
    int can = 0;
    EMBER_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, from, to));
    if (!can) continue;
    CudaDeviceGuard guard(from);
    const cudaError_t err = cudaDeviceEnablePeerAccess(to, 0);
    if (err == cudaErrorPeerAccessAlreadyEnabled)
      cudaGetLastError();
    else
      EMBER_CUDA_CHECK(err);
  }
}

// Makes `waiter`'s stream wait for everything queued so far on `signaller`'s stream.
void stream_wait(int waiter, int signaller) {
  cudaEvent_t e = nullptr;
  {
    CudaDeviceGuard guard(signaller);
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    EMBER_CUDA_CHECK(cudaEventRecord(e, cuda_detail::stream(signaller)));
  }
  CudaDeviceGuard guard(waiter);
  EMBER_CUDA_CHECK(cudaStreamWaitEvent(cuda_detail::stream(waiter), e, 0));
  // Destroying a recorded event is allowed: its resources go once it completes.
  EMBER_CUDA_CHECK(cudaEventDestroy(e));
}

}  // namespace

void CudaBackend::copy_from_host(void* dst, const void* src, size_t nbytes, Device dst_device) {
  CudaDeviceGuard guard(dst_device.index);
  // From pageable memory this returns once the source is staged, so the caller may free it.
  EMBER_CUDA_CHECK(
      cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, cuda_detail::stream(dst_device.index)));
}

void CudaBackend::copy_to_host(void* dst, const void* src, size_t nbytes, Device src_device) {
  CudaDeviceGuard guard(src_device.index);
  cudaStream_t s = cuda_detail::stream(src_device.index);
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, s));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(s));
  cuda_detail::raise_pending_index_errors(src_device.index);
}

void CudaBackend::copy_between_devices(void* dst, Device dst_device, const void* src, Device src_device,
                                       size_t nbytes) {
  if (dst_device == src_device) {
    CudaDeviceGuard guard(dst_device.index);
    EMBER_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, cuda_detail::stream(dst_device.index)));
    return;
  }
  const int from = src_device.index, to = dst_device.index;
  enable_peer_access(from, to);
  // The copy runs on the destination's stream once the source's producers are done; the
  // source's stream then waits for the copy, so its block is not reused while being read.
  stream_wait(to, from);
  {
    CudaDeviceGuard guard(to);
    EMBER_CUDA_CHECK(cudaMemcpyPeerAsync(dst, to, src, from, nbytes, cuda_detail::stream(to)));
  }
  stream_wait(from, to);
}

void CudaBackend::synchronize(Device device) {
  CudaDeviceGuard guard(device.index);
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
  cuda_detail::raise_pending_index_errors(device.index);
}

}  // namespace ember
