// fill, arange and the Philox draws on the CPU.
#include <algorithm>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cast.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/parallel.h"
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
    for (int64_t i = 0; i < out.numel(); ++i)
      o[i] = static_cast<scalar_t>(philox::add_mul_unfused(start, step, static_cast<double>(i)));
  });
}

void CpuBackend::random(const Tensor& out, RandomKind kind, double a, double b, uint64_t seed,
                        uint64_t offset) {
  EMBER_DISPATCH_NUMERIC(out.dtype(), "random", [&] {
    scalar_t* o = static_cast<scalar_t*>(out.raw_data());
    const uint64_t range = kind == RandomKind::Integer ? static_cast<uint64_t>(b - a) : 0;
    // One Philox draw gives the four elements of a group (element i reads word i % 4 of
    // draw offset + i / 4): draw once per group, not once per element.
    const int64_t n = out.numel();
    parallel_for((n + 3) / 4, 1024, [&](int64_t lo, int64_t hi) {
      for (int64_t g = lo; g < hi; ++g) {
        const philox::Words r = philox::draw(offset + static_cast<uint64_t>(g), seed);
        const int64_t end = std::min(n, 4 * g + 4);
        for (int64_t i = 4 * g; i < end; ++i)
          o[i] = static_cast<scalar_t>(
              philox::value_from(kind, a, b, range, r, static_cast<unsigned>(i - 4 * g)));
      }
    });
  });
}

}  // namespace ember
