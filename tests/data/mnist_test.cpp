#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>
#include <cmath>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::data;
using ember::test::values_near;

namespace {

const std::string kSample = std::string(EMBER_SOURCE_DIR) + "/examples/data/mnist-sample";
const std::string kFashion = "/usr/share/datasets/fashion-mnist";

std::array<int64_t, 10> digit_counts(const Tensor& labels) {
  std::array<int64_t, 10> counts{};
  for (int64_t v : labels.to_vector<int64_t>()) counts.at(static_cast<size_t>(v))++;
  return counts;
}

float pixel(const MNIST& d, int64_t image, int64_t row, int64_t col) {
  return d.images().data_ptr<float>()[(image * 28 + row) * 28 + col];
}

}  // namespace

TEST(MNIST, BundledSampleHasItsSizesAndShapes) {
  const MNIST train(kSample, true), test(kSample, false);
  EXPECT_EQ(train.size(), 8000u);
  EXPECT_EQ(test.size(), 2000u);
  EXPECT_EQ(train.images().shape(), (Shape{8000, 1, 28, 28}));
  EXPECT_EQ(test.images().shape(), (Shape{2000, 1, 28, 28}));
  EXPECT_EQ(train.images().dtype(), kFloat32);
  EXPECT_EQ(train.labels().shape(), (Shape{8000}));
  EXPECT_EQ(train.labels().dtype(), kInt64);
  EXPECT_TRUE(train.images().device().is_cpu());
}

TEST(MNIST, BundledSampleDigitCountsMatchItsReadme) {
  const MNIST train(kSample, true), test(kSample, false);
  const auto a = digit_counts(train.labels()), b = digit_counts(test.labels());
  const std::array<int64_t, 10> expected{1001, 1127, 991, 1032, 980, 863, 1014, 1070, 944, 978};
  for (size_t d = 0; d < 10; ++d) {
    EXPECT_EQ(a[d] + b[d], expected[d]) << "digit " << d;
    EXPECT_EQ(b[d], 200) << "digit " << d;  // the README: each digit's last 200 form the test set
  }
}

TEST(MNIST, BundledSampleValuesMatchPython) {
  // Computed once with python3's gzip module on the same files.
  const MNIST train(kSample, true), test(kSample, false);
  EXPECT_EQ(train.labels().narrow(0, 0, 10).to_vector<int64_t>(),
            (std::vector<int64_t>{3, 6, 6, 0, 2, 9, 7, 2, 4, 2}));
  EXPECT_EQ(train.labels().to_vector<int64_t>().back(), 8);
  EXPECT_EQ(test.labels().narrow(0, 0, 10).to_vector<int64_t>(),
            (std::vector<int64_t>{2, 9, 0, 8, 2, 6, 5, 5, 3, 4}));
  EXPECT_FLOAT_EQ(pixel(train, 0, 14, 14), 127 / 255.0f);
  EXPECT_FLOAT_EQ(pixel(train, 0, 10, 12), 109 / 255.0f);
  EXPECT_FLOAT_EQ(pixel(train, 0, 5, 13), 10 / 255.0f);
  EXPECT_FLOAT_EQ(pixel(train, 0, 5, 14), 215 / 255.0f);
  EXPECT_FLOAT_EQ(pixel(train, 0, 5, 12), 0.0f);
  EXPECT_FLOAT_EQ(pixel(train, 7999, 14, 14), 252 / 255.0f);
  EXPECT_FLOAT_EQ(pixel(train, 123, 7, 15), 252 / 255.0f);
  EXPECT_FLOAT_EQ(pixel(test, 0, 4, 15), 133 / 255.0f);
  EXPECT_NEAR(train.images().select(0, 0).sum().item<double>(), 20635 / 255.0, 1e-3);
  EXPECT_NEAR(test.images().select(0, 0).sum().item<double>(), 23289 / 255.0, 1e-3);
  int64_t grey_sum = 0;  // every pixel of the split, back in grey levels
  for (float v : train.images().to_vector<float>()) grey_sum += std::lround(v * 255.0f);
  EXPECT_EQ(grey_sum, 209039444);
  EXPECT_EQ(train.images().max().item<float>(), 1.0f);
  EXPECT_EQ(train.images().min().item<float>(), 0.0f);
}

