#pragma once
// Stands in for the CUDA runtime's header in the EMBER_CUDA=EMULATE build: the runtime and
// the kernel language.
#include "cuda_emulator/kernel_language.h"
#include "cuda_emulator/runtime.h"
