#pragma once
// Datasets: indexed collections of examples (data, target, named fields, text) that a
// DataLoader batches.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::data {

/// One example, or a batch of them stacked along a new leading dim. data and target serve
/// the (input, label) datasets; a model with several inputs (a BERT's input_ids,
/// attention_mask, token_type_ids, labels) reads named fields instead. Any part may be
/// left undefined or empty.
struct EMBER_API Example {
  Tensor data{};
  Tensor target{};
  /// Named tensors, in the order they were set; names are unique.
  std::vector<std::pair<std::string, Tensor>> fields{};
  /// The raw text of a text example (UTF-8), empty otherwise. Not collated: a batch's text
  /// stays empty, and a tokenizing collate reads each example's text.
  std::string text{};

  /// The field called name. ValueError "Example::field: no field 'x' (fields: a, b)", or
  /// "(no fields)", when there is none.
  Tensor& field(const std::string& name);
  const Tensor& field(const std::string& name) const;
  bool has_field(const std::string& name) const;
  /// Sets the field called name, replacing its tensor when it exists, else appending it.
  void set_field(const std::string& name, Tensor value);
  /// The field names, in order.
  std::vector<std::string> field_names() const;
  /// A copy with data, target and every field on device (text as it is).
  Example to(Device device) const;
};
/// A batch has the same parts as an example, with a leading batch dim.
using Batch = Example;

/// An indexed dataset. get and get_batch may run on a DataLoader's worker thread, one call
/// at a time, so they must not touch state that the iterating thread changes meanwhile.
class EMBER_API Dataset {
 public:
  virtual ~Dataset() = default;
  /// Number of examples.
  virtual size_t size() const = 0;
  /// Example i (0 <= i < size()), as CPU tensors.
  virtual Example get(size_t index) const = 0;
  /// The examples at indices, stacked. The default calls get() for each and stacks;
  /// datasets that hold their examples in one tensor override it with a gather.
  virtual Batch get_batch(const std::vector<int64_t>& indices) const;
};

/// Stacks the examples' data, their targets and each named field along a new dim 0 into CPU
/// tensors. A part is stacked when example 0 has it (data and target defined, fields by
/// name); then every example must have it, with one shape and dtype (ShapeError /
/// DTypeError naming the first example that differs), and every example must have the same
/// field names (ValueError listing both sets; order may differ, the batch follows example
/// 0's). ValueError for an empty list, when example 0 has no data, target or field, or has
/// a field name twice.
/// Texts are not collated.
EMBER_API Batch default_collate(const std::vector<Example>& examples);

namespace detail {
/// IndexError "<op>: index <i> is out of range for a dataset of size <n>" unless 0 <= i < n.
EMBER_API void check_index(const char* op, int64_t index, size_t size);
}  // namespace detail

}  // namespace ember::data
