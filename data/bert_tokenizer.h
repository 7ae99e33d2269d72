#pragma once
// BertTokenizer: BERT's WordPiece tokenizer read from a vocab.txt, with Hugging Face's
// batch_encode_plus semantics ([CLS] a [SEP] b [SEP], token type ids, longest-first
// truncation, padding) returning int64 CPU tensors. Matches transformers' BertTokenizer (the
// one on the Rust tokenizers library) token for token; tests/parity holds the corpus that
// checks it and tests/data/bert_tokenizer_test.cpp lists where the older Python tokenizer
// (BertTokenizerLegacy) differs.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::data {

/// How a BertTokenizer splits text (Hugging Face's names and defaults).
struct BertTokenizerOptions {
  /// Lower-case the text (special tokens excepted).
  bool do_lower_case = true;
  /// Remove accents: NFD, then drop the nonspacing marks (Mn). Unset: as do_lower_case.
  std::optional<bool> strip_accents;
  /// Every CJK ideograph (the ranges of Hugging Face's tokenizers) is a token of its own.
  bool tokenize_chinese_chars = true;
  std::string unk_token = "[UNK]";
  std::string sep_token = "[SEP]";
  std::string pad_token = "[PAD]";
  std::string cls_token = "[CLS]";
  std::string mask_token = "[MASK]";
  /// A word of more characters (code points) is one unk_token.
  size_t max_input_chars_per_word = 100;
  /// The longest input the model takes, special tokens included: EncodeOptions::max_length's
  /// default (tokenizer_config.json's model_max_length; transformers' "no limit" value reads
  /// as SIZE_MAX).
  size_t model_max_length = 512;
};

/// encode's padding: none, to the longest sequence of the batch, or to max_length.
enum class Padding { None, Longest, MaxLength };

/// encode / batch_encode options (Hugging Face's arguments of the same names).
struct EncodeOptions {
  /// The longest a sequence may be, special tokens included (when truncation is on), and the
  /// width of Padding::MaxLength. Unset: the tokenizer's model_max_length, as transformers.
  std::optional<size_t> max_length;
  Padding padding = Padding::Longest;
  /// Cut sequences to max_length; pairs "longest_first" (transformers' truncation=True).
  bool truncation = true;
  /// Add [CLS] and [SEP] (and type 1 for the second sequence of a pair).
  bool add_special_tokens = true;
};

/// One encoded sequence (or pair), as lists.
struct Encoding {
  std::vector<int64_t> input_ids;
  /// 1 for a real token, 0 for padding.
  std::vector<int64_t> attention_mask;
  /// 0 for the first sequence (and padding), 1 for the second of a pair.
  std::vector<int64_t> token_type_ids;
};

/// A batch of encodings: int64 CPU tensors [B, L] and lengths [B] (real tokens per row).
struct BatchEncoding {
  Tensor input_ids;
  Tensor attention_mask;
  Tensor token_type_ids;
  Tensor lengths;
};

/// BERT's tokenizer: a basic tokenizer (text cleaned of NUL, U+FFFD and control characters,
/// whitespace split, CJK ideographs and punctuation split off, lower case and accents
/// stripped when asked; special tokens found anywhere in the text and never split), then
/// WordPiece (greedy longest match, "##" continuations, unk_token for a word with no match or
/// of more than max_input_chars_per_word characters). Const methods may run on several
/// threads at once.
///
/// Errors: ValueError for input that is not UTF-8 ("BertTokenizer.<method>: invalid UTF-8 at
/// byte N of texts[i]"), for an empty vocabulary and for one without unk, sep, pad or cls token (the
/// message names the token); IOError for a vocab file that cannot be read or is not UTF-8.
class EMBER_API BertTokenizer {
 public:
  /// Reads vocab.txt: one token per line, the id is the line number (from 0). Lines end in
  /// "\n", "\r\n" or "\r" (Python's universal newlines, as Hugging Face reads the file); a
  /// final line without a newline counts, an empty line is the token "". A token that appears
  /// twice maps to its last line, as in Hugging Face (both lines keep their id for decoding).
  explicit BertTokenizer(const std::string& vocab_file, BertTokenizerOptions options = {});
  /// The same from the tokens themselves: tokens[i] has id i.
  explicit BertTokenizer(std::vector<std::string> tokens, BertTokenizerOptions options = {});

