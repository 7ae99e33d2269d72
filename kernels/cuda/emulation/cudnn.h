#pragma once
// Stands in for cuDNN's header in the EMBER_CUDA=EMULATE build.
#include "ember/kernels/cuda/emulation/cudnn_api.h"
