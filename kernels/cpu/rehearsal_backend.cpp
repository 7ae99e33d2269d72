#include "ember/kernels/cpu/rehearsal_backend.h"

#include "ember/core/error.h"

namespace ember {

std::string RehearsalBackend::versions() {
  return detail::concat("rehearsed: ", devices_, " CUDA device", devices_ == 1 ? "" : "s",
                        " in host memory on the CPU kernels (EMBER_REHEARSE_CUDA or cuda::rehearse)");
}

}  // namespace ember
