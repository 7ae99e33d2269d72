#pragma once
// What every fuzz target shares: the size cap, and a reader that turns fuzz bytes into the
// values that matter for Ember's checks (small sizes mostly, and the edges of int64).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "ember/core/shape.h"
#include "ember/core/storage.h"

namespace ember::fuzz {

/// Inputs that ask for more than this are refused by Ember's own checks (OutOfMemoryError
/// from the allocation limit), so libFuzzer's memory limit only fires on a real leak or an
/// allocation Ember failed to bound.
constexpr size_t kSizeCap = size_t{64} << 20;

/// Sets the cap once per process (call from LLVMFuzzerTestOneInput; it is cheap).
inline void cap_allocations() { set_allocation_limit(kSizeCap); }

/// Consumes fuzz bytes front to back; reads past the end give zeros.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}

  uint8_t byte() { return p_ < end_ ? *p_++ : 0; }
  bool empty() const { return p_ >= end_; }

  /// A size, dim, index or window parameter: mostly -3..16, sometimes an int64 edge.
  int64_t param() {
    const uint8_t b = byte();
    if (b < 224) return static_cast<int64_t>(b % 20) - 3;
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    static const int64_t edges[32] = {kMax,
                                      std::numeric_limits<int64_t>::min(),
                                      kMax / 2,
                                      kMax / 2 + 1,
                                      int64_t{1} << 31,
                                      (int64_t{1} << 31) - 1,
                                      int64_t{1} << 32,
                                      int64_t{1} << 62,
                                      -(int64_t{1} << 62),
                                      int64_t{1} << 53,
                                      (int64_t{1} << 53) + 1,
                                      int64_t{1} << 20,
                                      65535,
                                      -65536,
                                      255,
                                      256,
                                      1000,
                                      -1000,
                                      int64_t{1} << 40,
                                      kMax - 1,
                                      std::numeric_limits<int64_t>::min() + 1,
                                      33,
                                      64,
                                      100,
                                      int64_t{1} << 30,
                                      4096,
                                      -2,
                                      -7,
                                      3000000000LL,
                                      int64_t{1} << 61,
                                      12345,
                                      7};
    return edges[b - 224];
  }

  /// A shape of up to max_dims sizes (mostly 0..6).
  Shape shape(size_t max_dims) {
    Shape s(byte() % (max_dims + 1));
    for (int64_t& d : s) {
      const uint8_t b = byte();
      d = b < 240 ? b % 7 : param();
    }
    return s;
  }

  /// A list of dims, for reductions and permute.
  std::vector<int64_t> dims(size_t max) {
    std::vector<int64_t> d(byte() % (max + 1));
    for (int64_t& v : d) v = param();
    return d;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace ember::fuzz
