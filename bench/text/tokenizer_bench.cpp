// ember_bench_tokenizer: BertTokenizer::batch_encode of the whole bundled review corpus
// (17,364 reviews, the bundled vocab.txt, max_length 128 with truncation, padded to the
// longest), on one thread. Row: tokenizer_batch_encode/cpu/17364/threads:1, reviews per second
// as items_per_second. With EMBER_BENCH_TOKENIZER_IDS=<file> it first writes the ids (int64
// little-endian: rows, columns, then the [rows, columns] ids) for bench/tokenizer_twin.py,
// which checks that Hugging Face's tokenizers give the same ids and times them.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "bench/common/bench_devices.h"
#include "examples/common/bundled_data.h"

namespace {
using namespace ember;

constexpr size_t kMaxLength = 128;

void write_ids(const char* path, const Tensor& ids) {
  std::FILE* f = std::fopen(path, "wb");
  if (!f) throw IOError(std::string("cannot write ") + path);
  const int64_t shape[2] = {ids.size(0), ids.size(1)};
  const std::vector<int64_t> v = ids.to_vector<int64_t>();
  std::fwrite(shape, sizeof(int64_t), 2, f);
  std::fwrite(v.data(), sizeof(int64_t), v.size(), f);
  if (std::fclose(f) != 0) throw IOError(std::string("cannot write ") + path);
}

void BM_BatchEncode(benchmark::State& state) {
  const char* instead = "copy or link examples/data to data/ beside this binary";
  const data::BertTokenizer tokenizer(examples::reviews_vocab_path(instead));
  const data::TextClassificationDataset corpus = data::load_reviews(examples::reviews_path(instead));
  const std::vector<std::string>& texts = corpus.texts();
  data::EncodeOptions options;
  options.max_length = kMaxLength;
  if (const char* path = std::getenv("EMBER_BENCH_TOKENIZER_IDS"))
    write_ids(path, tokenizer.batch_encode(texts, options).input_ids);
  const double s = bench::timed_loop(state, Device::cpu(), 1, [&] {
    benchmark::DoNotOptimize(tokenizer.batch_encode(texts, options).input_ids);
  });
  bench::report_rate(state, "items_per_second", static_cast<double>(texts.size()), s);
}

const bool registered = [] {
  benchmark::RegisterBenchmark("tokenizer_batch_encode/cpu/17364/threads:1", BM_BatchEncode)
      ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
