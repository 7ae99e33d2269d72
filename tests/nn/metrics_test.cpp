// nn::accuracy and nn::roc_auc: hand-checked values (ties included), a brute-force pairwise
// count on random scores with many ties, and the argument errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "ember/ember.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;

TEST(Accuracy, ClassesAndScores) {
  EXPECT_DOUBLE_EQ(nn::accuracy(tensor({1, 0, 2, 2}), tensor({1, 1, 2, 0})), 0.5);
  // argmax of each row: 1, 0, 1 against labels 1, 1, 1.
  const Tensor scores = tensor({{0.1, 0.9}, {0.8, 0.2}, {0.3, 0.7}}, kFloat32);
  EXPECT_DOUBLE_EQ(nn::accuracy(scores, tensor({1, 1, 1})), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(nn::accuracy(tensor({true, false}, kBool), tensor({true, true}, kBool)), 0.5);
}

TEST(Accuracy, BadArguments) {
  EXPECT_THROW_MSG(nn::accuracy(tensor({1, 0}), tensor({1})), ShapeError,
                   "accuracy: predictions has 2 examples but labels has 1");
  EXPECT_THROW_MSG(nn::accuracy(zeros({0}, kInt64), zeros({0}, kInt64)), ValueError, "accuracy: no examples");
  EXPECT_THROW_MSG(nn::accuracy(tensor({0.5, 0.1}, kFloat32), tensor({1, 0})), DTypeError,
                   "dtype mismatch in accuracy: 1-D predictions must be classes");
  EXPECT_THROW_MSG(nn::accuracy(tensor({1, 0}), tensor({1.0, 0.0}, kFloat32)), DTypeError,
                   "dtype mismatch in accuracy: labels must be an integer or bool tensor");
  EXPECT_THROW_MSG(nn::accuracy(zeros({2, 2, 2}), tensor({1, 0})), ShapeError,
                   "accuracy: predictions must be 1-D classes or 2-D scores");
}

TEST(RocAuc, HandCheckedValues) {
  // sklearn's documented example: 0.75.
  EXPECT_DOUBLE_EQ(nn::roc_auc(tensor({0.1, 0.4, 0.35, 0.8}, kFloat32), tensor({0, 0, 1, 1})), 0.75);
  // Pairs (positive, negative): 2>1, 2=2 (one half), 3>1, 3>2: 3.5 of 4.
  EXPECT_DOUBLE_EQ(nn::roc_auc(tensor({1, 2, 2, 3}), tensor({0, 0, 1, 1})), 0.875);
  EXPECT_DOUBLE_EQ(nn::roc_auc(tensor({0.5, 0.5, 0.5, 0.5}, kFloat64), tensor({0, 1, 0, 1})), 0.5);
  EXPECT_DOUBLE_EQ(nn::roc_auc(tensor({0.2, 0.9}, kFloat32), tensor({false, true}, kBool)), 1.0);
  EXPECT_DOUBLE_EQ(nn::roc_auc(tensor({0.9, 0.2}, kFloat32), tensor({0.0, 1.0}, kFloat32)), 0.0);
}

TEST(RocAuc, MatchesThePairwiseCountWithTies) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> score(0, 9), label(0, 1);  // few distinct scores: many ties
  std::vector<double> s(300);
  std::vector<int64_t> y(300);
  for (size_t i = 0; i < s.size(); ++i) s[i] = score(gen), y[i] = label(gen);
  double wins = 0, pairs = 0;
  for (size_t i = 0; i < s.size(); ++i)
    for (size_t j = 0; j < s.size(); ++j)
      if (y[i] == 1 && y[j] == 0) {
        wins += s[i] > s[j] ? 1.0 : s[i] == s[j] ? 0.5 : 0.0;
        pairs += 1;
      }
  const Tensor scores = from_vector(s, {300}), labels = from_vector(y, {300});
  EXPECT_NEAR(nn::roc_auc(scores, labels), wins / pairs, 1e-12);
}

TEST(RocAuc, BadArguments) {
  EXPECT_THROW_MSG(nn::roc_auc(tensor({0.1, 0.2}, kFloat32), tensor({1, 1})), ValueError,
                   "roc_auc: labels are all 1; the ROC AUC is undefined with one class only");
  EXPECT_THROW_MSG(nn::roc_auc(tensor({0.1, 0.2}, kFloat32), tensor({0, 2})), ValueError,
                   "roc_auc: labels[1] is 2; labels must be 0 or 1");
  EXPECT_THROW_MSG(nn::roc_auc(tensor({0.1, NAN}, kFloat32), tensor({0, 1})), ValueError,
                   "roc_auc: scores[1] is NaN");
  EXPECT_THROW_MSG(nn::roc_auc(zeros({2, 1}), tensor({0, 1})), ShapeError, "roc_auc: scores must be 1-D");
  EXPECT_THROW_MSG(nn::roc_auc(zeros({3}), tensor({0, 1})), ShapeError,
                   "roc_auc: scores has 3 examples but labels has 2");
}

TEST(RocAuc, ArgumentsOnTwoDevicesAreAMismatch) {
  ember::test::EmulatedCuda emulated;
  const Tensor scores = tensor({0.1, 0.9}, kFloat32).to(Device::cuda(0));
  EXPECT_THROW_MSG(nn::roc_auc(scores, tensor({0, 1})), DeviceMismatchError,
                   "tensors on different devices: roc_auc got scores on cuda:0 and labels on cpu");
  EXPECT_DOUBLE_EQ(nn::roc_auc(scores, tensor({0, 1}).to(Device::cuda(0))), 1.0);
}
