#include "ember/nn/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/shape.h"
#include "ember/extend/check.h"

namespace ember::nn {
namespace {

// The labels as 0/1 values, from any dtype ("roc_auc: labels[3] is 2; labels must be 0 or 1").
std::vector<int64_t> binary_labels(const char* op, const Tensor& labels) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(labels.numel()));
  const std::vector<double> values = labels.to_vector<double>();
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] != 0 && values[i] != 1)
      raise<ValueError>(op, ": labels[", i, "] is ", values[i], "; labels must be 0 or 1");
    out.push_back(static_cast<int64_t>(values[i]));
  }
  return out;
}

void check_one_dim(const char* op, const Arg& arg) {
  if (arg.tensor.dim() != 1)
    raise<ShapeError>(op, ": ", arg.name, " must be 1-D, got shape ", shape_str(arg.tensor.shape()));
}

void check_lengths(const char* op, const Tensor& a, const char* a_name, const Tensor& labels) {
  if (a.size(0) != labels.size(0))
    raise<ShapeError>(op, ": ", a_name, " has ", a.size(0), " examples but labels has ", labels.size(0));
  if (labels.size(0) == 0) raise<ValueError>(op, ": no examples");
}

}  // namespace

double accuracy(const Tensor& predictions, const Tensor& labels) {
  const char* op = "accuracy";
  check_defined(op, {{"predictions", predictions}, {"labels", labels}});
  check_same_device(op, {{"predictions", predictions}, {"labels", labels}});
  check_one_dim(op, {"labels", labels});
  if (predictions.dim() != 1 && predictions.dim() != 2)
    raise<ShapeError>(op, ": predictions must be 1-D classes or 2-D scores [N, C], got shape ",
                      shape_str(predictions.shape()));
  check_lengths(op, predictions, "predictions", labels);
  if (is_floating(labels.dtype()))
    raise<DTypeError>("dtype mismatch in ", op, ": labels must be an integer or bool tensor, got ",
                      dtype_name(labels.dtype()));
  const Tensor classes = predictions.dim() == 2 ? argmax(predictions, 1) : predictions;
  if (is_floating(classes.dtype()))
    raise<DTypeError>("dtype mismatch in ", op,
                      ": 1-D predictions must be classes (an integer or bool tensor), got ",
                      dtype_name(classes.dtype()), "; pass the [N, C] scores or their argmax");
  const std::vector<int64_t> p = classes.to_vector<int64_t>(), y = labels.to_vector<int64_t>();
  int64_t right = 0;
  for (size_t i = 0; i < p.size(); ++i) right += p[i] == y[i];
  return static_cast<double>(right) / static_cast<double>(p.size());
}

double roc_auc(const Tensor& scores, const Tensor& labels) {
  const char* op = "roc_auc";
  check_defined(op, {{"scores", scores}, {"labels", labels}});
  check_same_device(op, {{"scores", scores}, {"labels", labels}});
  check_one_dim(op, {"scores", scores});
  check_one_dim(op, {"labels", labels});
  check_lengths(op, scores, "scores", labels);
  const std::vector<double> s = scores.to_vector<double>();
  const std::vector<int64_t> y = binary_labels(op, labels);
  for (size_t i = 0; i < s.size(); ++i)
    if (std::isnan(s[i])) raise<ValueError>(op, ": scores[", i, "] is NaN");
  const int64_t positives = std::accumulate(y.begin(), y.end(), int64_t{0});
  const int64_t negatives = static_cast<int64_t>(y.size()) - positives;
  if (positives == 0 || negatives == 0)
    raise<ValueError>(op, ": labels are all ", positives ? 1 : 0,
                      "; the ROC AUC is undefined with one class only");
  // Rank the scores ascending; a run of ties shares the mean of its ranks. The positives'
  // rank sum gives the Mann-Whitney U, and AUC = U / (P N).
  std::vector<size_t> order(s.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s[a] < s[b]; });
  double positive_rank_sum = 0;
  for (size_t lo = 0; lo < order.size();) {
    size_t hi = lo + 1;
    while (hi < order.size() && s[order[hi]] == s[order[lo]]) ++hi;
    const double mid_rank = 0.5 * static_cast<double>(lo + 1 + hi);  // ranks lo+1 .. hi
    for (size_t k = lo; k < hi; ++k)
      if (y[order[k]]) positive_rank_sum += mid_rank;
    lo = hi;
  }
  const double p = static_cast<double>(positives), n = static_cast<double>(negatives);
  return (positive_rank_sum - p * (p + 1) / 2) / (p * n);
}

}  // namespace ember::nn
