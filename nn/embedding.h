#pragma once
// Embedding: a lookup table of num_embeddings vectors, as torch.nn.Embedding.
#include <optional>

#include "ember/nn/module.h"

namespace ember::nn {

class EMBER_API Embedding : public Module {
 public:
  /// weight [num_embeddings, embedding_dim] drawn from N(0, 1) (PyTorch's init); the row at
  /// padding_idx (negative counts from the end) is zero and gets no gradient.
  Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx = std::nullopt);
  /// int64 indices of any shape -> [*indices.shape, embedding_dim].
  Tensor forward(const Tensor& indices) override;
  std::string extra_repr() const override;

  const int64_t num_embeddings, embedding_dim;
  const std::optional<int64_t> padding_idx;  // normalised to [0, num_embeddings)
  Tensor weight;
};

}  // namespace ember::nn
