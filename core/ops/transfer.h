#pragma once
// Moving and converting tensors: the ops pinned as allowed to cross devices.
#include "ember/core/tensor.h"

namespace ember {

/// t on device (t itself when already there); differentiable.
EMBER_API Tensor to(const Tensor& t, Device device);
/// t converted to dtype (t itself when already of it); differentiable between float types.
EMBER_API Tensor to(const Tensor& t, DType dtype);
/// A contiguous copy with its own storage; differentiable.
EMBER_API Tensor clone(const Tensor& t);
/// t when contiguous, else a contiguous copy; differentiable.
EMBER_API Tensor contiguous(const Tensor& t);
/// Writes src (broadcast to dst's shape, any device and dtype) into dst; bumps its version.
EMBER_API Tensor& copy_(Tensor& dst, const Tensor& src);
EMBER_API Tensor& fill_(Tensor& t, Scalar value);
EMBER_API Tensor& zero_(Tensor& t);
/// Points dst, and so every handle of it, at src's storage, strides, offset and dtype: how
/// Module::to moves parameters in place (PyTorch's `param.data = src`). dst keeps its shape,
/// name, autograd identity and requires_grad; the shapes must match (ShapeError).
EMBER_API void set_data(const Tensor& dst, const Tensor& src);

/// Bumps t's version after its memory was written outside Ember's ops (through raw_data(),
/// e.g. by MPI), so that autograd still notices a saved tensor modified in place.
EMBER_API void mark_modified(const Tensor& t);

namespace detail {
/// Copies src's values (same shape) into dst on the same device, with conversion.
EMBER_API void copy_values(const Tensor& dst, const Tensor& src);
/// Raw contiguous transfer of src's bytes to a new tensor on device (no autograd).
EMBER_API Tensor transfer(const Tensor& src, Device device);
}  // namespace detail

}  // namespace ember
