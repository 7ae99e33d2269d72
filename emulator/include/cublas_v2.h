#pragma once
// Stands in for cuBLAS's header in the EMBER_CUDA=EMULATE build.
#include "cuda_emulator/cublas.h"
