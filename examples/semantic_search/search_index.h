#pragma once
// The semantic_search example's index: the documents and their unit-length embeddings, kept in
// one safetensors file (embeddings float32 [N, D]; the documents' UTF-8 bytes, uint8, and their
// offsets, int64 [N + 1]; the model's directory in the metadata), so that queries need only it.
#include <string>
#include <utility>
#include <vector>

#include "ember/ember.h"

namespace ember::examples {

struct SearchIndex {
  std::string model;  // the model directory that made the embeddings
  std::vector<std::string> documents;
  Tensor embeddings;  // float32 [documents, D] on the CPU, rows of unit length

  /// Writes the index atomically (IOError from save_file).
  void save(const std::string& path) const;
  /// Reads an index file; IOError / ValueError naming the path for a file that is not one.
  static SearchIndex load(const std::string& path);
  /// The k documents closest to the unit-length query [D]: (index, cosine), best first.
  std::vector<std::pair<size_t, float>> top_k(const Tensor& query, size_t k) const;
};

/// The lines of a documents file, empty ones skipped (a final "\r" dropped).
std::vector<std::string> read_documents(const std::string& path);

}  // namespace ember::examples
