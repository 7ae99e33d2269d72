#pragma once
// The default random generator: a Philox 4x32-10 key (the seed) and a counter offset that
// every draw advances. Counter-based, so the same seed gives the same numbers on every device.
#include <cstdint>
#include <mutex>

#include "ember/core/export.h"

namespace ember {

class EMBER_API Generator {
 public:
  explicit Generator(uint64_t seed = 0) : seed_(seed) {}
  /// Resets to seed with the counter at 0.
  void manual_seed(uint64_t seed);
  uint64_t seed() const;
  /// Reserves the counters for n elements; returns (seed, first counter).
  std::pair<uint64_t, uint64_t> reserve(uint64_t n);
  /// The counter offset, for saving and restoring a generator's state.
  uint64_t offset() const;
  void set_offset(uint64_t offset);

 private:
  mutable std::mutex mutex_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

/// The process-wide generator used by rand, randn, randint, dropout and nn's initialisers.
EMBER_API Generator& default_generator();
/// Seeds the default generator (like torch.manual_seed).
EMBER_API void manual_seed(uint64_t seed);

}  // namespace ember
