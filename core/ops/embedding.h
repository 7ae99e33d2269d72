#pragma once
// embedding: rows of a weight table picked by int64 indices, as torch.nn.functional.embedding.
#include <optional>

#include "ember/core/tensor.h"

namespace ember {

/// weight [num_embeddings, dim] rows at indices (int64, any shape) -> [*indices.shape, dim].
/// Indices and weight must share a device (DeviceMismatchError naming "indices"); an index
/// outside [0, num_embeddings) is an IndexError on every device. The row at padding_idx
/// (negative counts from the end) gets no gradient, as in PyTorch.
EMBER_API Tensor embedding(const Tensor& indices, const Tensor& weight,
                           std::optional<int64_t> padding_idx = std::nullopt);

/// padding_idx in [0, num_embeddings) (a negative one counts from the end; nullopt stays
/// nullopt), as embedding and nn::Embedding read it. ValueError "<op>: padding_idx must be
/// within num_embeddings (<num_embeddings>), got <padding_idx>" outside [-num_embeddings,
/// num_embeddings).
EMBER_API std::optional<int64_t> normalize_padding_idx(const char* op, std::optional<int64_t> padding_idx,
                                                       int64_t num_embeddings);

}  // namespace ember
