// data::text_collate: a review dataset through a DataLoader into padded, named int64 fields
// (hand-checked ids), per-batch and max_length padding, the device option, and its errors.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "ember/ember.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::data;

namespace {

std::shared_ptr<const BertTokenizer> tiny_tokenizer() {
  // ids:                                      0        1        2        3        4       5     6     7     8
  // 9
  return std::make_shared<BertTokenizer>(
      std::vector<std::string>{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "好", "书", "不", "a", "##b"});
}

std::vector<Batch> batches(DataLoaderOptions options) {
  auto dataset = std::make_shared<TextClassificationDataset>(std::vector<std::string>{"好书", "不", "ab"},
                                                             std::vector<int64_t>{1, 0, 1});
  options.batch_size = 2;
  std::vector<Batch> out;
  for (Batch& b : DataLoader(dataset, options)) out.push_back(b);
  return out;
}

}  // namespace

TEST(TextCollate, PadsEachBatchToItsLongestText) {
  DataLoaderOptions options;
  options.collate = text_collate(tiny_tokenizer());
  const std::vector<Batch> b = batches(options);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].field_names(),
            (std::vector<std::string>{"input_ids", "attention_mask", "token_type_ids", "lengths", "labels"}));
  EXPECT_EQ(b[0].field("input_ids").shape(), (Shape{2, 4}));
  EXPECT_EQ(b[0].field("input_ids").to_vector<int64_t>(), (std::vector<int64_t>{2, 5, 6, 3, 2, 7, 3, 0}));
  EXPECT_EQ(b[0].field("attention_mask").to_vector<int64_t>(),
            (std::vector<int64_t>{1, 1, 1, 1, 1, 1, 1, 0}));
  EXPECT_EQ(b[0].field("token_type_ids").to_vector<int64_t>(), std::vector<int64_t>(8, 0));
  EXPECT_EQ(b[0].field("lengths").to_vector<int64_t>(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(b[0].field("labels").to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(b[0].target.to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  // "ab" is a WordPiece word: a ##b.
  EXPECT_EQ(b[1].field("input_ids").to_vector<int64_t>(), (std::vector<int64_t>{2, 8, 9, 3}));
  EXPECT_EQ(b[1].field("input_ids").dtype(), kInt64);
}

TEST(TextCollate, MaxLengthPaddingAndTruncation) {
  TextCollateOptions collate;
  collate.encode.max_length = 3;
  collate.encode.padding = Padding::MaxLength;
  DataLoaderOptions options;
  options.collate = text_collate(tiny_tokenizer(), collate);
  const std::vector<Batch> b = batches(options);
  // "好书" truncated to [CLS] 好 [SEP]; "不" fits exactly.
  EXPECT_EQ(b[0].field("input_ids").to_vector<int64_t>(), (std::vector<int64_t>{2, 5, 3, 2, 7, 3}));
  EXPECT_EQ(b[0].field("lengths").to_vector<int64_t>(), (std::vector<int64_t>{3, 3}));
}

TEST(TextCollate, MovesTheBatchToTheDeviceItIsGiven) {
  test::EmulatedCuda emulated(2);
  TextCollateOptions collate;
  collate.device = Device::cuda(1);
  DataLoaderOptions options;
  options.collate = text_collate(tiny_tokenizer(), collate);
  const std::vector<Batch> b = batches(options);
  for (const auto& [name, t] : b[0].fields) EXPECT_EQ(t.device(), Device::cuda(1)) << name;
  EXPECT_EQ(b[0].target.device(), Device::cuda(1));
  EXPECT_EQ(b[0].field("input_ids").to_vector<int64_t>(), (std::vector<int64_t>{2, 5, 6, 3, 2, 7, 3, 0}));
}

TEST(TextCollate, Errors) {
  EXPECT_THROW_MSG(text_collate(nullptr), ValueError, "text_collate: the tokenizer is null");
  const CollateFn collate = text_collate(tiny_tokenizer());
  EXPECT_THROW_MSG(collate({}), ValueError, "text_collate: no examples");
  Example labelled, unlabelled;
  labelled.text = unlabelled.text = "好";
  labelled.set_field("labels", scalar_tensor(1, kInt64));
  EXPECT_THROW_MSG(collate({labelled, unlabelled}), ValueError,
                   "text_collate: example 1 has no field 'labels' but example 0 has");
  // Unlabelled texts (prediction) collate without labels.
  const Batch b = collate({unlabelled});
  EXPECT_FALSE(b.has_field("labels"));
  EXPECT_FALSE(b.target.defined());
  Example bad;
  bad.text = std::string("\xff");
  EXPECT_THROW_MSG(collate({bad}), ValueError, "BertTokenizer.batch_encode: invalid UTF-8 at byte 0");
}
