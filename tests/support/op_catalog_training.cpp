// Catalog cases for the class losses' ignore_index and label_smoothing: every reduction, a
// transposed input, an empty batch and a row wide enough for the 128-thread blocks of
// cuda_softmax_loss.cu, so that gradcheck and the CUDA parity suite cover them.
#include "support/op_catalog_args.h"

namespace ember::test {
namespace {

using namespace catalog;
using Args = const std::vector<Tensor>&;

// target with rows [1, 3) set to ignore_index, so that every run has ignored targets (the
// view's fill_ leaves target on its device: a mixed-device run still fails in the loss).
Tensor with_ignored(const Tensor& target, int64_t ignore_index) {
  Tensor t = target.clone();
  t.narrow(0, 1, 2).fill_(static_cast<double>(ignore_index));
  return t;
}

}  // namespace

std::vector<OpSpec> training_cases() {
  std::vector<OpSpec> ops;
  // ---- ignore_index: the default -100, then a class index (2) ----
  ops.push_back({"cross_entropy_ignore_index",
                 "cross_entropy",
                 {f("input", {5, 4}, -3, 3), idx("target", {5}, 0, 4)},
                 [](Args a) { return cross_entropy(a[0], with_ignored(a[1], -100)); }});
  ops.push_back({"cross_entropy_ignore_class_sum",
                 "cross_entropy",
                 {f("input", {5, 4}, -3, 3), idx("target", {5}, 0, 4)},
                 [](Args a) { return cross_entropy(a[0], with_ignored(a[1], 2), Reduction::Sum, 2); }});
  ops.push_back({"cross_entropy_ignore_index_none",
                 "cross_entropy",
                 {f("input", {5, 4}, -3, 3), idx("target", {5}, 0, 4)},
                 [](Args a) { return cross_entropy(a[0], with_ignored(a[1], -1), Reduction::None, -1); }});
  ops.push_back({"nll_loss_ignore_index",
                 "nll_loss",
                 {f("input", {5, 4}, -3, 0), idx("target", {5}, 0, 4)},
                 [](Args a) { return nll_loss(a[0], with_ignored(a[1], -100)); }});
  ops.push_back({"nll_loss_ignore_class_none",
                 "nll_loss",
                 {f("input", {5, 4}, -3, 0), idx("target", {5}, 0, 4)},
                 [](Args a) { return nll_loss(a[0], with_ignored(a[1], 3), Reduction::None, 3); }});
  // ---- label_smoothing, alone and with ignored targets ----
  ops.push_back({"cross_entropy_label_smoothing",
                 "cross_entropy",
                 {f("input", {4, 5}, -3, 3), idx("target", {4}, 0, 5)},
                 [](Args a) { return cross_entropy(a[0], a[1], Reduction::Mean, -100, 0.2); }});
  ops.push_back({"cross_entropy_label_smoothing_sum",
                 "cross_entropy",
                 {f("input", {4, 5}, -3, 3), idx("target", {4}, 0, 5)},
                 [](Args a) { return cross_entropy(a[0], a[1], Reduction::Sum, -100, 0.35); }});
  ops.push_back({"cross_entropy_label_smoothing_none_ignored",
                 "cross_entropy",
                 {f("input", {4, 5}, -3, 3), idx("target", {4}, 0, 5)},
                 [](Args a) { return cross_entropy(a[0], with_ignored(a[1], 0), Reduction::None, 0, 0.1); }});
  ops.push_back(
      {"cross_entropy_label_smoothing_ignored_mean",
       "cross_entropy",
       {f("input", {6, 3}, -3, 3), idx("target", {6}, 0, 3)},
       [](Args a) { return cross_entropy(a[0], with_ignored(a[1], -100), Reduction::Mean, -100, 1.0); }});
  // A transposed input [5, 4] (the front-end makes it contiguous).
  ops.push_back(
      {"cross_entropy_label_smoothing_transposed",
       "cross_entropy",
       {f("input", {4, 5}, -3, 3), idx("target", {5}, 0, 4)},
       [](Args a) { return cross_entropy(a[0].t(), with_ignored(a[1], 1), Reduction::Mean, 1, 0.25); }});
  // One sample: input [C], target [].
  ops.push_back({"cross_entropy_label_smoothing_single",
                 "cross_entropy",
                 {f("input", {6}, -3, 3), idx("target", {}, 0, 6)},
                 [](Args a) { return cross_entropy(a[0], a[1], Reduction::Mean, -100, 0.3); }});
  // An empty batch: the sum is 0 and there is no gradient to speak of.
  ops.push_back({"cross_entropy_label_smoothing_empty",
                 "cross_entropy",
                 {f("input", {0, 4}, -3, 3), idx("target", {0}, 0, 4)},
                 [](Args a) { return cross_entropy(a[0], a[1], Reduction::Sum, -100, 0.1); }});
  // 1000 classes: class_loss_kernel<128> with the smoothing sum (8 elements a thread).
  ops.push_back(
      {"cross_entropy_label_smoothing_1000_classes",
       "cross_entropy",
       {f("input", {4, 1000}, -3, 3), idx("target", {4}, 0, 1000)},
       [](Args a) { return cross_entropy(a[0], with_ignored(a[1], 7), Reduction::Mean, 7, 0.15); }});
  return ops;
}

}  // namespace ember::test
