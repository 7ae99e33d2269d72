#include "flags.h"

#include <stdexcept>

#include "../common/flag_reader.h"

namespace ember::examples {

const char* search_usage() {
  return "usage: semantic_search --model DIR [--docs FILE] [--index FILE.safetensors]\n"
         "         [--top-k N] [--batch-size N] [--device auto|cpu|cuda|cuda:N] [--bf16] [--mmap]\n"
         "         [QUERY ...]\n"
         "Semantic search with a sentence-transformers model (all-MiniLM-L6-v2, say):\n"
         "  --docs FILE   the documents, one per line (empty lines skipped), embedded once;\n"
         "  --index FILE  where the embeddings and the documents are kept: reused when it was\n"
         "                made by the same model from the same documents, else (re)written;\n"
         "                with --index alone, the documents are the index's;\n"
         "  --bf16        on the CPU, the model's products in bfloat16 (float sums): half the\n"
         "                weights' memory, about twice as fast on CPUs with AVX512_BF16;\n"
         "  --mmap        map the model's weights from its file instead of reading them: on the\n"
         "                CPU about half the memory (the file must not change while this runs).\n"
         "Each QUERY argument, or else each line of standard input, prints the --top-k (5)\n"
         "documents closest to it, with their cosine similarity.\n";
}

SearchFlags parse_search_flags(const std::vector<std::string>& args) {
  SearchFlags f;
  FlagReader r(args);
  while (r.next()) {
    const std::string& flag = r.flag();
    if (flag == "--help" || flag == "-h")
      f.help = true;
    else if (flag == "--model")
      f.model = r.value();
    else if (flag == "--docs")
      f.docs = r.value();
    else if (flag == "--index")
      f.index = r.value();
    else if (flag == "--device")
      f.device = r.value();
    else if (flag == "--bf16")
      f.bf16 = true;
    else if (flag == "--mmap")
      f.mmap = true;
    else if (flag == "--top-k")
      f.top_k = r.number<int>();
    else if (flag == "--batch-size")
      f.batch_size = r.number<int>();
    else if (flag.rfind("-", 0) == 0 && flag != "-")
      r.unknown();
    else
      f.queries.push_back(flag);
  }
  if (f.help) return f;
  if (f.model.empty())
    throw std::invalid_argument("--model DIR is required (a sentence-transformers directory)");
  if (f.docs.empty() && f.index.empty())
    throw std::invalid_argument("give --docs FILE, --index FILE, or both");
  if (f.top_k < 1) throw std::invalid_argument("--top-k must be at least 1");
  if (f.batch_size < 1) throw std::invalid_argument("--batch-size must be at least 1");
  return f;
}

}  // namespace ember::examples
