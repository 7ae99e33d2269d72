#pragma once
// cuBLAS and cuDNN are not modelled yet (issue 13, "part 2"): their emulated entry points
// throw NotImplementedError with one message, which the CUDA test suite turns into a skip.
#include "ember/core/export.h"

namespace ember::emulation {

/// The message every unmodelled library call carries (tests match it exactly).
inline constexpr const char* kNeedsLibraryModels = "needs the cuBLAS/cuDNN models (part 2)";

/// Raises NotImplementedError: "<call> on emulated CUDA needs the cuBLAS/cuDNN models (part 2)".
[[noreturn]] EMBER_API void not_modelled(const char* call);

}  // namespace ember::emulation