TEST(MNIST, NormalizeIsApplied) {
  const Normalize norm(MNIST::kMean, MNIST::kStd);
  const MNIST plain(kSample, true), normalized(kSample, true, norm);
  EXPECT_EQ(normalized.normalize().mean(), 0.1307);
  for (auto [i, r, c, v] :
       std::vector<std::array<int, 4>>{{0, 14, 14, 127}, {0, 0, 0, 0}, {7999, 14, 14, 252}})
    EXPECT_NEAR(pixel(normalized, i, r, c), (v / 255.0 - 0.1307) / 0.3081, 1e-6);
  const auto a = plain.images().narrow(0, 0, 50).to_vector<double>();
  const auto b = normalized.images().narrow(0, 0, 50).to_vector<double>();
  for (size_t k = 0; k < a.size(); ++k) ASSERT_NEAR(b[k], (a[k] - 0.1307) / 0.3081, 1e-5) << k;
  // Over the training sample the normalized pixels have about zero mean and unit spread.
  EXPECT_NEAR(normalized.images().mean().item<double>(), 0.0, 0.05);
}

TEST(MNIST, ReadIdxGivesTheRawBytes) {
  const Tensor labels = read_idx(kSample + "/t10k-labels-idx1-ubyte.gz");
  EXPECT_EQ(labels.dtype(), kUInt8);
  EXPECT_EQ(labels.shape(), (Shape{2000}));
  EXPECT_EQ(labels.narrow(0, 0, 3).to_vector<int64_t>(), (std::vector<int64_t>{2, 9, 0}));
  const Tensor images = read_idx(kSample + "/train-images-idx3-ubyte.gz");
  EXPECT_EQ(images.shape(), (Shape{8000, 28, 28}));
  EXPECT_EQ(images.data_ptr<uint8_t>()[14 * 28 + 14], 127);
  EXPECT_EQ(images.to(kInt64).sum().item<int64_t>(), 209039444);
}

TEST(MNIST, MissingFolderOrFilesThrowIOError) {
  EXPECT_THROW_LINE(MNIST("/nonexistent/mnist", true), IOError,
                    "MNIST: /nonexistent/mnist: no such directory");
  EXPECT_THROW_LINE(MNIST(EMBER_SOURCE_DIR, true), IOError,
                    std::string("MNIST: no train-images file in ") + EMBER_SOURCE_DIR +
                        " (looked for train-images-idx3-ubyte, train-images-idx3-ubyte.gz, "
                        "train-images.idx3-ubyte, train-images.idx3-ubyte.gz)");
}

TEST(MNIST, FashionMnistLoads) {
  struct stat st {};
  if (::stat(kFashion.c_str(), &st) != 0)
    GTEST_SKIP() << kFashion << " is absent (Debian package dataset-fashion-mnist)";
  const MNIST train(kFashion, true), test(kFashion, false);
  EXPECT_EQ(train.images().shape(), (Shape{60000, 1, 28, 28}));
  EXPECT_EQ(test.images().shape(), (Shape{10000, 1, 28, 28}));
  EXPECT_EQ(train.labels().narrow(0, 0, 5).to_vector<int64_t>(), (std::vector<int64_t>{9, 0, 0, 3, 0}));
  EXPECT_EQ(test.labels().narrow(0, 0, 5).to_vector<int64_t>(), (std::vector<int64_t>{9, 2, 1, 1, 6}));
  EXPECT_NEAR(train.images().select(0, 0).sum().item<double>(), 76247 / 255.0, 1e-3);
  EXPECT_FLOAT_EQ(pixel(test, 0, 7, 19), 3 / 255.0f);
  for (int64_t c : digit_counts(train.labels())) EXPECT_EQ(c, 6000);
  for (int64_t c : digit_counts(test.labels())) EXPECT_EQ(c, 1000);
}
