#pragma once
// Stands in for the CUDA runtime's header in the EMBER_CUDA=EMULATE build.
#include "ember/kernels/cuda/emulation/runtime.h"
