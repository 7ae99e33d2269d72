#pragma once
// Command-line flags of the semantic_search example.
#include <string>
#include <vector>

namespace ember::examples {

struct SearchFlags {
  std::string model;            // a sentence-transformers directory (required)
  std::string docs;             // documents, one per line
  std::string index;            // the index file (.safetensors): reused when it matches, else written
  std::string device = "auto";  // auto | cpu | cuda | cuda:N
  int top_k = 5;
  int batch_size = 32;
  std::vector<std::string> queries;  // empty: read queries from standard input, one per line
  bool bf16 = false;  // the products in bfloat16 on the CPU (SentenceEncoder::set_weight_format)
  bool mmap = false;  // the weights mapped from the model's file (nn::LoadMode::Map)
  bool help = false;
};

/// Parses argv; std::invalid_argument with a one-line message for a bad flag or combination.
SearchFlags parse_search_flags(const std::vector<std::string>& args);
const char* search_usage();

}  // namespace ember::examples
