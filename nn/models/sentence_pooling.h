#pragma once
// Sentence-transformers' Pooling module: the token states of a padded batch reduced to one
// vector per sentence. Read from a sentence-transformers directory's 1_Pooling/config.json, in
// either of its formats: "pooling_mode" (a mode or a list of modes, sentence-transformers 6) or
// the pooling_mode_*_token(s) flags (older releases, as all-MiniLM-L6-v2 ships).
#include <string>
#include <vector>

#include "ember/core/export.h"
#include "ember/core/tensor.h"

namespace ember::nn::models {

/// How token states become one vector (sentence-transformers' names).
enum class PoolingMode {
  Cls,                // the first real token's state ([CLS] with right padding)
  Max,                // the elementwise maximum over the real tokens
  Mean,               // the mean over the real tokens
  MeanSqrtLenTokens,  // the sum over the real tokens / sqrt(their count)
  WeightedMean,       // real tokens weighted 1, 2, 3, ... by position
  LastToken,          // the last real token's state
};

/// sentence-transformers' name of mode ("cls", "max", "mean", "mean_sqrt_len_tokens",
/// "weightedmean", "lasttoken").
EMBER_API const char* pooling_mode_name(PoolingMode mode);

struct EMBER_API SentencePooling {
  /// The modes whose vectors are concatenated, in order (sentence-transformers' order).
  std::vector<PoolingMode> modes{PoolingMode::Mean};

  /// Reads a 1_Pooling/config.json. ValueError naming the file and the key for an unknown mode,
  /// no mode, include_prompt false (prompts are not supported), or a value of the wrong type;
  /// IOError for a file that cannot be read or is not JSON.
  static SentencePooling from_json_file(const std::string& path);

  /// hidden [B, L, H] (float) and attention_mask [B, L] (1 real, 0 padding; right-padded rows,
  /// as a tokenizer gives them) -> [B, H * modes.size()], on hidden's device. A row with no real
  /// token gives zeros for mean, mean_sqrt_len_tokens and weightedmean (their counts are
  /// clamped to 1e-9, as sentence-transformers does) and -inf for max.
  Tensor operator()(const Tensor& hidden, const Tensor& attention_mask) const;
};

}  // namespace ember::nn::models
