#pragma once
// from_blob: memory owned elsewhere as a tensor, without a copy (as torch::from_blob).
#include <functional>

#include "ember/core/tensor.h"

namespace ember {

/// A contiguous tensor of shape and options.dtype over data, which lives on options.device
/// (host memory for cpu, device memory of that GPU for cuda:N). No copy is made.
///
/// Lifetime: the tensor and every view of it (view, narrow, select, ...) read and write data
/// itself. Without a deleter the caller owns data and must keep it alive while any of them
/// exists; with one, Ember calls deleter(data) exactly once, when the last of them is gone.
/// Ops that make new tensors (arithmetic, contiguous() of a strided view, to(device))
/// allocate their own memory and hold no reference to data. requires_grad works as for any
/// leaf. ValueError for a null data with a non-empty shape, a pointer not aligned to the
/// dtype's size, negative sizes or a byte count that overflows; DeviceError for an unavailable device. When
/// it throws, deleter is not called: data stays the caller's.
EMBER_API Tensor from_blob(void* data, const Shape& shape, TensorOptions options = {},
                           std::function<void(void*)> deleter = nullptr);

}  // namespace ember
