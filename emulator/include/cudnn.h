#pragma once
// Stands in for cuDNN's header in the EMBER_CUDA=EMULATE build.
#include "cuda_emulator/cudnn_api.h"
