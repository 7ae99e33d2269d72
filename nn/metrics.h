#pragma once
// Evaluation metrics of a classifier, computed on the host from its predictions (as one does
// with sklearn after .cpu()): accuracy and the area under the ROC curve. Both arguments must
// be on one device (any: the values are copied to the host once).
#include "ember/core/tensor.h"

namespace ember::nn {

/// The fraction of predictions equal to labels: two 1-D integer (or bool) tensors of one
/// length, or predictions [N, C] scores whose argmax over dim 1 is compared with labels [N].
/// ValueError for no examples.
EMBER_API double accuracy(const Tensor& predictions, const Tensor& labels);

/// Area under the ROC curve of a binary classifier: scores [N] (higher means class 1; any
/// real dtype) against labels [N] of 0 and 1 (any dtype). Tied scores count one half, as
/// sklearn's roc_auc_score does (the Mann-Whitney statistic with mid-ranks). ValueError for
/// a label other than 0 or 1, a NaN score, or labels of one class only (AUC is undefined).
EMBER_API double roc_auc(const Tensor& scores, const Tensor& labels);

}  // namespace ember::nn
