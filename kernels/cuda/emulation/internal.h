#pragma once
// What the emulator's files share with the runtime (runtime.cpp): error reporting (a sticky
// error breaks a device until clear_errors(), as a fault breaks a real context; a launch
// error is reported once by cudaGetLastError) and the block-order settings.
#include <cstdint>
#include <string>

#include "ember/kernels/cuda/emulation/runtime.h"

namespace ember::emulation {

/// Makes error sticky on device and keeps why for cudaGetErrorString.
void set_sticky_error(int device, cudaError_t error, const std::string& why);
/// Sets this thread's last error (launch errors) and keeps why.
void set_launch_error(cudaError_t error, const std::string& why);
/// The seed of the next launch's block shuffle (a sequence drawn from the configured seed).
uint64_t next_shuffle_seed();

}  // namespace ember::emulation
