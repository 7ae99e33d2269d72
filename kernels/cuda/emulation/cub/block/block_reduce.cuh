#pragma once
// Stands in for CUB's header in the EMBER_CUDA=EMULATE build.
#include "ember/kernels/cuda/emulation/block_reduce.h"
