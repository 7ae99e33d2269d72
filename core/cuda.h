#pragma once
// ember::cuda: what the CUDA side of this process can do, its memory figures and its
// numerics switches. Works in every build: without CUDA (and without an emulated device
// registered) it reports no devices.
#include <string>

#include "ember/core/device.h"
#include "ember/core/export.h"
#include "ember/core/memory_stats.h"

namespace ember::cuda {

/// True when at least one CUDA device can be used.
EMBER_API bool is_available();
/// Number of usable CUDA devices (0 with no driver, no GPU, or a build without CUDA).
EMBER_API int device_count();
/// Waits for all queued work on every CUDA device (a no-op with none).
EMBER_API void synchronize();
/// True when this library was built with the CUDA backend.
EMBER_API bool is_compiled();
/// True in an EMBER_CUDA=EMULATE build: the CUDA backend runs on the host emulator (for
/// tests and CI), so its timings say nothing about a GPU.
EMBER_API bool is_emulated();
/// The CUDA runtime, driver, cuBLAS and cuDNN versions this process sees, on one line
/// ("not compiled" in a build without CUDA; a driver of 0 means none is installed). While
/// devices are rehearsed, it starts with "rehearsed: N CUDA devices ...".
EMBER_API std::string versions();

/// Rehearses a GPU run on a machine without one: from now on this process has `devices` CUDA
/// devices whose tensors live in host memory and run on the CPU kernels, while every device
/// check, move (`to()`, `Module::to`), `device_count()` and error behaves as on a GPU, so that
/// a tensor or a model left on the CPU fails here as it would there, with the same message.
/// The numbers are the CPU's, and so is the speed. Setting EMBER_REHEARSE_CUDA=N in the
/// environment does the same at the first use of CUDA. Never on where a real CUDA device
/// exists (nor in the emulated build, whose devices exist): returns whether it is now on;
/// rehearse(0) ends it. ValueError outside [0, 64]. Call it before any tensor is on a CUDA
/// device: tensors made on a rehearsed device are not valid after it ends.
EMBER_API bool rehearse(int devices);
/// Whether CUDA devices are being rehearsed.
EMBER_API bool is_rehearsed();
/// What a program prints after a device's name so its timings are read right: " (rehearsed
/// on the CPU)" for a rehearsed device, " (emulated)" for one of the EMBER_CUDA=EMULATE
/// build, else "".
EMBER_API const char* device_note(Device device);

/// The caching allocator's figures for cuda:device. DeviceError for a device that does not
/// exist; NotCompiledError in a build without CUDA.
EMBER_API MemoryStats memory_stats(int device = 0);
/// Restarts the peak figures of cuda:device at the current ones.
EMBER_API void reset_peak_memory_stats(int device = 0);
/// Returns every cached (unused) block of every device to the driver (a no-op without CUDA).
EMBER_API void empty_cache();

/// Lets cuBLAS and cuDNN use TF32 tensor cores for float32 (off by default: full FP32).
EMBER_API void set_allow_tf32(bool allow);
EMBER_API bool allow_tf32();
/// Restricts cuDNN to deterministic algorithms (off by default).
EMBER_API void set_deterministic(bool deterministic);
EMBER_API bool deterministic();

}  // namespace ember::cuda
