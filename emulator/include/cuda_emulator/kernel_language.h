#pragma once
// The CUDA kernel language as Ember's kernels use it, for the host compiler (EMBER_CUDA=
// EMULATE only). Execution model (grid.cpp): a grid's blocks run one after another on the
// launching host thread; a block's threads are fibers that run to their next
// __syncthreads() or their end, so a barrier is a real call into the scheduler, which sets
// threadIdx and blockIdx before every thread it resumes. __shared__ is static thread_local:
// the threads of a block share one host thread and blocks never interleave on it (under
// ThreadSanitizer each block runs on a host thread of its own, so that its shared memory is
// new to TSan: race_detection.h).
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ember/core/export.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static thread_local

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};

// Per host thread, rewritten by the scheduler at every switch (grid.cpp).
extern EMBER_API thread_local uint3 threadIdx;
extern EMBER_API thread_local uint3 blockIdx;
extern EMBER_API thread_local dim3 blockDim;
extern EMBER_API thread_local dim3 gridDim;

namespace ember::emulation {

/// The barrier of the running block: the calling fiber waits until every thread of its
/// block has arrived (a thread that ends instead is reported as a kernel fault).
EMBER_API void syncthreads();
/// How many barriers the running block has passed, and which block run this is (unique per
/// host thread), so that stand-ins for collectives can tell one use from the next.
EMBER_API unsigned barrier_epoch();
EMBER_API uint64_t block_serial();
/// Ends the running grid with a kernel fault: the launch's device gets the sticky
/// cudaErrorLaunchFailure and the message is kept for cudaGetErrorString.
[[noreturn]] EMBER_API void kernel_fault(const std::string& what);

}  // namespace ember::emulation

inline void __syncthreads() { ember::emulation::syncthreads(); }

// The atomics are real atomic operations (the __atomic builtins; std::atomic_ref is C++20),
// relaxed as CUDA's are: blocks never run concurrently here, so a plain read-modify-write
// would give the same values, but ThreadSanitizer (race_detection.h) must see an atomic
// where the kernel asks for one, and a plain `+=` where it does not.
template <class T>
inline T ember_emulated_atomic_add(T* p, T v) {
  if constexpr (std::is_integral<T>::value) {
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
  } else {
    // Floating point: compare-and-swap on the bytes (a NaN compares equal to itself there).
    T old;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    T next = old + v;
    while (!__atomic_compare_exchange(p, &old, &next, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      next = old + v;
    return old;
  }
}
inline float atomicAdd(float* p, float v) { return ember_emulated_atomic_add(p, v); }
inline double atomicAdd(double* p, double v) { return ember_emulated_atomic_add(p, v); }
inline int atomicAdd(int* p, int v) { return ember_emulated_atomic_add(p, v); }
inline unsigned atomicAdd(unsigned* p, unsigned v) { return ember_emulated_atomic_add(p, v); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return ember_emulated_atomic_add(p, v);
}
template <class T>
inline T ember_emulated_atomic_cas(T* p, T compare, T value) {
  // On failure the builtin stores the value it found into compare: CUDA returns that.
  __atomic_compare_exchange_n(p, &compare, value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare;
}
inline int atomicCAS(int* p, int compare, int value) { return ember_emulated_atomic_cas(p, compare, value); }
inline unsigned atomicCAS(unsigned* p, unsigned compare, unsigned value) {
  return ember_emulated_atomic_cas(p, compare, value);
}
inline unsigned long long atomicCAS(unsigned long long* p, unsigned long long compare,
                                    unsigned long long value) {
  return ember_emulated_atomic_cas(p, compare, value);
}

// Device code calls the math classification functions unqualified, as CUDA's headers allow.
using std::isfinite;
using std::isinf;
using std::isnan;
