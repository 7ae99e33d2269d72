#pragma once
// Stands in for the CUDA runtime's header in the EMBER_CUDA=EMULATE build.
#include "cuda_emulator/runtime.h"
