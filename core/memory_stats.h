#pragma once
// ember::cuda::MemoryStats on its own, so that the Backend interface (extend/backend.h) can
// return it without including the user API of core/cuda.h.
#include <cstddef>
#include <cstdint>

namespace ember::cuda {

/// The caching allocator's figures for one device, in bytes (counts for the last two).
struct MemoryStats {
  size_t allocated = 0;       // held by live tensors (and workspaces) now
  size_t reserved = 0;        // obtained from the driver: allocated plus the cache
  size_t peak_allocated = 0;  // highest `allocated` since start or the last reset
  size_t peak_reserved = 0;
  uint64_t device_allocs = 0;  // cudaMalloc calls so far (flat after warm-up)
  uint64_t device_frees = 0;   // cudaFree calls so far
};

}  // namespace ember::cuda
