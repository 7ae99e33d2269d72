// The cuBLAS models (emulator/cublas_model.cpp, cublas_gemm.cpp) called directly, against
// a host GEMM written here from the reference's definition
// (C[i] = alpha op(A[i]) op(B[i]) + beta C[i], column-major, X[i] = X + i * strideX): each
// transpose, leading dimensions larger than the rows, batch strides of 0, alpha and beta,
// every documented status, pointer faults, the workspace and streams.
#include <gtest/gtest.h>

#include <cublas_v2.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "device_values.h"
#include "emulation_support.h"

using namespace ember;
using ember::test::ClearEmulatorErrors;
using ember::test::DeviceArray;
using ember::test::upload;
using ember::test::values;

namespace {

const float kOne = 1;

struct Handle {
  cublasHandle_t h = nullptr;
  Handle() { EXPECT_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS); }
  ~Handle() { cublasDestroy(h); }
};

// One strided batched GEMM's shape.
struct Problem {
  cublasOperation_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_N;
  int m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0, batch = 1;
  long long sa = 0, sb = 0, sc = 0;

  // Elements each operand spans: the last matrix's start plus ld * columns.
  size_t a_size() const { return size_t(sa * (batch - 1) + int64_t(lda) * (ta == CUBLAS_OP_N ? k : m)); }
  size_t b_size() const { return size_t(sb * (batch - 1) + int64_t(ldb) * (tb == CUBLAS_OP_N ? n : k)); }
  size_t c_size() const { return size_t(sc * (batch - 1) + int64_t(ldc) * n); }
};

// Element (r, c) of op(X) for a column-major X with leading dimension ld.
template <class T>
double op_at(const T* x, cublasOperation_t op, int r, int c, int ld) {
  return op == CUBLAS_OP_N ? x[r + int64_t(c) * ld] : x[c + int64_t(r) * ld];
}

template <class T>
std::vector<T> reference(const Problem& p, const std::vector<T>& a, const std::vector<T>& b, std::vector<T> c,
                         double alpha, double beta) {
  for (int i = 0; i < p.batch; ++i)
    for (int col = 0; col < p.n; ++col)
      for (int row = 0; row < p.m; ++row) {
        double sum = 0;
        for (int l = 0; l < p.k; ++l)
          sum += op_at(a.data() + i * p.sa, p.ta, row, l, p.lda) *
                 op_at(b.data() + i * p.sb, p.tb, l, col, p.ldb);
        T& out = c[size_t(i * p.sc + row + int64_t(col) * p.ldc)];
        out = static_cast<T>(alpha * sum + (beta == 0 ? 0.0 : beta * out));
      }
  return c;
}

template <class T>
constexpr cudaDataType type_of() {
  return sizeof(T) == sizeof(double) ? CUDA_R_64F : CUDA_R_32F;
}

