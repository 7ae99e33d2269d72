#pragma once
// Bert's packed path (set_skip_padding) against its padded path on one device: the same
// model, batch and head, once computing padding and once skipping it. Shared by the CPU suite
// (tests/nn/bert_packing_test.cpp) and the CUDA one (tests/cuda/bert_packing_cuda_test.cpp).
#include "ember/ember.h"

namespace ember::test {

/// A small Bert (hidden 32, 2 layers, 4 heads) in float64 without dropout, and a batch of
/// four sequences of lengths 7, 3, 9 (no padding: the longest) and 1, with token types.
struct PackingCase {
  std::shared_ptr<nn::models::Bert> bert;
  std::shared_ptr<nn::Linear> head;  // Linear(32, 2) on the [CLS] state
  Tensor input_ids, attention_mask, token_type_ids, labels;
};
PackingCase make_packing_case(Device device, DType dtype = kFloat64);

/// Checks, with gtest assertions, on `device`: last_hidden_state at every real position and
/// pooler_output within tol of the padded path's, zeros at padded positions; one training
/// step's loss and every parameter's gradient within tol.
void expect_packing_matches_padding(Device device, DType dtype, double tol);

}  // namespace ember::test
