// The text benchmarks' batches, shared by Ember's rows and the LibTorch twin's: the first
// batches of examples/text_classifier's training loader (the bundled reviews, shuffled with
// seed 0, batch 32, max_length 128, padded to each batch's longest review), so both sides
// time the same real review lengths. Ember writes them to a file (EMBER_BENCH_TEXT_BATCHES)
// that the twin reads; the format is plain little-endian int64s:
//   vocab_size, count, then per batch: B, L, input_ids[B*L], attention_mask[B*L], token_type_ids[B*L],
//   labels[B].
// Header-only and free of Ember and LibTorch types, so both binaries include it.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace ember::bench {

struct ReviewBatch {
  int64_t batch = 0, length = 0;
  std::vector<int64_t> input_ids, attention_mask, token_type_ids, labels;

  int64_t real_tokens() const {
    int64_t n = 0;
    for (int64_t m : attention_mask) n += m != 0;
    return n;
  }
};

// Forward + backward FLOPs of one step of a BERT (hidden H, layers, intermediate I) on
// sequences of the given real lengths, counting the products only (2 per multiply-add):
// per token and layer the four H x H projections and the two H x I ones, per sequence of n
// tokens and layer 2 n^2 H for the scores and the weighted values; backward twice forward.
inline double bert_step_flops(const std::vector<int64_t>& lengths, int64_t H, int64_t layers, int64_t I) {
  double macs = 0;
  for (int64_t n : lengths) {
    const double dn = static_cast<double>(n);
    macs += static_cast<double>(layers) *
            (dn * static_cast<double>(4 * H * H + 2 * H * I) + 2.0 * dn * dn * static_cast<double>(H));
  }
  return 3.0 * 2.0 * macs;
}

inline std::vector<int64_t> sequence_lengths(const ReviewBatch& b) {
  std::vector<int64_t> out(static_cast<size_t>(b.batch), 0);
  for (int64_t i = 0; i < b.batch; ++i)
    for (int64_t j = 0; j < b.length; ++j)
      out[static_cast<size_t>(i)] += b.attention_mask[static_cast<size_t>(i * b.length + j)] != 0;
  return out;
}

struct ReviewBatches {
  int64_t vocab_size = 0;  // the tokenizer's: the embedding table's rows
  std::vector<ReviewBatch> batches;
};

// The rows both binaries register: the training step and batch-1 inference at the two
// lengths, at 1 and 2 threads. register_row(name, length, threads) with length 0 for the step;
// it returns the benchmark, whose unit this sets.
template <class Register>
void register_text_rows(Register register_row) {
  for (int threads : {1, 2}) {
    const std::string t = "/threads:" + std::to_string(threads);
    register_row("bert_train_step/cpu/32" + t, int64_t{0}, threads)->Unit(benchmark::kMillisecond);
    for (int64_t length : {128, 48})
      register_row("bert_infer/cpu/1/" + std::to_string(length) + t, length, threads)
          ->Unit(benchmark::kMicrosecond);
  }
}

inline void write_review_batches(const std::string& path, const ReviewBatches& data) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + path);
  auto put = [&](const int64_t* p, size_t n) { std::fwrite(p, sizeof(int64_t), n, f); };
  const auto count = static_cast<int64_t>(data.batches.size());
  put(&data.vocab_size, 1);
  put(&count, 1);
  for (const ReviewBatch& b : data.batches) {
    put(&b.batch, 1);
    put(&b.length, 1);
    for (const auto* v : {&b.input_ids, &b.attention_mask, &b.token_type_ids, &b.labels})
      put(v->data(), v->size());
  }
  if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + path);
}

inline ReviewBatches read_review_batches(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw std::runtime_error("cannot read " + path +
                             " (run ember_bench_text with EMBER_BENCH_TEXT_BATCHES first)");
  auto get = [&](int64_t* p, size_t n) {
    if (std::fread(p, sizeof(int64_t), n, f) != n) throw std::runtime_error(path + " is truncated");
  };
  ReviewBatches out;
  int64_t count = 0;
  get(&out.vocab_size, 1);
  get(&count, 1);
  out.batches.resize(static_cast<size_t>(count));
  for (ReviewBatch& b : out.batches) {
    get(&b.batch, 1);
    get(&b.length, 1);
    const auto n = static_cast<size_t>(b.batch * b.length);
    for (auto* v : {&b.input_ids, &b.attention_mask, &b.token_type_ids}) {
      v->resize(n);
      get(v->data(), n);
    }
    b.labels.resize(static_cast<size_t>(b.batch));
    get(b.labels.data(), b.labels.size());
  }
  std::fclose(f);
  return out;
}

}  // namespace ember::bench
