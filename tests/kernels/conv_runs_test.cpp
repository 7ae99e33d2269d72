// The short row moves of the CPU convolutions (kernels/cpu/conv/conv_buffers.h) against plain
// loops, bit for bit, in float and double, for lengths on both sides of one and two registers:
// nothing written outside the run, and nothing read past its sources' last element (each source
// ends where an unreadable page begins).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "ember/kernels/cpu/conv/conv_buffers.h"

namespace {
using ember::cpu::copy_even;
using ember::cpu::copy_run;
using ember::cpu::kRunLanes;
using ember::cpu::zero_run;
using ember::cpu::zip_run;

// Up to `capacity` elements of T that end where a page that may not be read or written begins.
template <class T>
class GuardedSource {
 public:
  explicit GuardedSource(size_t capacity) {
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    data_bytes_ = (capacity * sizeof(T) + page - 1) / page * page;
    void* p = mmap(nullptr, data_bytes_ + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(p, MAP_FAILED);
    base_ = static_cast<char*>(p);
    EXPECT_EQ(mprotect(base_ + data_bytes_, page, PROT_NONE), 0);
    total_bytes_ = data_bytes_ + page;
  }
  ~GuardedSource() { munmap(base_, total_bytes_); }
  GuardedSource(const GuardedSource&) = delete;
  GuardedSource& operator=(const GuardedSource&) = delete;

  /// The last n elements before the guard, filled with first, first + 0.5, ...: distinct
  /// values, so that an element moved to the wrong place shows.
  T* last(int64_t n, double first) {
    T* p = reinterpret_cast<T*>(base_ + data_bytes_) - n;
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(first + 0.5 * static_cast<double>(i));
    return p;
  }

 private:
  char* base_ = nullptr;
  size_t data_bytes_ = 0, total_bytes_ = 0;
};

constexpr int kMargin = 8;  // sentinel elements either side of a destination

// A destination of n elements with kMargin sentinels either side, all of them marker.
template <class T>
std::vector<T> fenced(int64_t n, T marker) {
  return std::vector<T>(static_cast<size_t>(n + 2 * kMargin), marker);
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Every length from 0 to three registers and a bit: the shorter-than-one path, whole registers,
// and a last register that overlaps its predecessor.
template <class T>
int64_t longest() {
  return 3 * 32 / static_cast<int64_t>(sizeof(T)) + 3;
}

template <class T>
void check_copy_and_zero_runs() {
  GuardedSource<T> source(static_cast<size_t>(longest<T>()));
  const T marker = T(-7.25);
  for (int64_t n = 0; n <= longest<T>(); ++n) {
    const T* s = source.last(n, 1.0);
    std::vector<T> got = fenced<T>(n, marker), want = got;
    copy_run(got.data() + kMargin, s, n);
    for (int64_t i = 0; i < n; ++i) want[static_cast<size_t>(kMargin + i)] = s[i];
    EXPECT_TRUE(same_bits(got, want)) << "copy_run, n " << n << ", " << sizeof(T) << "-byte elements";

    std::vector<T> zeroed = fenced<T>(n, marker), zero_want = zeroed;
    zero_run(zeroed.data() + kMargin, n);
    for (int64_t i = 0; i < n; ++i) zero_want[static_cast<size_t>(kMargin + i)] = T(0);
    EXPECT_TRUE(same_bits(zeroed, zero_want)) << "zero_run, n " << n << ", " << sizeof(T) << "-byte elements";
  }
}

template <class T>
void check_copy_even() {
  GuardedSource<T> source(static_cast<size_t>(2 * longest<T>()));
  const T marker = T(-7.25);
  for (int64_t n = 1; n <= longest<T>(); ++n) {
    // The row's last element read is s[2 n - 2]: the guard page follows it.
    const T* s = source.last(2 * n - 1, 3.0);
    std::vector<T> got = fenced<T>(n, marker), want = got;
    copy_even(got.data() + kMargin, s, n);
    for (int64_t i = 0; i < n; ++i) want[static_cast<size_t>(kMargin + i)] = s[2 * i];
    EXPECT_TRUE(same_bits(got, want)) << "copy_even, n " << n << ", " << sizeof(T) << "-byte elements";
  }
}

template <class T>
void check_zip_run() {
  GuardedSource<T> even(static_cast<size_t>(longest<T>())), odd(static_cast<size_t>(longest<T>()));
  const T marker = T(-7.25);
  for (int64_t n = 0; n <= longest<T>(); ++n) {
    const T* a = even.last(n, 1.0);
    const T* b = odd.last(n, -100.0);
    std::vector<T> got = fenced<T>(2 * n, marker), want = got;
    zip_run(got.data() + kMargin, a, b, n);
    for (int64_t i = 0; i < n; ++i) {
      want[static_cast<size_t>(kMargin + 2 * i)] = a[i];
      want[static_cast<size_t>(kMargin + 2 * i + 1)] = b[i];
    }
    EXPECT_TRUE(same_bits(got, want)) << "zip_run, n " << n << ", " << sizeof(T) << "-byte elements";
  }
}

TEST(ConvRuns, CopyRunAndZeroRunMatchPlainLoops) {
  check_copy_and_zero_runs<float>();
  check_copy_and_zero_runs<double>();
}

TEST(ConvRuns, CopyEvenMatchesAPlainLoopAndReadsNoFurtherThanItsLastElement) {
  check_copy_even<float>();
  check_copy_even<double>();
}

TEST(ConvRuns, ZipRunMatchesAPlainLoop) {
  check_zip_run<float>();
  check_zip_run<double>();
}

TEST(ConvRuns, ARegisterIsThirtyTwoBytesWithAvx2) {
  // The lengths above straddle one register only if a register is what the tests assume.
  EXPECT_EQ(kRunLanes<float>, EMBER_SIMD_AVX2 ? 8 : 1);
  EXPECT_EQ(kRunLanes<double>, EMBER_SIMD_AVX2 ? 4 : 1);
}

}  // namespace
