#include "ember/nn/embedding.h"

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/embedding.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/views.h"
#include "ember/nn/init.h"

namespace ember::nn {

Embedding::Embedding(int64_t num, int64_t dim, std::optional<int64_t> padding)
    : Module("Embedding"),
      num_embeddings(num),
      embedding_dim(dim),
      padding_idx(num < 0 || dim < 0 ? std::nullopt : normalize_padding_idx("Embedding", padding, num)) {
  if (num < 0 || dim < 0)
    raise<ValueError>("Embedding: sizes must be >= 0, got num_embeddings=", num, " embedding_dim=", dim);
  weight = register_parameter("weight", empty({num, dim}));
  init::normal_(weight);
  if (padding_idx) {
    NoGradGuard no_grad;
    Tensor row = weight.select(0, *padding_idx);
    init::zeros_(row);
  }
}

Tensor Embedding::forward(const Tensor& indices) { return embedding(indices, weight, padding_idx); }

std::string Embedding::extra_repr() const {
  std::string s = ember::detail::concat(num_embeddings, ", ", embedding_dim);
  if (padding_idx) s += ember::detail::concat(", padding_idx=", *padding_idx);
  return s;
}

}  // namespace ember::nn
