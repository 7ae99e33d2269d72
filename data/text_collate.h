#pragma once
// The collate of a text classifier, as a PyTorch collate_fn would: tokenizes a batch's texts with
// a BertTokenizer, padding per batch, stacks the labels and can move the batch to a device.
#include <memory>
#include <optional>

#include "ember/core/device.h"
#include "ember/data/bert_tokenizer.h"
#include "ember/data/dataloader.h"

namespace ember::data {

struct TextCollateOptions {
  /// max_length, padding (Longest: to the batch's longest text), truncation.
  EncodeOptions encode{};
  /// Where the batch goes; unset keeps it on the CPU (DataLoaderOptions::device moves it too).
  std::optional<Device> device{};
};

/// A CollateFn (DataLoaderOptions::collate) for examples with text (TextClassificationDataset's):
/// a batch with the fields input_ids, attention_mask, token_type_ids [B, L] and lengths [B]
/// (int64), and labels [B] (with target = labels) when the examples have a "labels" field:
/// every example must have it when the first has (ValueError naming the example).
/// ValueError for a null tokenizer; the tokenizer's errors (invalid UTF-8 names texts[i]).
EMBER_API CollateFn text_collate(std::shared_ptr<const BertTokenizer> tokenizer,
                                 TextCollateOptions options = {});

}  // namespace ember::data
