#pragma once
// The registry of backends per device type: an extension point (and how tests install an
// emulated CUDA device). Nothing is registered implicitly except the built-in backends.
#include <memory>

#include "ember/extend/backend.h"

namespace ember {

/// Installs backend for type, replacing what served it; returns the replaced registration
/// (null when the built-in backend was serving). Pass null to restore the built-in one.
EMBER_API std::shared_ptr<Backend> register_backend(DeviceType type, std::shared_ptr<Backend> backend);

/// The backend built into this library for type (whatever is registered over it), or null
/// when it was not compiled in: what ember::cuda's memory figures and versions report.
Backend* builtin_backend(DeviceType type);

/// The rehearsal CUDA backend while one is registered (cuda::rehearse), else null.
Backend* rehearsal_backend();

}  // namespace ember
