#include "ember/nn/parallel/digest.h"

namespace ember::nn::parallel::detail {

int64_t shape_digest(const std::vector<Tensor>& tensors) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, a byte at a time
  auto mix = [&h](uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  for (const Tensor& t : tensors) {
    mix(static_cast<uint64_t>(t.dtype()));
    mix(static_cast<uint64_t>(t.dim()));
    for (int64_t d : t.shape()) mix(static_cast<uint64_t>(d));
  }
  return static_cast<int64_t>(h >> 2);
}

}  // namespace ember::nn::parallel::detail
