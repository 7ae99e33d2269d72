// ember_bench_text: the BERT text classifier's training step and batch-1 inference
// (examples/text_classifier's default model: hidden 128, 2 layers, 4 heads, intermediate 512,
// GELU, dropout 0.1; a Linear(128, 2) head on the [CLS] state; cross-entropy, AdamW lr 5e-4,
// gradient clipping at 1.0), on CPU at 1 and 2 threads, and on cuda:0 (one host thread) when
// a GPU is usable. Rows (<dev> cpu or cuda:0):
//   bert_train_step/<dev>/32/threads:<n>         Ember's way: padding skipped (Bert::set_skip_padding)
//   bert_train_step_padded/<dev>/32/threads:<n>  the same step computing the padding, as transformers
//   bert_infer/<dev>/1/<L>/threads:<n>           one review of true length L (128, 48: the corpus's
//                                                median), eval mode, no autograd, the linears'
//                                                weights packed once (nn::pack_linear_weights;
//                                                CUDA has no packed form, so there it is a no-op)
//   bert_infer_unpacked/cpu/1/<L>/threads:<n>    the same without packing (sgemm packs at each call)
// The GPU rows' PyTorch eager twin is bench/bert_twin.py (tests/gpu/run.sh runs both).
// The steps cycle through the first 16 batches of the example's training loader (review_batches.h);
// items_per_second counts examples, real_gflops the step's real FLOPs (bert_step_flops) per second.
// With EMBER_BENCH_TEXT_BATCHES=<file> it writes those batches there first, for the LibTorch
// twin (bench/torch/libtorch_bert_bench.cpp).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>

#include "bench/common/bench_devices.h"
#include "bench/text/review_batches.h"
#include "examples/common/bundled_data.h"
#include "examples/text_classifier/small_config.h"

