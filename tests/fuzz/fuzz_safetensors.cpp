// safetensors decoding on any bytes, then an encode + decode round trip of whatever
// decoded: the same names, dtypes, shapes, bytes and metadata, and a stable encoding.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ember/core/error.h"
#include "ember/nn/serialization.h"
#include "fuzz_support.h"

namespace {
bool same(const ember::nn::SafetensorsContents& a, const ember::nn::SafetensorsContents& b) {
  // Encoding orders tensors by element size, so the header order may change: compare sets.
  auto sorted = [](std::vector<std::string> k) {
    std::sort(k.begin(), k.end());
    return k;
  };
  if (a.metadata != b.metadata || sorted(a.tensors.keys()) != sorted(b.tensors.keys())) return false;
  for (const auto& [name, t] : a.tensors) {
    const ember::Tensor& u = b.tensors.at(name);
    if (t.dtype() != u.dtype() || t.shape() != u.shape()) return false;
    const size_t n = static_cast<size_t>(t.numel()) * ember::itemsize(t.dtype());
    if (n && std::memcmp(t.raw_data(), u.raw_data(), n) != 0) return false;
  }
  return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::fuzz::cap_allocations();
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  ember::nn::SafetensorsContents first;
  try {
    first = ember::nn::decode_safetensors(bytes);
  } catch (const ember::Error&) {
    return 0;
  }
  // What decoded must encode, and decode back to itself.
  const std::string encoded = ember::nn::encode_safetensors(first.tensors, first.metadata);
  const ember::nn::SafetensorsContents second = ember::nn::decode_safetensors(encoded);
  if (!same(first, second)) std::abort();
  if (ember::nn::encode_safetensors(second.tensors, second.metadata) != encoded) std::abort();
  return 0;
}
