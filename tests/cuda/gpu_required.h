#pragma once
// EMBER_REQUIRE_GPU(): skips the case with a clear message when no CUDA device is usable,
// or fails it when the environment variable EMBER_REQUIRE_GPU=1 says a GPU must be there.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "ember/core/cuda.h"
#include "ember/core/error.h"

#define EMBER_REQUIRE_GPU()                                                       \
  do {                                                                            \
    if (!::ember::cuda::is_available()) {                                         \
      const char* ember_req = std::getenv("EMBER_REQUIRE_GPU");                   \
      if (ember_req && std::strcmp(ember_req, "1") == 0)                          \
        FAIL() << "EMBER_REQUIRE_GPU=1 but no CUDA device is available";          \
      GTEST_SKIP() << "no CUDA device available (no GPU or no driver); skipping"; \
    }                                                                             \
  } while (0)

/// Like EMBER_REQUIRE_GPU(), and skips under EMBER_PARITY_EMULATE=1: for cases about the
/// real backend itself (its allocator, asynchronous errors, library messages).
#define EMBER_REQUIRE_REAL_GPU()                                                     \
  do {                                                                               \
    const char* ember_emu = std::getenv("EMBER_PARITY_EMULATE");                     \
    if (ember_emu && std::strcmp(ember_emu, "1") == 0)                               \
      GTEST_SKIP() << "tests the real CUDA backend; skipped on the emulated device"; \
    EMBER_REQUIRE_GPU();                                                             \
  } while (0)
