#pragma once
// EMBER_LAUNCH(kernel, grid, block, shared_bytes, stream, args...): the one way Ember
// launches a kernel. Under nvcc it is kernel<<<grid, block, shared_bytes, stream>>>(args...);
// in the EMBER_CUDA=EMULATE build it hands the launch to the host emulator
// (cuda_emulator/launch.h, in emulator/include). A kernel name with commas in its
// template arguments goes in parentheses: EMBER_LAUNCH((k<true, T>), ...).
#if defined(EMBER_CUDA_EMULATED)
#include "cuda_emulator/launch.h"
#define EMBER_LAUNCH(kernel, grid, block, shared_bytes, stream, ...)                        \
  ::ember::emulation::launch(                                                               \
      ::ember::emulation::LaunchConfig{#kernel, (grid), (block), (shared_bytes), (stream)}, \
      [](auto&... ember_args) { kernel(ember_args...); }, __VA_ARGS__)
#else
#include <cuda_runtime.h>
#define EMBER_LAUNCH(kernel, grid, block, shared_bytes, stream, ...) \
  kernel<<<(grid), (block), (shared_bytes), (stream)>>>(__VA_ARGS__)
#endif
