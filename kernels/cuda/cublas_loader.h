#pragma once
// cuBLAS is opened on first use instead of being linked: loading libcublas (and the
// libcublasLt it pulls in) costs about 215 MiB of resident memory before any call, which
// every CPU-only run of an Ember binary would otherwise pay. cuDNN stays linked: it loads its
// engine sub-libraries lazily by itself and costs about 2 MiB.
//
//   EMBER_CUBLAS(cublasCreate)(&handle)
//
// calls the library's function (names that cublas_v2.h maps to their _v2 symbols are mapped
// first), resolved once per call site with the header's exact signature. EMBER_CUBLAS_AS
// names the signature where the C++ header adds overloads.
#include <cublas_v2.h>

namespace ember::cuda_detail {

/// The address of `symbol` in libcublas.so.<major>, opening the library on first use (the
/// loader's search path, then the CUDA toolkit Ember was built against). CudaError names
/// the library or symbol and dlerror()'s reason when either cannot be found.
void* cublas_symbol(const char* symbol);

template <class F>
F cublas_function(const char* symbol) {
  return reinterpret_cast<F>(cublas_symbol(symbol));
}

}  // namespace ember::cuda_detail

#define EMBER_CUBLAS_STRINGIFY_(x) #x
#define EMBER_CUBLAS_STRINGIFY(x) EMBER_CUBLAS_STRINGIFY_(x)
#define EMBER_CUBLAS(fn) EMBER_CUBLAS_AS(fn, decltype(&fn))
// For a name the header overloads in C++: Ptr picks the C function's signature (and the
// static_cast checks it against the header). The emulated build resolves the same names
// to the emulator's models (cuda_emulator/cublas.h), so both builds take this path.
#define EMBER_CUBLAS_AS(fn, Ptr)                                                          \
  ([] {                                                                                   \
    using ember_checked = decltype(static_cast<Ptr>(&fn));                                \
    static const ember_checked ember_fn =                                                 \
        ::ember::cuda_detail::cublas_function<ember_checked>(EMBER_CUBLAS_STRINGIFY(fn)); \
    return ember_fn;                                                                      \
  }())
