#pragma once
// ember::cuda: what the CUDA side of this process can do. Works in every build: without
// CUDA (and without an emulated device registered) it reports no devices.
#include "ember/core/export.h"

namespace ember::cuda {

/// True when at least one CUDA device can be used.
EMBER_API bool is_available();
/// Number of usable CUDA devices (0 with no driver, no GPU, or a build without CUDA).
EMBER_API int device_count();
/// Waits for all queued work on every CUDA device (a no-op with none).
EMBER_API void synchronize();
/// True when this library was built with the CUDA backend.
EMBER_API bool is_compiled();

}  // namespace ember::cuda
