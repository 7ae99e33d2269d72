#pragma once
// Text classification data: (text, label) pairs, read from "<label>\t<text>" files, and a
// fixed, seeded train/test split. The review corpus bundled with the repository
// (examples/data/reviews) is such a file; examples/common/bundled_data.h finds it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ember/data/dataset.h"

namespace ember::data {

/// Labelled texts. get(i) gives an Example with text set, the field "labels" (an int64
/// scalar) and target = the same label; data stays undefined. A tokenizing collate turns
/// the texts into input_ids / attention_mask / token_type_ids.
class EMBER_API TextClassificationDataset : public Dataset {
 public:
  TextClassificationDataset() = default;
  /// ValueError when the counts differ or a label is negative.
  TextClassificationDataset(std::vector<std::string> texts, std::vector<int64_t> labels);

  size_t size() const override { return texts_.size(); }
  /// IndexError (the format of get_batch) unless index < size().
  Example get(size_t index) const override;

  const std::vector<std::string>& texts() const { return texts_; }
  const std::vector<int64_t>& labels() const { return labels_; }
  /// Largest label + 1 (0 when empty).
  int64_t num_classes() const;
  /// The examples at indices, in that order (IndexError for one out of range).
  TextClassificationDataset subset(const std::vector<int64_t>& indices) const;

 private:
  std::vector<std::string> texts_;
  std::vector<int64_t> labels_;
};

/// Splits dataset into (train, test): the first ceil(test_fraction * n) indices of
/// shuffled_indices(n, seed, 0) (sampler.h: the same on every machine) are the test set; each
/// part keeps the dataset's order. ValueError unless 0 < test_fraction < 1.
EMBER_API std::pair<TextClassificationDataset, TextClassificationDataset> train_test_split(
    const TextClassificationDataset& dataset, double test_fraction, uint64_t seed);

/// Reads "<label>\t<text>" lines (UTF-8; the file raw or gzip, told apart by content) into a
/// dataset: the label a decimal integer in [0, 2^31), the text everything after the first
/// tab up to the line end ("\n"; a "\r" before it is dropped). The last line may lack its
/// "\n". The lines keep the file's order (the bundled review corpus lists its positives first).
/// IOError "load_reviews: <path>: ..." when the file cannot be read, is not a regular
/// file or holds corrupt gzip data; ValueError "load_reviews: <path>: line <n>: ..." for an
/// empty line, a missing tab, a bad label or invalid UTF-8.
EMBER_API TextClassificationDataset load_reviews(const std::string& path);

}  // namespace ember::data
