#include "ember/data/dataset.h"

#include <cstring>

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"

namespace ember::data {
namespace {

// Stacks equally shaped tensors into one contiguous CPU tensor, one memcpy per part.
Tensor stack_parts(const std::vector<Example>& examples, Tensor Example::*field, const char* what) {
  const Tensor& first = examples[0].*field;
  if (!first.defined()) raise<ValueError>("default_collate: example 0 has no ", what);
  Shape shape = first.shape();
  shape.insert(shape.begin(), static_cast<int64_t>(examples.size()));
  Tensor out = empty(shape, TensorOptions(first.dtype()));
  const size_t bytes = static_cast<size_t>(first.numel()) * itemsize(first.dtype());
  auto* dst = static_cast<char*>(out.raw_data());
  for (size_t i = 0; i < examples.size(); ++i) {
    const Tensor& t = examples[i].*field;
    if (!t.defined()) raise<ValueError>("default_collate: example ", i, " has no ", what);
    if (t.shape() != first.shape())
      raise<ShapeError>("default_collate: example ", i, " has ", what, " of shape ", shape_str(t.shape()),
                        " but example 0 has ", shape_str(first.shape()));
    if (t.dtype() != first.dtype())
      raise<DTypeError>("default_collate: example ", i, " has ", what, " of dtype ", dtype_name(t.dtype()),
                        " but example 0 has ", dtype_name(first.dtype()));
    const Tensor host = t.cpu().contiguous();
    if (bytes) std::memcpy(dst + i * bytes, host.raw_data(), bytes);
  }
  return out;
}

}  // namespace

Batch default_collate(const std::vector<Example>& examples) {
  if (examples.empty()) raise<ValueError>("default_collate: no examples to stack");
  return {stack_parts(examples, &Example::data, "data"), stack_parts(examples, &Example::target, "target")};
}

Batch Dataset::get_batch(const std::vector<int64_t>& indices) const {
  std::vector<Example> examples;
  examples.reserve(indices.size());
  for (int64_t i : indices) {
    detail::check_index("get_batch", i, size());
    examples.push_back(get(static_cast<size_t>(i)));
  }
  return default_collate(examples);
}

namespace detail {
void check_index(const char* op, int64_t index, size_t size) {
  if (index < 0 || static_cast<uint64_t>(index) >= size)
    raise<IndexError>(op, ": index ", index, " is out of range for a dataset of size ", size);
}
}  // namespace detail

}  // namespace ember::data
