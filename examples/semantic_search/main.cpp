// semantic_search: embeds a file of documents once with a sentence-transformers model (read by
// nn::models::SentenceEncoder), keeps them in an index file, and answers queries with the
// documents closest in meaning (cosine similarity of the embeddings).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../common/console.h"
#include "ember/ember.h"
#include "ember/nn/models/sentence_encoder.h"
#include "flags.h"
#include "search_index.h"

using namespace ember;
using examples::SearchFlags;
using examples::SearchIndex;
namespace fs = std::filesystem;

namespace {

// Rows scaled to unit length, so that dot products are cosines.
Tensor unit_rows(const Tensor& e) { return e / maximum(sqrt(sum(e * e, {-1}, true)), 1e-12); }

SearchIndex build_index(const nn::models::SentenceEncoder& encoder, const SearchFlags& f,
                        const std::string& model) {
  SearchIndex index;
  index.model = model;
  index.documents = examples::read_documents(f.docs);
  if (index.documents.empty())
    throw std::invalid_argument("\"" + f.docs + "\" holds no document (no non-empty line)");
  if (!f.index.empty()) nn::check_writable(f.index);  // before the long part
  examples::ProgressBar bar(isatty(STDOUT_FILENO));
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  nn::models::SentenceEncodeOptions o;
  o.batch_size = static_cast<size_t>(f.batch_size);
  o.progress = [&](size_t done, size_t total) {
    char rate[48];
    std::snprintf(rate, sizeof rate, "  %.0f sentences/s", static_cast<double>(done) / seconds());
    bar.show("embedding", done, total, rate);
  };
  index.embeddings = unit_rows(encoder.encode(index.documents, o));
  bar.clear();
  const double s = seconds();
  std::printf("Embedded %zu documents in %.2f s (%.0f sentences/s)\n", index.documents.size(), s,
              static_cast<double>(index.documents.size()) / s);
  if (!f.index.empty()) {
    index.save(f.index);
    std::printf("Saved the index to %s\n", f.index.c_str());
  }
  return index;
}

// The index to search: the --index file when it was made by this model from these documents
// (or --docs is not given), else built from --docs.
SearchIndex open_index(const nn::models::SentenceEncoder& encoder, const SearchFlags& f) {
  const std::string model = fs::weakly_canonical(f.model).string();
  if (!f.index.empty() && fs::exists(f.index)) {
    SearchIndex stored = SearchIndex::load(f.index);
    const bool same_model = stored.model == model && stored.embeddings.size(1) == encoder.dimension();
    if (f.docs.empty() && !same_model)
      throw std::invalid_argument("the index \"" + f.index + "\" was made with the model \"" + stored.model +
                                  "\", not \"" + model + "\"; give --docs FILE to rebuild it");
    if (f.docs.empty() || (same_model && stored.documents == examples::read_documents(f.docs))) {
      std::printf("Loaded the index of %zu documents from %s\n", stored.documents.size(), f.index.c_str());
      return stored;
    }
    std::printf("The index %s was made from other documents or by another model: rebuilding it\n",
                f.index.c_str());
  }
  return build_index(encoder, f, model);
}

void answer(const nn::models::SentenceEncoder& encoder, const SearchIndex& index, const std::string& query,
            int k) {
  const Tensor q = unit_rows(encoder.encode(query));
  std::printf("\nquery: %s\n", query.c_str());
  int rank = 0;
  for (const auto& [doc, score] : index.top_k(q, static_cast<size_t>(k)))
    std::printf("  %d. %.4f  %s\n", ++rank, static_cast<double>(score), index.documents[doc].c_str());
}

}  // namespace

int main(int argc, char** argv) {
  SearchFlags f;
  try {
    f = examples::parse_search_flags(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "semantic_search: %s\n", e.what());
    return 2;
  }
  if (f.help) {
    std::fputs(examples::search_usage(), stdout);
    return 0;
  }
  try {
    // Before the model loads: a search with nothing to search.
    if (f.docs.empty() && !fs::exists(f.index))
      throw std::invalid_argument("the index \"" + f.index +
                                  "\" does not exist; give --docs FILE to build it");
    const Device device = examples::resolve_device(f.device);
    const auto encoder = nn::models::SentenceEncoder::from_pretrained(
        f.model, device, f.mmap ? nn::LoadMode::Map : nn::LoadMode::Read);
    if (f.bf16) encoder->set_weight_format(PackFormat::BFloat16);
    std::printf("Model %s: %lld-dimensional embeddings, up to %zu tokens, on %s%s%s%s\n", f.model.c_str(),
                static_cast<long long>(encoder->dimension()), encoder->max_seq_length, device.str().c_str(),
                cuda::device_note(device), f.bf16 ? ", bfloat16 products" : "",
                f.mmap ? ", weights mapped" : "");
    const SearchIndex index = open_index(*encoder, f);
    if (!f.queries.empty()) {
      for (const std::string& q : f.queries) answer(*encoder, index, q, f.top_k);
      return 0;
    }
    const bool interactive = isatty(STDIN_FILENO);
    for (std::string line;;) {
      if (interactive) std::printf("\nquery> "), std::fflush(stdout);
      if (!std::getline(std::cin, line)) break;
      if (line.find_first_not_of(" \t\r") != std::string::npos) answer(*encoder, index, line, f.top_k);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "semantic_search: %s\n", examples::first_line(e.what()).c_str());
    return 1;
  }
}
