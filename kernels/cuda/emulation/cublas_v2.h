#pragma once
// Stands in for cuBLAS's header in the EMBER_CUDA=EMULATE build.
#include "ember/kernels/cuda/emulation/cublas.h"