  /// The tokenizer of a transformers checkpoint directory, as AutoTokenizer.from_pretrained
  /// reads it: the options from tokenizer_config.json (do_lower_case, strip_accents,
  /// tokenize_chinese_chars, the special tokens, model_max_length) and special_tokens_map.json,
  /// where present, and the vocabulary from vocab.txt; a directory with only tokenizer.json (the
  /// tokenizers library's format: a BertNormalizer and a WordPiece model) works too, its
  /// normalizer and model then giving the options. Without either config file, transformers'
  /// defaults (lower case, 512 tokens). Errors: IOError when neither vocab.txt nor
  /// tokenizer.json can be read, or for a file that is not JSON; ValueError naming the file and
  /// the key for a value of the wrong type or a tokenizer that is not BERT's WordPiece.
  static BertTokenizer from_pretrained(const std::string& dir);

  /// The tokens of text (no special tokens added).
  std::vector<std::string> tokenize(const std::string& text) const;
  /// The ids of tokens; a token not in the vocabulary is unk_token's id.
  std::vector<int64_t> convert_tokens_to_ids(const std::vector<std::string>& tokens) const;
  /// The tokens of ids; IndexError for an id outside [0, vocab_size()).
  std::vector<std::string> convert_ids_to_tokens(const std::vector<int64_t>& ids) const;
  /// Text from ids as tokenizers' WordPiece decoder makes it: tokens joined by spaces, "##"
  /// continuations glued to the token before, no space before . ? ! , or in English
  /// contractions; the special tokens left out when skip_special_tokens (Hugging Face's
  /// default keeps them).
  std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = false) const;

  /// text (and pair) encoded: [CLS] text [SEP] (pair [SEP]), truncated and padded as options say
  /// (Padding::Longest pads nothing for one sequence). ValueError when truncation is on and
  /// max_length cannot hold the special tokens.
  Encoding encode(const std::string& text, const std::optional<std::string>& pair = std::nullopt,
                  const EncodeOptions& options = {}) const;
  /// texts encoded and padded into tensors. ValueError for Padding::None when the rows'
  /// lengths differ (a tensor cannot be ragged; Hugging Face says the same for
  /// return_tensors), and likewise for Padding::MaxLength without truncation when a row is
  /// longer than max_length. An empty batch gives [0, 0] tensors.
  BatchEncoding batch_encode(const std::vector<std::string>& texts, const EncodeOptions& options = {}) const;
  /// Sentence pairs: row i is texts[i] with pairs[i] (ValueError unless the lists are equally
  /// long).
  BatchEncoding batch_encode(const std::vector<std::string>& texts, const std::vector<std::string>& pairs,
                             const EncodeOptions& options = {}) const;

  /// Number of ids: the lines of the vocabulary (an embedding table needs this many rows; a
  /// duplicated token makes Hugging Face's len(tokenizer) smaller).
  size_t vocab_size() const { return tokens_.size(); }
  /// The id of token, or std::nullopt when it is not in the vocabulary.
  std::optional<int64_t> token_to_id(const std::string& token) const;
  int64_t unk_token_id() const { return unk_id_; }
  int64_t sep_token_id() const { return sep_id_; }
  int64_t pad_token_id() const { return pad_id_; }
  int64_t cls_token_id() const { return cls_id_; }
  /// mask_token's id, or -1 when the vocabulary has none (then "[MASK]" in text is plain text).
  int64_t mask_token_id() const { return mask_id_; }
  const BertTokenizerOptions& options() const { return options_; }

 private:
  // Names the input in errors: "text", "pairs[2]", or nothing (name null) when there is only
  // one; formatted only when an error is raised.
  struct Argument {
    const char* name = nullptr;
    size_t index = static_cast<size_t>(-1);  // none: not an item of a list
  };
  // One sequence's ids, no special tokens added; op and where name the input in errors.
  std::vector<int64_t> ids_of(const std::string& text, const char* op, Argument where) const;
  // The ids of text between special tokens: normalised, split into words, each word WordPiece'd.
  void append_plain_ids(std::string_view text, std::vector<int64_t>& out) const;
  void append_wordpiece_ids(std::string_view word, std::vector<int64_t>& out) const;
  Encoding build(std::vector<int64_t> a, std::optional<std::vector<int64_t>> b, const EncodeOptions& options,
                 const char* op) const;
  // options.max_length, or model_max_length when it is unset.
  size_t max_length_of(const EncodeOptions& options) const;
  BatchEncoding stack(std::vector<Encoding> rows, const EncodeOptions& options, const char* op) const;

  BertTokenizerOptions options_;
  std::vector<std::string> tokens_;
  // The vocabulary's lookups (data/token_table.h, not installed), built once and never changed
  // after, so copies of the tokenizer share them.
  struct Lookups;
  std::shared_ptr<const Lookups> lookups_;
  int64_t unk_id_ = -1, sep_id_ = -1, pad_id_ = -1, cls_id_ = -1, mask_id_ = -1;
  // The special tokens found in text, longest first.
  std::vector<std::string> never_split_;
  std::array<bool, 256> starts_special_{};  // the first bytes of never_split_
};

}  // namespace ember::data
