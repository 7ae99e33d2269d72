#pragma once
// Stands in for CUB's header in the EMBER_CUDA=EMULATE build.
#include "cuda_emulator/block_reduce.h"
