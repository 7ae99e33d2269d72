// Per-device streams, library handles and the index-error flag.
#include "ember/kernels/cuda/cuda_context.h"

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "ember/kernels/cuda/cuda_allocator.h"
#include "ember/kernels/cuda/cuda_backend.h"
#if defined(EMBER_CUDA_EMULATED)
#include "cuda_emulator/control.h"
#endif

namespace ember::cuda_detail {
namespace {

// cuBLAS's recommended workspace on Hopper (4 MiB suffices before it); taken from the
// caching allocator once per device instead of letting cuBLAS allocate its own.
constexpr size_t kCublasWorkspace = size_t(32) << 20;

struct DeviceContext {
  std::once_flag stream_once, cublas_once, cudnn_once;
  cudaStream_t stream = nullptr;
  int sms = 1;
  IndexFlag* flag = nullptr;
  cublasHandle_t cublas = nullptr;
  DeviceBuffer cublas_workspace;
  cudnnHandle_t cudnn = nullptr;

  std::mutex check_mutex;
  struct Check {
    std::string op;
    IndexKind kind;
    int dim;
  };
  std::vector<Check> checks;  // a kernel reports position + 1
  bool pending = false;
};

// Contexts live for the whole process and are never destroyed: tearing down handles and
// streams at exit races the CUDA runtime's own teardown.
DeviceContext& context(int device) {
  static std::vector<DeviceContext*>* all = [] {
    auto* v = new std::vector<DeviceContext*>(static_cast<size_t>(builtin_cuda_device_count()));
    for (auto& c : *v) c = new DeviceContext;
    return v;
  }();
  builtin_cuda_backend().check_device(Device::cuda(device));
  DeviceContext& ctx = *(*all)[static_cast<size_t>(device)];
  std::call_once(ctx.stream_once, [&] {
    CudaDeviceGuard guard(device);
    // Non-blocking: never implicitly ordered with the legacy default stream, which Ember
    // does not use, so whole steps can later be captured as graphs.
    EMBER_CUDA_CHECK(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
    EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&ctx.sms, cudaDevAttrMultiProcessorCount, device));
    void* flag = nullptr;
    EMBER_CUDA_CHECK(cudaMalloc(&flag, sizeof(IndexFlag)));
    EMBER_CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(IndexFlag), ctx.stream));
    EMBER_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    ctx.flag = static_cast<IndexFlag*>(flag);
  });
  return ctx;
}

}  // namespace

cudaStream_t stream(int device) { return context(device).stream; }

int sm_count(int device) { return context(device).sms; }

cublasHandle_t cublas(int device) {
  DeviceContext& ctx = context(device);
  std::call_once(ctx.cublas_once, [&] {
    CudaDeviceGuard guard(device);
    cublasHandle_t h = nullptr;
    EMBER_CUBLAS_CHECK(EMBER_CUBLAS(cublasCreate)(&h));
    // cublasSetStream resets the workspace to cuBLAS's own pool, so the workspace is set
    // after it.
    EMBER_CUBLAS_CHECK(EMBER_CUBLAS(cublasSetStream)(h, ctx.stream));
    DeviceBuffer ws(device, kCublasWorkspace);
    EMBER_CUBLAS_CHECK(EMBER_CUBLAS(cublasSetWorkspace)(h, ws.get(), ws.size()));
    // Full FP32 unless a call asks for TF32 through its compute type.
    EMBER_CUBLAS_CHECK(EMBER_CUBLAS(cublasSetMathMode)(h, CUBLAS_DEFAULT_MATH));
    ctx.cublas_workspace = std::move(ws);
    ctx.cublas = h;
  });
  return ctx.cublas;
}

cudnnHandle_t cudnn(int device) {
  DeviceContext& ctx = context(device);
  std::call_once(ctx.cudnn_once, [&] {
    CudaDeviceGuard guard(device);
    cudnnHandle_t h = nullptr;
    EMBER_CUDNN_CHECK(cudnnCreate(&h));
    EMBER_CUDNN_CHECK(cudnnSetStream(h, ctx.stream));
    ctx.cudnn = h;
  });
  return ctx.cudnn;
}

int register_index_check(int device, const char* op, IndexKind kind, int dim, IndexFlag** flag) {
  DeviceContext& ctx = context(device);
  std::lock_guard<std::mutex> lock(ctx.check_mutex);
  *flag = ctx.flag;
  ctx.pending = true;
  for (size_t i = 0; i < ctx.checks.size(); ++i) {
    const DeviceContext::Check& c = ctx.checks[i];
    if (c.kind == kind && c.dim == dim && c.op == op) return static_cast<int>(i) + 1;
  }
  ctx.checks.push_back({op, kind, dim});
  return static_cast<int>(ctx.checks.size());
}

void raise_pending_index_errors(int device) {
  DeviceContext& ctx = context(device);
  std::lock_guard<std::mutex> lock(ctx.check_mutex);
  if (!ctx.pending) return;
  IndexFlag h{};
  EMBER_CUDA_CHECK(cudaMemcpyAsync(&h, ctx.flag, sizeof h, cudaMemcpyDeviceToHost, ctx.stream));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  ctx.pending = false;
  if (h.code == 0) return;
  EMBER_CUDA_CHECK(cudaMemsetAsync(ctx.flag, 0, sizeof(IndexFlag), ctx.stream));
  if (h.code < 1 || h.code > static_cast<int>(ctx.checks.size()))
    raise<IndexError>("index out of range in a CUDA kernel on cuda:", device);
  const DeviceContext::Check& c = ctx.checks[static_cast<size_t>(h.code - 1)];
  // The CPU backend's messages, word for word.
  if (c.kind == IndexKind::Target)
    raise<IndexError>(c.op, ": target ", h.value, " is out of range for ", h.limit,
                      " classes (expected 0 <= target < ", h.limit, ")");
  raise<IndexError>(c.op, ": index ", h.value, " is out of range for dim ", c.dim, " of size ", h.limit);
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  raise<CudaError>(call, " failed: ", EMBER_CUBLAS(cublasGetStatusString)(status), " (", file, ":", line,
                   ")");
}

void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line) {
  raise<CudaError>(call, " failed: ", cudnnGetErrorString(status), " (", file, ":", line, ")");
}

}  // namespace ember::cuda_detail

namespace ember {

std::string CudaBackend::versions() {
#if defined(EMBER_CUDA_EMULATED)
  return emulation::describe();
#else
  int runtime = 0, driver = 0, blas_major = 0, blas_minor = 0, blas_patch = 0;
  cudaRuntimeGetVersion(&runtime);
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  cudaGetLastError();
  std::string blas;
  try {
    EMBER_CUBLAS(cublasGetProperty)(MAJOR_VERSION, &blas_major);
    EMBER_CUBLAS(cublasGetProperty)(MINOR_VERSION, &blas_minor);
    EMBER_CUBLAS(cublasGetProperty)(PATCH_LEVEL, &blas_patch);
    blas = detail::concat(blas_major, ".", blas_minor, ".", blas_patch);
  } catch (const CudaError& e) {
    blas = e.what();
  }
  const size_t dnn = cudnnGetVersion();
  return detail::concat("CUDA runtime ", runtime / 1000, ".", runtime % 1000 / 10, ", driver ", driver / 1000,
                        ".", driver % 1000 / 10, ", cuBLAS ", blas, ", cuDNN ", dnn / 10000, ".",
                        dnn % 10000 / 100, ".", dnn % 100);
#endif
}

}  // namespace ember
