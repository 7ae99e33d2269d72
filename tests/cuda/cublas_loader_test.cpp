// cuBLAS is opened on first use (kernels/cuda/cublas_loader.h); tests/kernels/
// cublas_lazy_test.cpp checks that CPU work never opens it. None of these cases needs a GPU:
// opening the library and calling cublasGetProperty work without a driver. The emulated
// build opens no library: the same names resolve to the emulator's cuBLAS models.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/kernels/cuda/cublas_loader.h"
#include "support/expect.h"

namespace {

const char* const kLibrary = "libcublas.so." EMBER_CUBLAS_STRINGIFY(CUBLAS_VER_MAJOR);

TEST(CublasLoader, ResolvesFunctionsWithTheHeadersSignature) {
  int major = -1;
  ASSERT_EQ(EMBER_CUBLAS(cublasGetProperty)(MAJOR_VERSION, &major), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(major, CUBLAS_VER_MAJOR);
  // cublasCreate is a macro for the exported cublasCreate_v2.
  EXPECT_EQ(ember::cuda_detail::cublas_symbol("cublasCreate_v2"),
            reinterpret_cast<void*>(EMBER_CUBLAS(cublasCreate)));
}

TEST(CublasLoader, AMissingSymbolIsACudaErrorNamingIt) {
  EXPECT_THROW_MSG(ember::cuda_detail::cublas_symbol("cublasNoSuchFunction"), ember::CudaError,
                   std::string(kLibrary) + " has no symbol cublasNoSuchFunction");
}

}  // namespace