// Runs p on device buffers holding a, b and c; returns C.
template <class T>
std::vector<T> gemm(const Problem& p, const std::vector<T>& a, const std::vector<T>& b,
                    const std::vector<T>& c, T alpha, T beta, cublasComputeType_t compute) {
  Handle h;
  DeviceArray<T> da(a.size()), db(b.size()), dc(c.size());
  upload(da, a);
  upload(db, b);
  upload(dc, c);
  const cudaDataType t = type_of<T>();
  EXPECT_EQ(cublasGemmStridedBatchedEx(h.h, p.ta, p.tb, p.m, p.n, p.k, &alpha, da.get(), t, p.lda, p.sa,
                                       db.get(), t, p.ldb, p.sb, &beta, dc.get(), t, p.ldc, p.sc, p.batch,
                                       compute, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  return dc.host();
}

template <class T>
void expect_gemm_matches(const Problem& p, cublasComputeType_t compute, T alpha = 1, T beta = 0) {
  const std::vector<T> a = values<T>(p.a_size(), 1), b = values<T>(p.b_size(), 2),
                       c = values<T>(p.c_size(), 3);
  // Small multiples of 1/4: every product and sum is exact, so the results must be equal.
  EXPECT_EQ(gemm<T>(p, a, b, c, alpha, beta, compute), reference<T>(p, a, b, c, alpha, beta))
      << "ta " << p.ta << " tb " << p.tb << " m " << p.m << " n " << p.n << " k " << p.k;
}

}  // namespace

TEST(CublasModel, HandleVersionAndStatusNames) {
  Handle h;
  int major = 0, minor = -1, patch = -1;
  ASSERT_EQ(cublasGetProperty(MAJOR_VERSION, &major), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasGetProperty(MINOR_VERSION, &minor), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasGetProperty(PATCH_LEVEL, &patch), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(major, 13);
  EXPECT_GE(minor, 0);
  EXPECT_EQ(cublasGetProperty(MAJOR_VERSION, nullptr), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_STREQ(cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE");
  EXPECT_STREQ(cublasGetStatusString(CUBLAS_STATUS_EXECUTION_FAILED), "CUBLAS_STATUS_EXECUTION_FAILED");
  EXPECT_EQ(cublasCreate(nullptr), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(cublasDestroy(nullptr), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(cublasSetMathMode(h.h, CUBLAS_TF32_TENSOR_OP_MATH), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasSetMathMode(
                h.h, cublasMath_t(CUBLAS_PEDANTIC_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasSetMathMode(h.h, cublasMath_t(7)), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(cublasSetMathMode(nullptr, CUBLAS_DEFAULT_MATH), CUBLAS_STATUS_NOT_INITIALIZED);
}

TEST(CublasModel, EachTransposeWithLeadingDimensionsLargerThanTheRows) {
  for (cublasOperation_t ta : {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C})
    for (cublasOperation_t tb : {CUBLAS_OP_N, CUBLAS_OP_T}) {
      Problem p;
      p.ta = ta, p.tb = tb, p.m = 3, p.n = 4, p.k = 5;
      p.lda = (ta == CUBLAS_OP_N ? p.m : p.k) + 2;
      p.ldb = (tb == CUBLAS_OP_N ? p.k : p.n) + 1;
      p.ldc = p.m + 3;  // the rows past m must stay as they were
      expect_gemm_matches<float>(p, CUBLAS_COMPUTE_32F);
      expect_gemm_matches<double>(p, CUBLAS_COMPUTE_64F);
      expect_gemm_matches<float>(p, CUBLAS_COMPUTE_32F_FAST_TF32);  // quarters are exact in TF32
    }
}

TEST(CublasModel, BatchStridesAndAStrideOfZeroRepeatingAMatrix) {
  Problem p;
  p.m = 2, p.n = 3, p.k = 4, p.lda = 2, p.ldb = 4, p.ldc = 2, p.batch = 3;
  p.sa = 8, p.sb = 12, p.sc = 6;
  expect_gemm_matches<float>(p, CUBLAS_COMPUTE_32F);
  p.sa = 0;  // one A for every batch
  expect_gemm_matches<double>(p, CUBLAS_COMPUTE_64F);
  p.sa = 10, p.sb = 0, p.sc = 7, p.ta = CUBLAS_OP_T, p.lda = 4;  // gaps between the matrices
  expect_gemm_matches<float>(p, CUBLAS_COMPUTE_32F);
}

TEST(CublasModel, AlphaAndBetaBlendAndBetaZeroNeverReadsC) {
  Problem p;
  p.m = 3, p.n = 2, p.k = 2, p.lda = 3, p.ldb = 2, p.ldc = 3;
  expect_gemm_matches<float>(p, CUBLAS_COMPUTE_32F, 2.0f, 0.5f);
  expect_gemm_matches<double>(p, CUBLAS_COMPUTE_64F, -0.25, 1.0);
  const std::vector<float> a = values<float>(6, 1), b = values<float>(4, 2);
  const std::vector<float> nan(6, std::numeric_limits<float>::quiet_NaN());
  const std::vector<float> out = gemm<float>(p, a, b, nan, 1.0f, 0.0f, CUBLAS_COMPUTE_32F);
  EXPECT_EQ(out, reference<float>(p, a, b, std::vector<float>(6, 0.0f), 1.0, 0.0));
  // k == 0: C = beta C, A and B not read (null here).
  Handle h;
  DeviceArray<double> c(4);
  upload(c, std::vector<double>{1, 2, 3, 4});
  const double alpha = 1, beta = 3;
  ASSERT_EQ(cublasGemmStridedBatchedEx(h.h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 0, &alpha, nullptr, CUDA_R_64F, 2,
                                       0, nullptr, CUDA_R_64F, 1, 0, &beta, c.get(), CUDA_R_64F, 2, 0, 1,
                                       CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(c.host(), (std::vector<double>{3, 6, 9, 12}));
}

TEST(CublasModel, FastTf32KeepsTenMantissaBits) {
  Problem p;
  p.m = 1, p.n = 1, p.k = 1, p.lda = 1, p.ldb = 1, p.ldc = 1;
  const std::vector<float> a{1.0f + std::ldexp(1.0f, -20)}, b{1.0f}, c{0.0f};
  EXPECT_EQ(gemm<float>(p, a, b, c, 1.0f, 0.0f, CUBLAS_COMPUTE_32F), a);
  EXPECT_EQ(gemm<float>(p, a, b, c, 1.0f, 0.0f, CUBLAS_COMPUTE_32F_FAST_TF32), std::vector<float>{1.0f});
}

TEST(CublasModel, DocumentedArgumentChecks) {
  Handle h;
  DeviceArray<float> a(64), b(64), c(64, 0x7f);
  const float one = 1, zero = 0;
  auto call = [&](cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, int lda, int ldb, int ldc,
                  int batch, cudaDataType at = CUDA_R_32F, cudaDataType ct = CUDA_R_32F,
                  cublasComputeType_t compute = CUBLAS_COMPUTE_32F,
                  cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT, const void* alpha = &kOne,
                  long long stride = 0) {
    return cublasGemmStridedBatchedEx(h.h, ta, tb, m, n, k, alpha, a.get(), at, lda, stride, b.get(),
                                      CUDA_R_32F, ldb, 0, &zero, c.get(), ct, ldc, 0, batch, compute, algo);
  };
  const auto N = CUBLAS_OP_N, T = CUBLAS_OP_T;
  EXPECT_EQ(call(N, N, 2, 2, 2, 2, 2, 2, 1), CUBLAS_STATUS_SUCCESS);
  // INVALID_VALUE: negative sizes, unknown ops, leading dimensions below the rows of the
  // stored matrix (op N: m for A, k for B; op T: k for A, n for B; always m for C).
  EXPECT_EQ(call(N, N, -1, 2, 2, 2, 2, 2, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(N, N, 2, -1, 2, 2, 2, 2, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(N, N, 2, 2, -1, 2, 2, 2, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(N, N, 2, 2, 2, 2, 2, 2, -1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(cublasOperation_t(5), N, 2, 2, 2, 2, 2, 2, 1), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(N, N, 3, 2, 2, 2, 2, 3, 1), CUBLAS_STATUS_INVALID_VALUE);  // lda < m
  EXPECT_EQ(call(T, N, 2, 2, 3, 2, 3, 2, 1), CUBLAS_STATUS_INVALID_VALUE);  // op T: lda < k
  EXPECT_EQ(call(T, N, 2, 2, 3, 3, 3, 2, 1), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(call(N, N, 2, 2, 3, 2, 2, 2, 1), CUBLAS_STATUS_INVALID_VALUE);  // ldb < k
  EXPECT_EQ(call(N, T, 2, 3, 2, 2, 2, 2, 1), CUBLAS_STATUS_INVALID_VALUE);  // op T: ldb < n
  EXPECT_EQ(call(N, N, 3, 2, 2, 3, 2, 2, 1), CUBLAS_STATUS_INVALID_VALUE);  // ldc < m
  EXPECT_EQ(call(N, N, 0, 2, 2, 0, 2, 0, 1), CUBLAS_STATUS_INVALID_VALUE);  // lda, ldc < max(1, m)
  // Where the reference is silent: a null alpha, a negative stride (strict choices).
  EXPECT_EQ(call(N, N, 2, 2, 2, 2, 2, 2, 1, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT,
                 nullptr),
            CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(N, N, 2, 2, 2, 2, 2, 2, 2, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT,
                 &one, -4),
            CUBLAS_STATUS_INVALID_VALUE);
  // NOT_SUPPORTED: combinations outside cublasGemmEx's table, an unknown algorithm.
  EXPECT_EQ(call(N, N, 2, 2, 2, 2, 2, 2, 1, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_64F),
            CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(call(N, N, 2, 2, 2, 2, 2, 2, 1, CUDA_R_64F, CUDA_R_32F), CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(call(N, N, 2, 2, 2, 2, 2, 2, 1, CUDA_R_32F, CUDA_R_64F), CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(call(N, N, 2, 2, 2, 2, 2, 2, 1, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_32F_FAST_TF32),
            CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(call(N, N, 2, 2, 2, 2, 2, 2, 1, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, cublasGemmAlgo_t(42)),
            CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cublasGemmStridedBatchedEx(nullptr, N, N, 2, 2, 2, &one, a.get(), CUDA_R_32F, 2, 0, b.get(),
                                       CUDA_R_32F, 2, 0, &zero, c.get(), CUDA_R_32F, 2, 0, 1,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_NOT_INITIALIZED);
  // Empty products: nothing is read or written (C still holds its 0x7f bytes past the first).
  EXPECT_EQ(call(N, N, 0, 2, 2, 1, 2, 1, 1), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(call(N, N, 2, 2, 2, 2, 2, 2, 0), CUBLAS_STATUS_SUCCESS);
  const std::vector<float> after = c.host();
  uint32_t bits = 0;
  std::memcpy(&bits, &after[10], sizeof bits);
  EXPECT_EQ(bits, 0x7f7f7f7fu);
}

TEST(CublasModel, AHostOperandIsAStickyIllegalAddress) {
  ClearEmulatorErrors clear;
  Handle h;
  DeviceArray<float> a(4), c(4);
  float host_b[4] = {1, 1, 1, 1};  // on the stack: never a freed device block
  const float one = 1, zero = 0;
  EXPECT_EQ(cublasGemmStridedBatchedEx(h.h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a.get(), CUDA_R_32F, 2,
                                       0, host_b, CUDA_R_32F, 2, 0, &zero, c.get(), CUDA_R_32F, 2, 0, 1,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  const std::string fault = emulation::last_fault();
  EXPECT_NE(fault.find("cublasGemmStridedBatchedEx B: "), std::string::npos) << fault;
  EXPECT_NE(fault.find("is not device memory"), std::string::npos) << fault;
  // The device stays broken: later calls fail, and a new handle cannot be made on it.
  EXPECT_EQ(cublasGemmStridedBatchedEx(h.h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a.get(), CUDA_R_32F, 2,
                                       0, a.get(), CUDA_R_32F, 2, 0, &zero, c.get(), CUDA_R_32F, 2, 0, 1,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_EXECUTION_FAILED);
  cublasHandle_t other = nullptr;
  EXPECT_EQ(cublasCreate(&other), CUBLAS_STATUS_NOT_INITIALIZED);
}

TEST(CublasModel, AnOperandPastItsAllocationIsAnIllegalAddress) {
  ClearEmulatorErrors clear;
  Handle h;
  DeviceArray<double> a(4), b(4), c(4);  // a batch of 2 with stride 4 would need 8
  const double one = 1, zero = 0;
  EXPECT_EQ(cublasGemmStridedBatchedEx(h.h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a.get(), CUDA_R_64F, 2,
                                       0, b.get(), CUDA_R_64F, 2, 0, &zero, c.get(), CUDA_R_64F, 2, 4, 2,
                                       CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_EXECUTION_FAILED);
  EXPECT_NE(emulation::last_fault().find("cublasGemmStridedBatchedEx C: "), std::string::npos)
      << emulation::last_fault();
  EXPECT_NE(emulation::last_fault().find("runs past the end of its allocation"), std::string::npos);
}

TEST(CublasModel, TheWholeWorkspaceIsWrittenAndMustBeLiveAlignedAndLargeEnough) {
  ClearEmulatorErrors clear;
  Handle h;
  DeviceArray<float> a(4), b(4), c(4);
  const float one = 1, zero = 0;
  auto run = [&] {
    return cublasGemmStridedBatchedEx(h.h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a.get(), CUDA_R_32F, 2, 0,
                                      b.get(), CUDA_R_32F, 2, 0, &zero, c.get(), CUDA_R_32F, 2, 0, 1,
                                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  const size_t bytes = size_t(64) << 10;
  DeviceArray<unsigned char> ws(bytes);
  EXPECT_EQ(cublasSetWorkspace(h.h, ws.get() + 128, bytes - 128),
            CUBLAS_STATUS_INVALID_VALUE);  // not 256-aligned
  EXPECT_EQ(cublasSetWorkspace(h.h, nullptr, 1024), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(cublasSetWorkspace(nullptr, ws.get(), bytes), CUBLAS_STATUS_NOT_INITIALIZED);
  ASSERT_EQ(cublasSetWorkspace(h.h, ws.get(), bytes), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(run(), CUBLAS_STATUS_SUCCESS);
  const std::vector<unsigned char> written = ws.host();
  EXPECT_EQ(written.front(), 0xFF);
  EXPECT_EQ(written.back(), 0xFF);
  // Under 16 KiB "may" fail with ALLOC_FAILED: the model always does.
  ASSERT_EQ(cublasSetWorkspace(h.h, ws.get(), 8 << 10), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(run(), CUBLAS_STATUS_ALLOC_FAILED);
  // cublasSetStream goes back to cuBLAS's own pool: any user workspace is forgotten.
  {
    DeviceArray<unsigned char> gone(bytes);
    ASSERT_EQ(cublasSetWorkspace(h.h, gone.get(), bytes), CUBLAS_STATUS_SUCCESS);
  }
  ASSERT_EQ(cublasSetStream(h.h, nullptr), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(run(), CUBLAS_STATUS_SUCCESS);
  // A workspace declared larger than its allocation is an illegal address when a GEMM runs.
  ASSERT_EQ(cublasSetWorkspace(h.h, ws.get(), 2 * bytes), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(run(), CUBLAS_STATUS_EXECUTION_FAILED);
  EXPECT_NE(emulation::last_fault().find("cublasGemmStridedBatchedEx workspace: "), std::string::npos)
      << emulation::last_fault();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
}

TEST(CublasModel, AFreedWorkspaceIsAnIllegalAddress) {
  ClearEmulatorErrors clear;
  Handle h;
  DeviceArray<float> a(4), b(4), c(4);
  const float one = 1, zero = 0;
  {
    DeviceArray<unsigned char> ws(size_t(32) << 10);
    ASSERT_EQ(cublasSetWorkspace(h.h, ws.get(), size_t(32) << 10), CUBLAS_STATUS_SUCCESS);
  }
  EXPECT_EQ(cublasGemmStridedBatchedEx(h.h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a.get(), CUDA_R_32F, 2,
                                       0, b.get(), CUDA_R_32F, 2, 0, &zero, c.get(), CUDA_R_32F, 2, 0, 1,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_EXECUTION_FAILED);
  EXPECT_NE(emulation::last_fault().find("freed"), std::string::npos) << emulation::last_fault();
}

TEST(CublasModel, TheHandleBelongsToItsDeviceAndRunsOnItsStream) {
  test::DeferredStreams deferred;
  Handle h;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, 0), cudaSuccess);
  ASSERT_EQ(cublasSetStream(h.h, stream), CUBLAS_STATUS_SUCCESS);
  DeviceArray<double> a(4), b(4), c(4);
  upload(a, std::vector<double>{1, 2, 3, 4});
  upload(b, std::vector<double>{1, 0, 0, 1});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const double one = 1, zero = 0;
  ASSERT_EQ(cublasGemmStridedBatchedEx(h.h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a.get(), CUDA_R_64F, 2,
                                       0, b.get(), CUDA_R_64F, 2, 0, &zero, c.get(), CUDA_R_64F, 2, 0, 1,
                                       CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  // Device memory is host memory here: the product waits in the handle's stream.
  EXPECT_EQ(c.get()[3], 0.0);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(c.get()[3], 4.0);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  int devices = 0;
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  if (devices < 2) return;
  test::OnDevice on1(1);
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, 0), cudaSuccess);
  EXPECT_EQ(cublasSetStream(h.h, other), CUBLAS_STATUS_INVALID_VALUE);  // another device's stream
  EXPECT_EQ(cublasGemmStridedBatchedEx(h.h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a.get(), CUDA_R_64F, 2,
                                       0, b.get(), CUDA_R_64F, 2, 0, &zero, c.get(), CUDA_R_64F, 2, 0, 1,
                                       CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_INVALID_VALUE);  // called while another device is current
  ASSERT_EQ(cudaStreamDestroy(other), cudaSuccess);
}
