#pragma once
// Stands in for the CUDA runtime's header in the EMBER_CUDA=EMULATE build: the runtime and
// the kernel language.
#include "ember/kernels/cuda/emulation/kernel_language.h"
#include "ember/kernels/cuda/emulation/runtime.h"
