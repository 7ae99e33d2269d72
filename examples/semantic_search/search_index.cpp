#include "search_index.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <sstream>

#include "ember/core/io/file_io.h"

namespace ember::examples {
namespace {

constexpr const char* kFormat = "ember.semantic_search.v1";

}  // namespace

void SearchIndex::save(const std::string& path) const {
  std::string bytes;
  std::vector<int64_t> offsets{0};
  for (const std::string& d : documents) {
    bytes += d;
    offsets.push_back(static_cast<int64_t>(bytes.size()));
  }
  std::vector<uint8_t> raw(bytes.begin(), bytes.end());
  nn::StateDict state;
  state.insert("embeddings", embeddings);
  state.insert("text_bytes", from_vector(raw, Shape{static_cast<int64_t>(raw.size())}));
  state.insert("text_offsets", from_vector(offsets, Shape{static_cast<int64_t>(offsets.size())}));
  nn::save_file(state, path, {{"format", kFormat}, {"model", model}});
}

SearchIndex SearchIndex::load(const std::string& path) {
  const nn::SafetensorsContents c = nn::load_file_with_metadata(path);
  const auto format = c.metadata.find("format");
  if (format == c.metadata.end() || format->second != kFormat)
    raise<ValueError>("\"", path, "\" is not a semantic_search index (no \"format\": \"", kFormat,
                      "\" metadata)");
  SearchIndex index;
  index.model = c.metadata.count("model") ? c.metadata.at("model") : "";
  const Tensor* e = c.tensors.find("embeddings");
  const Tensor* bytes = c.tensors.find("text_bytes");
  const Tensor* offsets = c.tensors.find("text_offsets");
  if (!e || !bytes || !offsets || e->dim() != 2 || e->dtype() != kFloat32 || bytes->dtype() != kUInt8 ||
      offsets->dtype() != kInt64 || offsets->dim() != 1 || offsets->size(0) != e->size(0) + 1)
    raise<ValueError>("\"", path, "\" is a damaged semantic_search index (its tensors do not fit together)");
  const auto raw = bytes->to_vector<uint8_t>();
  const auto at = offsets->to_vector<int64_t>();
  for (size_t i = 0; i + 1 < at.size(); ++i) {
    if (at[i] < 0 || at[i] > at[i + 1] || static_cast<size_t>(at[i + 1]) > raw.size())
      raise<ValueError>("\"", path, "\" is a damaged semantic_search index (text_offsets[", i + 1,
                        "] is out of range)");
    index.documents.emplace_back(raw.begin() + at[i], raw.begin() + at[i + 1]);
  }
  index.embeddings = *e;
  return index;
}

std::vector<std::pair<size_t, float>> SearchIndex::top_k(const Tensor& query, size_t k) const {
  const std::vector<float> scores = matmul(embeddings, query).to_vector<float>();
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), size_t{0});
  k = std::min(k, order.size());
  std::partial_sort(
      order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
      [&](size_t a, size_t b) { return scores[a] > scores[b] || (scores[a] == scores[b] && a < b); });
  std::vector<std::pair<size_t, float>> out;
  for (size_t i = 0; i < k; ++i) out.emplace_back(order[i], scores[order[i]]);
  return out;
}

std::vector<std::string> read_documents(const std::string& path) {
  std::istringstream in(io::read_file(path, "semantic_search"));
  std::vector<std::string> docs;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) docs.push_back(line);
  }
  return docs;
}

}  // namespace ember::examples
