// embedding, composed of index_select (whose gradient is the index_add of the rows) and, for
// padding_idx, a where() that takes the padding rows from a detached copy of the same rows, so
// that they receive no gradient while the forward values stay the table's own.
#include "ember/core/ops/embedding.h"

#include <algorithm>
#include <utility>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/index.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/views.h"
#include "ember/extend/check.h"

namespace ember {

std::optional<int64_t> normalize_padding_idx(const char* op, std::optional<int64_t> padding_idx,
                                             int64_t num_embeddings) {
  if (!padding_idx) return padding_idx;
  const int64_t p = *padding_idx, num = num_embeddings;
  if (p < -num || p >= num)
    raise<ValueError>(op, ": padding_idx must be within num_embeddings (", num, "), got ", p);
  return p < 0 ? p + num : p;
}

namespace {

// The smallest and the largest index. On the CPU the indices are read where they are: the two
// reductions, each a tensor and an item(), took about 1 us for BERT's 48 token ids, as long as
// the gather itself. On a device, two reductions, so that only two numbers come back.
std::pair<int64_t, int64_t> index_range(const Tensor& flat) {
  if (!flat.device().is_cpu()) return {min(flat).item<int64_t>(), max(flat).item<int64_t>()};
  const Tensor dense = flat.contiguous();
  const int64_t* at = dense.data_ptr<int64_t>();
  int64_t lo = at[0], hi = at[0];
  const int64_t n = dense.numel();
  for (int64_t i = 1; i < n; ++i) lo = std::min(lo, at[i]), hi = std::max(hi, at[i]);
  return {lo, hi};
}

}  // namespace

Tensor embedding(const Tensor& indices, const Tensor& weight, std::optional<int64_t> padding_idx) {
  const char* op = "embedding";
  check_defined(op, {{"indices", indices}, {"weight", weight}});
  check_same_device(op, {{"indices", indices}, {"weight", weight}});
  // int32 token ids are accepted, as PyTorch does: widened to int64.
  if (indices.dtype() == kInt32) return embedding(indices.to(kInt64), weight, padding_idx);
  check_index_dtype(op, {"indices", indices});
  check_floating(op, {"weight", weight});
  check_ndim(op, {"weight", weight}, 2);
  const int64_t num = weight.size(0);
  padding_idx = normalize_padding_idx(op, padding_idx, num);
  const Tensor flat = reshape(indices, {indices.numel()});
  // The range check here (rather than index_select's) names this op and the table.
  if (flat.numel() > 0) {
    const auto [lo, hi] = index_range(flat);
    if (lo < 0 || hi >= num)
      // Named after the table when a module registered it ("position_embeddings.weight").
      raise<IndexError>(op, ": index ", lo < 0 ? lo : hi, " is out of range for ", num, " embeddings",
                        weight.name().empty() ? "" : " of " + weight.name());
  }
  Tensor rows = index_select(weight, 0, flat);
  if (padding_idx && weight.requires_grad() && GradMode::is_enabled()) {
    const Tensor keep = ne(flat, *padding_idx).unsqueeze(1);
    rows = where(keep, rows, rows.detach());
  }
  Shape out_shape = indices.shape();
  out_shape.push_back(weight.size(1));
  return reshape(rows, out_shape);
}

}  // namespace ember
