#include "ember/kernels/cuda/cublas_loader.h"

#if defined(EMBER_CUDA_EMULATED)
#include <cstring>

#include "ember/core/error.h"

namespace ember::cuda_detail {
namespace {

const char* const kLibrary = "libcublas.so." EMBER_CUBLAS_STRINGIFY(CUBLAS_VER_MAJOR);

// The modelled calls (cuda_emulator/cublas.h) under the names a real libcublas exports: the
// header's macros map cublasCreate to cublasCreate_v2 and so on, as cublas_v2.h does.
#define EMBER_MODELLED(fn) \
  { EMBER_CUBLAS_STRINGIFY(fn), reinterpret_cast<void*>(&fn) }
const struct {
  const char* name;
  void* address;
} kModelled[] = {
    EMBER_MODELLED(cublasCreate),          EMBER_MODELLED(cublasDestroy),
    EMBER_MODELLED(cublasSetStream),       EMBER_MODELLED(cublasSetWorkspace),
    EMBER_MODELLED(cublasSetMathMode),     EMBER_MODELLED(cublasGetProperty),
    EMBER_MODELLED(cublasGetStatusString), EMBER_MODELLED(cublasGemmStridedBatchedEx),
};
#undef EMBER_MODELLED

}  // namespace

// No library is opened in the emulated build: the symbols are the emulator's models, and an
// unknown one fails as dlsym would.
void* cublas_symbol(const char* symbol) {
  for (const auto& m : kModelled)
    if (std::strcmp(m.name, symbol) == 0) return m.address;
  raise<CudaError>(kLibrary, " has no symbol ", symbol, ": the emulated cuBLAS does not model it");
}

}  // namespace ember::cuda_detail
#else
#include <dlfcn.h>

#include <mutex>
#include <string>

#include "ember/core/error.h"

namespace ember::cuda_detail {
namespace {

const std::string kLibrary = "libcublas.so." EMBER_CUBLAS_STRINGIFY(CUBLAS_VER_MAJOR);

void* open_cublas() {
  static void* handle = nullptr;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    handle = ::dlopen(kLibrary.c_str(), RTLD_NOW | RTLD_LOCAL);
#ifdef EMBER_CUDA_LIBRARY_DIR
    if (!handle) {
      failure = ::dlerror();
      handle =
          ::dlopen((std::string(EMBER_CUDA_LIBRARY_DIR) + "/" + kLibrary).c_str(), RTLD_NOW | RTLD_LOCAL);
    }
#endif
    if (!handle) failure += failure.empty() ? ::dlerror() : std::string("; ") + ::dlerror();
  });
  if (!handle)
    raise<CudaError>("cannot load ", kLibrary, " (needed for matmul and linear on CUDA): ", failure);
  return handle;
}

}  // namespace

void* cublas_symbol(const char* symbol) {
  void* lib = open_cublas();
  ::dlerror();
  void* f = ::dlsym(lib, symbol);
  if (!f) raise<CudaError>(kLibrary, " has no symbol ", symbol, ": ", ::dlerror());
  return f;
}

}  // namespace ember::cuda_detail
#endif
