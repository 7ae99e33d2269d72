#include "ember/core/ops/blob.h"

#include <cstdint>

#include "ember/core/checked_math.h"
#include "ember/core/error.h"
#include "ember/core/tensor_impl_access.h"
#include "ember/extend/backend.h"

namespace ember {

Tensor from_blob(void* data, const Shape& shape, TensorOptions o, std::function<void(void*)> deleter) {
  const int64_t nbytes = checked_nbytes(shape, itemsize(o.dtype()), "from_blob");
  if (!data && nbytes > 0) raise<ValueError>("from_blob: data is null for shape ", shape_str(shape));
  if (reinterpret_cast<uintptr_t>(data) % itemsize(o.dtype()) != 0)
    raise<ValueError>("from_blob: data is not aligned to ", itemsize(o.dtype()), " bytes for ",
                      dtype_name(o.dtype()));
  checked_backend_for(o.device());  // an unavailable device fails before anything is wrapped
  Tensor t = detail::TensorImplAccess::make(
      std::make_shared<Storage>(data, static_cast<size_t>(nbytes), o.device(), std::move(deleter)), shape,
      contiguous_strides(shape), 0, o.dtype());
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}

}  // namespace ember
