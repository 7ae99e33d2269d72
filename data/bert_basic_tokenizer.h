#pragma once
// BERT's basic tokenizer, the part before WordPiece: Hugging Face's BertNormalizer (clean text,
// CJK spacing, accents, lower case) and BertPreTokenizer (white space, then punctuation), on
// text free of special tokens. Private to data/ (BertTokenizer's implementation).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/core/export.h"
#include "ember/data/bert_tokenizer.h"

namespace ember::data {

/// Calls word(w) for each word of text in order; w is valid during the call only. text must be
/// valid UTF-8.
EMBER_API void for_each_basic_word(std::string_view text, const BertTokenizerOptions& options,
                                   const std::function<void(std::string_view)>& word);

/// The same words the slow way, the whole text normalised at once and then split: the
/// reference for_each_basic_word's per-code-point shortcuts must agree with (tests).
EMBER_API std::vector<std::string> basic_words_reference(std::string_view text,
                                                         const BertTokenizerOptions& options);

}  // namespace ember::data
