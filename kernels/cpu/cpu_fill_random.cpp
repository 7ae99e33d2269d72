// fill, arange and the Philox draws on the CPU.
#include <algorithm>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cast.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/parallel.h"
#include "ember/kernels/cpu/philox_lanes.h"
#include "ember/kernels/philox.h"
#include "ember/kernels/scalar_cast.h"

namespace ember {

void CpuBackend::fill(const Tensor& out, const Scalar& value) {
  EMBER_DISPATCH_ALL(out.dtype(), "fill", [&] {
    scalar_t* o = static_cast<scalar_t*>(out.raw_data());
    const auto v = scalar_value<scalar_t>(value);
    parallel_for(out.numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) o[i] = v;
    });
  });
}

void CpuBackend::arange(const Tensor& out, double start, double step) {
  EMBER_DISPATCH_NUMERIC(out.dtype(), "arange", [&] {
    scalar_t* o = static_cast<scalar_t*>(out.raw_data());
    // The same two roundings as the CUDA kernel, so arange agrees bit for bit.
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i)
      o[i] = static_cast<scalar_t>(philox::add_mul_unfused(start, step, static_cast<double>(i)));
  });
}

namespace {

// Elements [4 g, 4 g + 64) (fewer at the end) from 16 counters' words, one loop per kind so
// that the common ones vectorise and Bernoulli's select does not branch: each element is
// philox::value_from's, bit for bit.
template <class T>
void fill_groups(T* o, int64_t g, int64_t groups, int64_t n, RandomKind kind, double a, double b,
                 uint64_t range, uint32_t threshold, uint64_t seed, uint64_t offset) {
  constexpr int64_t kGroups = 16;
  uint32_t words[4 * kGroups];
  for (int64_t l = 0; l < groups; l += 4) {
    philox::Words w[4];
    philox::draw4(offset + static_cast<uint64_t>(g + l), seed, w);
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 4; ++j) words[4 * (l + k) + j] = w[k].w[j];
  }
  T* out = o + 4 * g;
  const int64_t count = std::min<int64_t>(4 * groups, n - 4 * g);
  switch (kind) {
    case RandomKind::Bernoulli: {
      const T kept = static_cast<T>(b), dropped = static_cast<T>(0.0);
      for (int64_t i = 0; i < count; ++i) out[i] = (words[i] >> 8) < threshold ? kept : dropped;
      break;
    }
    case RandomKind::Uniform:
      for (int64_t i = 0; i < count; ++i)
        out[i] = static_cast<T>(philox::add_mul_unfused(a, b - a, philox::uniform01(words[i])));
      break;
    default:
      for (int64_t i = 0; i < count; ++i) {
        philox::Words r;
        for (int j = 0; j < 4; ++j) r.w[j] = words[i / 4 * 4 + j];
        out[i] = static_cast<T>(philox::value_from(kind, a, b, range, r, static_cast<unsigned>(i % 4)));
      }
  }
}

}  // namespace

void CpuBackend::random(const Tensor& out, RandomKind kind, double a, double b, uint64_t seed,
                        uint64_t offset) {
  EMBER_DISPATCH_NUMERIC(out.dtype(), "random", [&] {
    scalar_t* o = static_cast<scalar_t*>(out.raw_data());
    const uint64_t range = kind == RandomKind::Integer ? static_cast<uint64_t>(b - a) : 0;
    const double at = philox::bernoulli_threshold<scalar_t>(kind, a);
    const uint32_t threshold = philox::bernoulli_integer_threshold(at);
    // One Philox draw gives the four elements of a group (element i reads word i % 4 of
    // draw offset + i / 4): draw once per group, four groups at a time, sixteen per pass.
    const int64_t n = out.numel();
    parallel_for((n + 3) / 4, 1024, [&](int64_t lo, int64_t hi) {
      for (int64_t g = lo; g < hi; g += 16)
        fill_groups(o, g, std::min<int64_t>(16, hi - g), n, kind, at, b, range, threshold, seed, offset);
    });
  });
}

}  // namespace ember
