#pragma once
// The scratch memory the CPU convolutions keep per thread between calls (conv_buffers.h hands
// it out typed). Internal to kernels/cpu; exported (EMBER_API) for the tests only.
//
// Kept, a training step allocates nothing here. But a one-off layer with a huge padded sample
// or im2col columns would pin that memory for the life of the thread, and thread_local buffers
// cannot be freed from another thread. So each thread's buffers are in a registry record that
// the thread holds while it uses them: during a convolution call (ConvScratchScope) on the
// calling thread, during a pool job on a worker. When it lets go, buffers over
// kConvScratchKeep are freed. release_conv_scratch (the CPU backend's empty_cache) frees the
// records nobody holds at once, and asks the holders to free theirs when they let go.
#include <cstddef>

#include "ember/core/export.h"

namespace ember::cpu {

/// Slots of conv_scratch. A slot's buffer is in use from one request to the next on the same
/// thread, so two buffers needed at once take different slots.
enum ConvSlot : int {
  kConvColumns = 0,   // im2col's columns; the padded sample
  kConvResult = 1,    // a GEMM result or a gradient in another layout
  kConvPartials = 2,  // the calling thread's partial weight gradients
  kConvWeights = 3,   // the calling thread's weights in another layout
  kConvSlots = 4
};

/// A buffer larger than this is freed when its thread lets go of its buffers.
constexpr size_t kConvScratchKeep = size_t{64} << 20;

/// One convolution call on this thread: the buffers it takes stay valid until the outermost
/// scope on the thread ends; then the thread lets go of them. The backend's conv2d entry
/// points open one, before the buffers they take are read by the pool's workers.
class EMBER_API ConvScratchScope {
 public:
  ConvScratchScope();
  ~ConvScratchScope();
  ConvScratchScope(const ConvScratchScope&) = delete;
  ConvScratchScope& operator=(const ConvScratchScope&) = delete;
};

/// At least `bytes` bytes for `slot` on this thread, 64-byte aligned, zeroed when newly
/// allocated; nullptr when the system has no memory for them. A thread outside a
/// ConvScratchScope (a pool worker running tasks) holds its buffers until its job ends.
EMBER_API void* conv_scratch_bytes(ConvSlot slot, size_t bytes);

/// A pool worker finished its share of a job: it lets go of the buffers its tasks took.
void conv_scratch_job_done();

/// Frees every thread's buffers: at once where the thread holds none, otherwise when it lets
/// go. The CPU backend's empty_cache.
void release_conv_scratch();

/// Bytes of scratch the calling thread keeps, and all threads together (for the tests).
EMBER_API size_t conv_scratch_kept();
EMBER_API size_t conv_scratch_kept_all_threads();

}  // namespace ember::cpu
