#pragma once
// The text classifier's default model, also what bench/text times: small enough to train in
// minutes on two CPU cores (hidden 128, 2 layers, 4 heads: the configuration the issue's
// transformers reference used).
#include <algorithm>

#include "ember/nn/models/bert_config.h"

namespace ember::examples {

inline nn::models::BertConfig small_config(int64_t vocab_size, int64_t max_length) {
  nn::models::BertConfig c;
  c.vocab_size = vocab_size;
  c.hidden_size = 128;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.intermediate_size = 512;
  c.max_position_embeddings = std::max<int64_t>(128, max_length);
  return c;
}

}  // namespace ember::examples
