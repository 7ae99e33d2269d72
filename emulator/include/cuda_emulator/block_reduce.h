#pragma once
// The stand-in for cub::BlockReduce<T, N>(temp).Reduce(x, op), the only CUB collective Ember
// uses. Every thread stores its value, a barrier passes, and thread 0 folds the N values in
// thread order. As CUB documents, only thread 0's result is defined: the others get
// poisoned bytes (0xFF: NaN for floating types). Misuse that a GPU would not report is a
// kernel fault here: a block whose size is not N, and TempStorage used again before a
// barrier has separated the use from thread 0's read of the previous one.
#include <cstring>
#include <string>
#include <type_traits>

#include "cuda_emulator/kernel_language.h"

namespace cub {

template <class T, int BLOCK_DIM_X>
class BlockReduce {
  static_assert(std::is_trivially_copyable<T>::value, "BlockReduce values are copied as bytes");

 public:
  struct TempStorage {
    alignas(T) unsigned char slots[sizeof(T) * BLOCK_DIM_X];
    uint64_t block;       // the block run that used it last (emulation::block_serial)
    unsigned read_epoch;  // the barrier epoch in which thread 0 reads that use's values
  };

  explicit BlockReduce(TempStorage& temp) : temp_(temp) {}

  template <class Op>
  T Reduce(T value, Op op) {
    namespace emu = ember::emulation;
    const unsigned n = blockDim.x * blockDim.y * blockDim.z;
    if (n != static_cast<unsigned>(BLOCK_DIM_X))
      emu::kernel_fault("cub::BlockReduce<T, " + std::to_string(BLOCK_DIM_X) + "> used in a block of " +
                        std::to_string(n) + " threads");
    const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned epoch = emu::barrier_epoch();
    // The misuse check's own fields: every thread writes them before the barrier, which is
    // no race of the kernel's, so relaxed atomics keep ThreadSanitizer quiet about them.
    if (__atomic_load_n(&temp_.block, __ATOMIC_RELAXED) == emu::block_serial() &&
        __atomic_load_n(&temp_.read_epoch, __ATOMIC_RELAXED) == epoch)
      emu::kernel_fault(
          "cub::BlockReduce TempStorage reused without a __syncthreads() after the previous Reduce");
    __atomic_store_n(&temp_.block, emu::block_serial(), __ATOMIC_RELAXED);
    __atomic_store_n(&temp_.read_epoch, epoch + 1, __ATOMIC_RELAXED);
    std::memcpy(temp_.slots + sizeof(T) * tid, &value, sizeof(T));
    __syncthreads();
    T result;
    if (tid != 0) {
      std::memset(static_cast<void*>(&result), 0xFF, sizeof(T));
      return result;
    }
    std::memcpy(static_cast<void*>(&result), temp_.slots, sizeof(T));
    for (unsigned i = 1; i < n; ++i) {
      T v;
      std::memcpy(static_cast<void*>(&v), temp_.slots + sizeof(T) * i, sizeof(T));
      result = op(result, v);
    }
    return result;
  }

 private:
  TempStorage& temp_;
};

}  // namespace cub
