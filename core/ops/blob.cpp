#include "ember/core/ops/blob.h"

#include <cstdint>

#include "ember/core/backend.h"
#include "ember/core/error.h"

namespace ember {

Tensor from_blob(void* data, const Shape& shape, TensorOptions o, std::function<void(void*)> deleter) {
  uint64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) raise<ValueError>("from_blob: sizes must be >= 0, got ", shape_str(shape));
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count))
      raise<ValueError>("from_blob: shape ", shape_str(shape), " is too large");
  }
  uint64_t nbytes = 0;
  if (__builtin_mul_overflow(count, static_cast<uint64_t>(itemsize(o.dtype())), &nbytes) ||
      nbytes > static_cast<uint64_t>(INT64_MAX))
    raise<ValueError>("from_blob: shape ", shape_str(shape), " is too large");
  if (!data && count > 0) raise<ValueError>("from_blob: data is null for shape ", shape_str(shape));
  if (reinterpret_cast<uintptr_t>(data) % itemsize(o.dtype()) != 0)
    raise<ValueError>("from_blob: data is not aligned to ", itemsize(o.dtype()), " bytes for ",
                      dtype_name(o.dtype()));
  checked_backend_for(o.device());  // an unavailable device fails before anything is wrapped
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::make_shared<Storage>(data, static_cast<size_t>(nbytes), o.device(), std::move(deleter));
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->dtype = o.dtype();
  Tensor t(std::move(impl));
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}

}  // namespace ember
