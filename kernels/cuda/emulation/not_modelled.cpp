#include "ember/kernels/cuda/emulation/not_modelled.h"

#include "ember/core/error.h"

namespace ember::emulation {

void not_modelled(const char* call) { raise<NotImplementedError>(call, " on emulated CUDA ", kNeedsLibraryModels); }

}  // namespace ember::emulation
