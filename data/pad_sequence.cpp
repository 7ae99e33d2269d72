#include "ember/data/pad_sequence.h"

#include <algorithm>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/transfer.h"
#include "ember/extend/check.h"

namespace ember::data {

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
  constexpr const char* op = "pad_sequence";
  if (sequences.empty()) raise<ValueError>(op, ": received an empty list of sequences");
  check_defined(op, "sequences", sequences);
  check_same_device(op, "sequences", sequences);
  check_same_dtype(op, "sequences", sequences);
  const Tensor& first = sequences[0];
  check_value_fits(op, "padding_value", padding_value, first.dtype());
  int64_t longest = 0;
  for (size_t i = 0; i < sequences.size(); ++i) {
    const Tensor& s = sequences[i];
    if (s.dim() < 1)
      raise<ShapeError>(op, ": sequences[", i, "] must have at least 1 dim, got shape ",
                        shape_str(s.shape()));
    if (s.dim() != first.dim() ||
        !std::equal(s.shape().begin() + 1, s.shape().end(), first.shape().begin() + 1))
      raise<ShapeError>(op, ": sequences[", i, "] has shape ", shape_str(s.shape()), " but sequences[0] has ",
                        shape_str(first.shape()), ": the dims after the first must agree");
    longest = std::max(longest, s.size(0));
  }
  NoGradGuard no_grad;
  const int64_t count = static_cast<int64_t>(sequences.size());
  Shape shape = first.shape();
  shape[0] = longest;
  shape.insert(shape.begin() + (batch_first ? 0 : 1), count);
  Tensor out = full(shape, padding_value, TensorOptions(first.dtype()).device(first.device()));
  for (int64_t i = 0; i < count; ++i) {
    const Tensor& s = sequences[static_cast<size_t>(i)];
    if (s.size(0) == 0) continue;
    Tensor row = out.select(batch_first ? 0 : 1, i).narrow(0, 0, s.size(0));
    copy_(row, s);
  }
  return out;
}

}  // namespace ember::data
