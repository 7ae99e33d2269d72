#include "ember/data/dataset.h"

#include <algorithm>
#include <cstring>

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"

namespace ember::data {
namespace {

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Stacks equally shaped tensors into one contiguous CPU tensor, one memcpy per part. part(i)
// is example i's tensor; what names it in messages ("data", "field 'input_ids'").
template <class Part>
Tensor stack_parts(size_t count, const Part& part, const std::string& what) {
  const Tensor& first = part(0);
  Shape shape = first.shape();
  shape.insert(shape.begin(), static_cast<int64_t>(count));
  Tensor out = empty(shape, TensorOptions(first.dtype()));
  const size_t bytes = static_cast<size_t>(first.numel()) * itemsize(first.dtype());
  auto* dst = static_cast<char*>(out.raw_data());
  for (size_t i = 0; i < count; ++i) {
    const Tensor& t = part(i);
    if (!t.defined())
      raise<ValueError>("default_collate: example ", i, " has no ", what, " but example 0 has");
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

// The plain parts: stacked when example 0 has one, refused when a later example has one that
// example 0 lacks (its values would be dropped silently).
Tensor stack_member(const std::vector<Example>& examples, Tensor Example::*member, const char* what) {
  if (!(examples[0].*member).defined()) {
    for (size_t i = 1; i < examples.size(); ++i)
      if ((examples[i].*member).defined())
        raise<ValueError>("default_collate: example ", i, " has ", what, " but example 0 has none");
    return Tensor();
  }
  return stack_parts(
      examples.size(), [&](size_t i) -> const Tensor& { return examples[i].*member; }, what);
}

std::vector<std::string> sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

Tensor& Example::field(const std::string& name) {
  return const_cast<Tensor&>(static_cast<const Example&>(*this).field(name));
}

const Tensor& Example::field(const std::string& name) const {
  for (const auto& [n, t] : fields)
    if (n == name) return t;
  if (fields.empty()) raise<ValueError>("Example::field: no field '", name, "' (no fields)");
  raise<ValueError>("Example::field: no field '", name, "' (fields: ", join_names(field_names()), ")");
}

bool Example::has_field(const std::string& name) const {
  return std::any_of(fields.begin(), fields.end(), [&](const auto& f) { return f.first == name; });
}

void Example::set_field(const std::string& name, Tensor value) {
  for (auto& [n, t] : fields)
    if (n == name) {
      t = std::move(value);
      return;
    }
  fields.emplace_back(name, std::move(value));
}

std::vector<std::string> Example::field_names() const {
  std::vector<std::string> names;
  names.reserve(fields.size());
  for (const auto& f : fields) names.push_back(f.first);
  return names;
}

Example Example::to(Device device) const {
  Example out;
  if (data.defined()) out.data = data.to(device);
  if (target.defined()) out.target = target.to(device);
  out.fields.reserve(fields.size());
  for (const auto& [n, t] : fields) out.fields.emplace_back(n, t.defined() ? t.to(device) : t);
  out.text = text;
  return out;
}

Batch default_collate(const std::vector<Example>& examples) {
  if (examples.empty()) raise<ValueError>("default_collate: no examples to stack");
  const Example& first = examples[0];
  if (!first.data.defined() && !first.target.defined() && first.fields.empty())
    raise<ValueError>("default_collate: example 0 has no data, target or field");
  const std::vector<std::string> names = first.field_names();
  const std::vector<std::string> sorted_names = sorted(names);
  // fields is a public vector: a name pushed twice would be stacked twice under one name.
  for (size_t k = 1; k < sorted_names.size(); ++k)
    if (sorted_names[k] == sorted_names[k - 1])
      raise<ValueError>("default_collate: example 0 has the field '", sorted_names[k], "' twice");
  for (size_t i = 1; i < examples.size(); ++i) {
    const std::vector<std::string> other = examples[i].field_names();
    if (sorted(other) != sorted_names)
      raise<ValueError>("default_collate: example ", i, " has fields (", join_names(other),
                        ") but example 0 has (", join_names(names), ")");
  }
  Batch batch;
  batch.data = stack_member(examples, &Example::data, "data");
  batch.target = stack_member(examples, &Example::target, "target");
  for (const std::string& name : names) {
    const std::string what = "field '" + name + "'";
    if (!first.field(name).defined()) raise<ValueError>("default_collate: example 0 has an undefined ", what);
    batch.fields.emplace_back(
        name, stack_parts(
                  examples.size(), [&](size_t i) -> const Tensor& { return examples[i].field(name); }, what));
  }
  return batch;
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
