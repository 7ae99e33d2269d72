#pragma once
// EMBER_REQUIRE_GPU(): skips the case with a clear message when no CUDA device is usable,
// or fails it when the environment variable EMBER_REQUIRE_GPU=1 says a GPU must be there.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "ember/core/cuda.h"

#define EMBER_REQUIRE_GPU()                                                                  \
  do {                                                                                       \
    if (!::ember::cuda::is_available()) {                                                    \
      const char* ember_req = std::getenv("EMBER_REQUIRE_GPU");                              \
      if (ember_req && std::strcmp(ember_req, "1") == 0)                                     \
        FAIL() << "EMBER_REQUIRE_GPU=1 but no CUDA device is available";                     \
      GTEST_SKIP() << "no CUDA device available (no GPU or no driver); skipping";            \
    }                                                                                        \
  } while (0)
