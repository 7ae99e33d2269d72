// The LibTorch twin of ember_bench_text's rows (bench/text/bert_bench.cpp): the same BERT
// (transformers' BertModel structure: embeddings, LayerNorm, post-norm layers with SDPA
// attention over a bool key mask, exact GELU, the pooler), the same head on the [CLS] state,
// dropout 0.1, AdamW lr 5e-4, clipping at 1.0, on the same batches (read from
// EMBER_BENCH_TEXT_BATCHES, written by ember_bench_text), computed padded as transformers
// computes them. Rows: bert_train_step/cpu/32/threads:<n>, bert_infer/cpu/1/<L>/threads:<n>.
// Registered only when EMBER_BENCH_TEXT_BATCHES names the file.
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "bench/text/review_batches.h"
#include "bench/torch/libtorch_timing.h"

namespace {
namespace F = torch::nn::functional;
using torch::nn::Dropout;
using torch::nn::Embedding;
using torch::nn::LayerNorm;
using torch::nn::Linear;

constexpr int64_t kHidden = 128, kLayers = 2, kHeads = 4, kIntermediate = 512, kMaxLength = 128;
constexpr double kDropout = 0.1, kEps = 1e-12;

LayerNorm layer_norm() { return LayerNorm(torch::nn::LayerNormOptions({kHidden}).eps(kEps)); }

struct LayerImpl : torch::nn::Module {
  Linear query{kHidden, kHidden}, key{kHidden, kHidden}, value{kHidden, kHidden}, attn_out{kHidden, kHidden};
  Linear intermediate{kHidden, kIntermediate}, out{kIntermediate, kHidden};
  LayerNorm ln1 = layer_norm(), ln2 = layer_norm();
  Dropout drop{kDropout};
  LayerImpl() {
    for (auto& [name, m] : std::vector<std::pair<std::string, Linear>>{{"query", query},
                                                                       {"key", key},
                                                                       {"value", value},
                                                                       {"attn_out", attn_out},
                                                                       {"intermediate", intermediate},
                                                                       {"out", out}})
      register_module(name, m);
    register_module("ln1", ln1);
    register_module("ln2", ln2);
    register_module("drop", drop);
  }
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask) {
    const int64_t B = x.size(0), L = x.size(1);
    auto heads = [&](const torch::Tensor& t) {
      return t.view({B, L, kHeads, kHidden / kHeads}).transpose(1, 2);
    };
    const std::optional<torch::Tensor> keys =
        mask.defined() ? std::optional<torch::Tensor>(mask) : std::nullopt;
    auto a = torch::scaled_dot_product_attention(heads(query(x)), heads(key(x)), heads(value(x)), keys,
                                                 is_training() ? kDropout : 0.0);
    a = ln1(drop(attn_out(a.transpose(1, 2).reshape({B, L, kHidden}))) + x);
    return ln2(drop(out(torch::gelu(intermediate(a)))) + a);
  }
};
TORCH_MODULE(Layer);

struct BertImpl : torch::nn::Module {
  Embedding words{nullptr}, positions{kMaxLength, kHidden}, types{2, kHidden};
  LayerNorm ln = layer_norm();
  Dropout drop{kDropout};
  torch::nn::ModuleList layers;
  Linear pooler{kHidden, kHidden}, classifier{kHidden, 2};
  explicit BertImpl(int64_t vocab) {
    words = register_module("words", Embedding(torch::nn::EmbeddingOptions(vocab, kHidden).padding_idx(0)));
    register_module("positions", positions);
    register_module("types", types);
    register_module("ln", ln);
    register_module("drop", drop);
    for (int64_t i = 0; i < kLayers; ++i) layers->push_back(Layer());
    register_module("layers", layers);
    register_module("pooler", pooler);
    register_module("classifier", classifier);
  }
  // last_hidden_state and pooler_output, as BertModel.
  std::pair<torch::Tensor, torch::Tensor> encode(const torch::Tensor& ids, const torch::Tensor& mask,
                                                 const torch::Tensor& type_ids) {
    const int64_t B = ids.size(0), L = ids.size(1);
    auto h = drop(ln(words(ids) + types(type_ids) + positions(torch::arange(L))));
    const torch::Tensor keys = mask.defined() ? mask.ne(0).view({B, 1, 1, L}) : torch::Tensor();
    for (const auto& l : *layers) h = l->as<Layer>()->forward(h, keys);
    return {h, torch::tanh(pooler(h.select(1, 0)))};
  }
  torch::Tensor logits(const torch::Tensor& ids, const torch::Tensor& mask, const torch::Tensor& type_ids) {
    return classifier(drop(encode(ids, mask, type_ids).first.select(1, 0)));
  }
};
TORCH_MODULE(Bert);

struct Inputs {
  torch::Tensor ids, mask, types, labels;
};

const ember::bench::ReviewBatches& data() {
  static const ember::bench::ReviewBatches b =
      ember::bench::read_review_batches(std::getenv("EMBER_BENCH_TEXT_BATCHES"));
  return b;
}
const std::vector<ember::bench::ReviewBatch>& batches() { return data().batches; }
int64_t vocab_size() { return data().vocab_size; }

torch::Tensor tensor(const std::vector<int64_t>& v, std::vector<int64_t> shape) {
  return torch::tensor(v, torch::kLong).view(shape);
}

void BM_TrainStep(benchmark::State& state, int threads) {
  torch::manual_seed(0);
  Bert model(vocab_size());
  model->train();
  torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(5e-4));
  std::vector<Inputs> inputs;
  for (const auto& b : batches())
    inputs.push_back({tensor(b.input_ids, {b.batch, b.length}), tensor(b.attention_mask, {b.batch, b.length}),
                      tensor(b.token_type_ids, {b.batch, b.length}), tensor(b.labels, {b.batch})});
  size_t next = 0;
  ember::bench::libtorch_timed(state, threads, 32.0, [&] {
    const Inputs& in = inputs[next++ % inputs.size()];
    opt.zero_grad();
    F::cross_entropy(model->logits(in.ids, in.mask, in.types), in.labels).backward();
    torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
    opt.step();
  });
}

void BM_Infer(benchmark::State& state, int64_t length, int threads) {
  torch::manual_seed(0);
  Bert model(vocab_size());
  model->eval();
  std::vector<int64_t> ids;
  for (const auto& b : batches())
    for (int64_t i = 0; i < b.batch && ids.empty(); ++i) {
      if (ember::bench::sequence_lengths(b)[static_cast<size_t>(i)] < length) continue;
      ids.assign(b.input_ids.begin() + i * b.length, b.input_ids.begin() + i * b.length + length);
    }
  const torch::Tensor x = tensor(ids, {1, length}), types = torch::zeros({1, length}, torch::kLong);
  torch::NoGradGuard no_grad;
  ember::bench::libtorch_timed(
      state, threads, 1.0, [&] { benchmark::DoNotOptimize(model->encode(x, torch::Tensor(), types).first); });
}

const bool registered = [] {
  if (!std::getenv("EMBER_BENCH_TEXT_BATCHES")) return false;
  ember::bench::register_text_rows([](const std::string& name, int64_t length, int threads) {
    return length == 0 ? benchmark::RegisterBenchmark(name.c_str(), BM_TrainStep, threads)
                       : benchmark::RegisterBenchmark(name.c_str(), BM_Infer, length, threads);
  });
  return true;
}();

}  // namespace
