#pragma once
// Hugging Face parity of nn::models::Bert: the directories tests/parity/make_bert_fixtures.py
// wrote with transformers (config.json, model.safetensors, io.safetensors) loaded with
// Bert::from_pretrained onto a device and compared under docs/DESIGN.md's tolerance:
// last_hidden_state, pooler_output (also with a sequence fully masked) and one fine-tuning step
// of a classifier on the [CLS] state. tests/nn runs them on the CPU, tests/cuda on cuda:0 and cuda:1.
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

/// The fixture directories' names (under tests/parity/fixtures).
const std::vector<std::string>& bert_parity_cases();
/// Runs one case on device: gtest failures name the tensor, the element and both values.
void run_bert_parity_case(const std::string& name, Device device);

}  // namespace ember::test
