#include "ember/kernels/cuda/cublas_loader.h"

#if defined(EMBER_CUDA_EMULATED)
#include "ember/kernels/cuda/emulation/not_modelled.h"

namespace ember::cuda_detail {

// No library is opened in the emulated build (part 2 models the calls instead).
void* cublas_symbol(const char* symbol) { emulation::not_modelled(symbol); }

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
      handle = ::dlopen((std::string(EMBER_CUDA_LIBRARY_DIR) + "/" + kLibrary).c_str(), RTLD_NOW | RTLD_LOCAL);
    }
#endif
    if (!handle) failure += failure.empty() ? ::dlerror() : std::string("; ") + ::dlerror();
  });
  if (!handle) raise<CudaError>("cannot load ", kLibrary, " (needed for matmul and linear on CUDA): ", failure);
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