namespace {
using namespace ember;
using nn::models::Bert;
using nn::models::BertConfig;

constexpr size_t kBatches = 16;
// What to do when the bundled corpus is not found beside the binary or in the source tree.
constexpr const char* kNoCorpus = "copy or link examples/data to data/ beside this binary";
constexpr int64_t kBatchSize = 32, kMaxLength = 128;

BertConfig bench_config(int64_t vocab_size) { return examples::small_config(vocab_size, kMaxLength); }

const bench::ReviewBatches& corpus() {
  static const bench::ReviewBatches c = [] {
    bench::ReviewBatches out;
    auto tokenizer = std::make_shared<data::BertTokenizer>(examples::reviews_vocab_path(kNoCorpus));
    out.vocab_size = static_cast<int64_t>(tokenizer->vocab_size());
    const auto split = data::train_test_split(data::load_reviews(examples::reviews_path(kNoCorpus)),
                                              examples::Reviews::kTestFraction, examples::Reviews::kSeed);
    data::TextCollateOptions collate;
    collate.encode.max_length = static_cast<size_t>(kMaxLength);
    data::DataLoaderOptions opts;
    opts.batch_size = static_cast<size_t>(kBatchSize);
    opts.shuffle = true;
    opts.seed = 0;
    opts.collate = data::text_collate(tokenizer, collate);
    data::DataLoader loader(std::make_shared<data::TextClassificationDataset>(split.first), opts);
    for (data::Batch& b : loader) {
      bench::ReviewBatch r;
      r.batch = b.field("input_ids").size(0);
      r.length = b.field("input_ids").size(1);
      r.input_ids = b.field("input_ids").to_vector<int64_t>();
      r.attention_mask = b.field("attention_mask").to(kInt64).to_vector<int64_t>();
      r.token_type_ids = b.field("token_type_ids").to_vector<int64_t>();
      r.labels = b.field("labels").to_vector<int64_t>();
      out.batches.push_back(std::move(r));
      if (out.batches.size() == kBatches) break;
    }
    if (const char* path = std::getenv("EMBER_BENCH_TEXT_BATCHES")) bench::write_review_batches(path, out);
    return out;
  }();
  return c;
}

struct Inputs {
  Tensor ids, mask, types, labels;
  double flops;
};

Inputs to_tensors(const bench::ReviewBatch& b, const BertConfig& c, Device d) {
  const Shape s{b.batch, b.length};
  return {from_vector(b.input_ids, s).to(d), from_vector(b.attention_mask, s).to(d),
          from_vector(b.token_type_ids, s).to(d), from_vector(b.labels, {b.batch}).to(d),
          bench::bert_step_flops(bench::sequence_lengths(b), c.hidden_size, c.num_hidden_layers,
                                 c.intermediate_size)};
}

// examples/text_classifier's SequenceClassifier with [CLS] pooling.
struct Classifier : nn::Module {
  std::shared_ptr<Bert> bert;
  std::shared_ptr<nn::Dropout> dropout;
  std::shared_ptr<nn::Linear> head;
  explicit Classifier(const BertConfig& c) : nn::Module("Classifier") {
    bert = register_module("bert", std::make_shared<Bert>(c));
    dropout = register_module("dropout", std::make_shared<nn::Dropout>(c.hidden_dropout_prob));
    head = register_module("classifier", std::make_shared<nn::Linear>(c.hidden_size, 2));
  }
  Tensor logits(const Inputs& in) {
    return head->forward(
        dropout->forward(bert->forward(in.ids, in.mask, in.types).last_hidden_state.select(1, 0)));
  }
  Tensor forward(const Tensor&) override { raise<NotImplementedError>("Classifier: call logits"); }
};

void BM_TrainStep(benchmark::State& state, Device d, bool skip_padding, int threads) {
  manual_seed(0);
  const bench::ReviewBatches& data = corpus();
  const BertConfig config = bench_config(data.vocab_size);
  auto model = std::make_shared<Classifier>(config);
  model->to(d);
  model->bert->set_skip_padding(skip_padding);
  model->train();
  nn::AdamWOptions o;
  o.lr = 5e-4;
  nn::AdamW opt(model->parameters(), o);
  std::vector<Inputs> inputs;
  for (const auto& b : data.batches) inputs.push_back(to_tensors(b, config, d));
  size_t next = 0;
  double flops = 0;
  const double s = bench::timed_loop(state, d, threads, [&] {
    const Inputs& in = inputs[next++ % inputs.size()];
    flops += in.flops;
    opt.zero_grad();
    cross_entropy(model->logits(in), in.labels).backward();
    nn::utils::clip_grad_norm_(model->parameters(), 1.0);
    opt.step();
  });
  flops -= inputs[0].flops;  // the warm-up step is not timed
  bench::report_rate(state, "items_per_second", static_cast<double>(kBatchSize), s);
  state.counters["real_gflops"] = flops / s * 1e-9;
}

// One review of true length `length`: the first training review at least that long, cut.
void BM_Infer(benchmark::State& state, Device d, int64_t length, int threads, bool packed) {
  manual_seed(0);
  const bench::ReviewBatches& data = corpus();
  const BertConfig config = bench_config(data.vocab_size);
  auto bert = std::make_shared<Bert>(config);
  bert->to(d);
  bert->eval();
  if (packed) nn::pack_linear_weights(*bert);
  std::vector<int64_t> ids;
  for (const auto& b : data.batches)
    for (int64_t i = 0; i < b.batch && ids.empty(); ++i) {
      const auto lengths = bench::sequence_lengths(b);
      if (lengths[static_cast<size_t>(i)] < length) continue;
      const auto* row = b.input_ids.data() + i * b.length;
      ids.assign(row, row + length);
    }
  const Tensor x = from_vector(ids, {1, length}).to(d);
  NoGradGuard no_grad;
  const double s = bench::timed_loop(state, d, threads, [&] {
    benchmark::DoNotOptimize(bert->forward(x, Tensor(), Tensor()).last_hidden_state);
  });
  bench::report_rate(state, "items_per_second", 1.0, s);
}

const bool registered = [] {
  // The twin's batches exist as soon as the binary starts, whatever rows a filter picks.
  if (std::getenv("EMBER_BENCH_TEXT_BATCHES")) corpus();
  const Device cpu = Device::cpu();
  bench::register_text_rows([&](const std::string& name, int64_t length, int threads) {
    const std::string rest = name.substr(name.find('/'));
    if (length == 0) {
      // Beside Ember's step, the same step computing the padding, as transformers does.
      benchmark::RegisterBenchmark(("bert_train_step_padded" + rest).c_str(), BM_TrainStep, cpu, false,
                                   threads)
          ->Unit(benchmark::kMillisecond);
      return benchmark::RegisterBenchmark(name.c_str(), BM_TrainStep, cpu, true, threads);
    }
    benchmark::RegisterBenchmark(("bert_infer_unpacked" + rest).c_str(), BM_Infer, cpu, length, threads,
                                 false)
        ->Unit(benchmark::kMicrosecond);
    return benchmark::RegisterBenchmark(name.c_str(), BM_Infer, cpu, length, threads, true);
  });
  // The GPU's rows (bench/bert_twin.py times PyTorch eager on the same batches).
  for (Device d : bench::devices()) {
    if (d.is_cpu()) continue;
    for (int threads : bench::thread_counts(d)) {
      const std::string t = bench::threads_suffix(threads), dev = "/" + d.str();
      for (bool skip : {true, false})
        benchmark::RegisterBenchmark(
            ((skip ? "bert_train_step" : "bert_train_step_padded") + dev + "/32" + t).c_str(), BM_TrainStep,
            d, skip, threads)
            ->Unit(benchmark::kMillisecond);
      for (int64_t length : {128, 48})
        benchmark::RegisterBenchmark(("bert_infer" + dev + "/1/" + std::to_string(length) + t).c_str(),
                                     BM_Infer, d, length, threads, true)
            ->Unit(benchmark::kMicrosecond);
    }
  }
  return true;
}();

}  // namespace
