#include "ember/data/tensor_dataset.h"

#include <cstring>

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"

namespace ember::data {
namespace {

Tensor host_rows(const Tensor& t, const char* what) {
  if (!t.defined()) raise<ValueError>("TensorDataset: ", what, " is undefined");
  if (t.dim() == 0) raise<ShapeError>("TensorDataset: ", what, " must have at least one dim, got a scalar");
  return t.detach().cpu().contiguous();
}

// The rows at indices of a contiguous CPU tensor, copied into a new [indices.size(), ...] tensor.
Tensor gather_rows(const Tensor& src, const std::vector<int64_t>& indices) {
  Shape shape = src.shape();
  const size_t rows = static_cast<size_t>(shape[0]);
  const Shape row_shape(shape.begin() + 1, shape.end());
  const size_t bytes = static_cast<size_t>(numel_of(row_shape)) * itemsize(src.dtype());
  shape[0] = static_cast<int64_t>(indices.size());
  Tensor out = empty(shape, TensorOptions(src.dtype()));
  const auto* from = static_cast<const char*>(src.raw_data());
  auto* to = static_cast<char*>(out.raw_data());
  for (size_t k = 0; k < indices.size(); ++k) {
    detail::check_index("get_batch", indices[k], rows);
    if (bytes) std::memcpy(to + k * bytes, from + static_cast<size_t>(indices[k]) * bytes, bytes);
  }
  return out;
}

}  // namespace

TensorDataset::TensorDataset(Tensor data, Tensor targets)
    : data_(host_rows(data, "data")), targets_(host_rows(targets, "targets")) {
  if (data_.size(0) != targets_.size(0))
    raise<ShapeError>("TensorDataset: data has ", data_.size(0), " rows but targets has ", targets_.size(0));
}

size_t TensorDataset::size() const { return static_cast<size_t>(data_.size(0)); }

Example TensorDataset::get(size_t index) const {
  detail::check_index("get", static_cast<int64_t>(index), size());
  const std::vector<int64_t> one{static_cast<int64_t>(index)};
  const Batch b = get_batch(one);
  return {b.data.select(0, 0), b.target.select(0, 0)};
}

Batch TensorDataset::get_batch(const std::vector<int64_t>& indices) const {
  return {gather_rows(data_, indices), gather_rows(targets_, indices)};
}

}  // namespace ember::data
