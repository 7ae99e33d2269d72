#pragma once
// The emulator's settings (from the environment, read once) and the hooks tests use to
// change them or to inspect and clear what a fault left behind (EMBER_CUDA=EMULATE only).
//
//   EMBER_EMULATED_CUDA_DEVICES   number of devices (default 2; 0 means none)
//   EMBER_EMULATED_CUDA_DRIVER    none: no driver is installed (no devices, and
//                                 cudaGetDeviceCount says the driver is insufficient)
//   EMBER_EMULATED_CUDA_MEMORY    per-device capacity: bytes, or with K, M or G (binary)
//   EMBER_EMULATED_CUDA_BLOCK_ORDER  forward (default), reverse, shuffle or shuffle:SEED
//   EMBER_EMULATED_CUDA_THREAD_ORDER forward (default), reverse, shuffle or shuffle:SEED: the
//                                 order in which a block's threads start and, after each
//                                 barrier, resume (a shuffle is drawn anew per barrier), so
//                                 a read that lacks its __syncthreads() sees stale data
//   EMBER_EMULATED_CUDA_STREAMS   immediate (default) or deferred: work waits in its
//                                 stream until the next synchronisation point, and the
//                                 memory a queued copy will read may not be written by
//                                 another stream's unordered work, freed or reused meanwhile
//   EMBER_EMULATED_CUDA_STRICT_DEVICES  0 (default) or 1: a kernel's (cuBLAS's, cuDNN's)
//                                 pointer argument on another device than the launch's is
//                                 an illegal address even with peer access (peer copies
//                                 through cudaMemcpyPeer(Async) stay allowed)
#include <cstddef>
#include <cstdint>
#include <string>

#include "ember/core/export.h"

struct CUstream_st;  // cudaStream_t's target

namespace ember::emulation {

enum class BlockOrder { Forward, Reverse, Shuffle };
enum class ThreadOrder { Forward, Reverse, Shuffle };

/// The order in which a grid's blocks run (a shuffle is drawn per launch from seed).
EMBER_API void set_block_order(BlockOrder order, uint64_t seed = 0);
EMBER_API BlockOrder block_order();
/// The order in which a block's threads start and resume after each barrier (a shuffle is
/// drawn per block and per barrier from a sequence seeded by seed).
EMBER_API void set_thread_order(ThreadOrder order, uint64_t seed = 0);
EMBER_API ThreadOrder thread_order();
/// Caps a device's memory (0: the default capacity); cudaMalloc beyond it fails.
EMBER_API void set_memory_limit(int device, size_t bytes);
/// Whether streams defer their work until a synchronisation point.
EMBER_API bool deferred_streams();
EMBER_API void set_deferred_streams(bool deferred);
/// Whether kernel arguments must live on the launch's own device, peer access or not.
EMBER_API bool strict_devices();
EMBER_API void set_strict_devices(bool strict);
/// For Ember's caching allocator: n bytes at p go back to device's cache, from which work
/// queued on stream may get them at once. With deferred streams, a copy still queued on
/// another stream that stream has not waited for, reading them, makes this false and the
/// device's error sticky, the diagnosis naming both streams and the copy.
EMBER_API bool may_reuse(int device, CUstream_st* stream, const void* p, size_t n);
/// The diagnosis of the latest sticky error (illegal address, kernel fault), "" if none.
EMBER_API std::string last_fault();
/// Clears every device's sticky error and this thread's last error (tests only: a real
/// context stays broken).
EMBER_API void clear_errors();
/// One line for ember::cuda::versions(): what is emulated and in which modes.
EMBER_API std::string describe();
/// How many cudnnGetConvolution*WorkspaceSize queries the models have answered (tests: an
/// algorithm search that found one must not ask for the fallback's workspace).
EMBER_API uint64_t cudnn_workspace_queries();

}  // namespace ember::emulation
