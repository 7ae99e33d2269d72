#pragma once
// PyTorch parity of the transformer toolkit: the fixtures tests/parity/make_transformer_fixtures.py
// wrote (inputs, PyTorch's parameters, float64 outputs and gradients) run through Ember on a
// device and compared under docs/DESIGN.md's tolerance. tests/nn runs them on the CPU,
// tests/cuda on cuda:0 and cuda:1 (the real CUDA kernels, or the emulator's).
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

/// gtest failures unless |got - ref| <= sqrt(k) * (1e-6 + 1e-5 |ref|) everywhere (docs/DESIGN.md),
/// k the reduction lengths along the longest path from the inputs to the value; what names it.
/// got may live on any device; ref is on the CPU.
void expect_parity_close(const Tensor& got, const Tensor& ref, double k, const std::string& what);

/// Every fixture's name (the file under tests/parity/fixtures without ".safetensors").
const std::vector<std::string>& transformer_parity_cases();
/// Runs one fixture on device: gtest failures name the tensor, the element and both values.
void run_transformer_parity_case(const std::string& name, Device device);

}  // namespace ember::test
