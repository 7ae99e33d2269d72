#pragma once
// Ember's version: the CMake project reads these three lines.
#define EMBER_VERSION_MAJOR 0
#define EMBER_VERSION_MINOR 1
#define EMBER_VERSION_PATCH 0
#define EMBER_VERSION_STRING "0.1.0"

#include "ember/core/export.h"

namespace ember {
/// The library's version as "major.minor.patch".
EMBER_API const char* version();
}  // namespace ember
