#include "flags.h"

#include <stdexcept>

#include "../common/flag_reader.h"

namespace ember::examples {

const char* usage() {
  return "usage: mnist [--device auto|cpu|cuda|cuda:N] [--data DIR] [--epochs N] [--batch-size N]\n"
         "             [--lr X] [--momentum X] [--seed N] [--threads N] [--save PATH]\n"
         "             [--metrics PATH] [--plot PATH.svg] [--log-interval N] [--limit N]\n"
         "Trains the tutorial CNN on MNIST and reports the test accuracy after each epoch.\n"
         "--data DIR names the IDX files' folder (full MNIST, or Fashion-MNIST such as\n"
         "/usr/share/datasets/fashion-mnist); without it, the bundled 10,000-digit sample\n"
         "(examples/data/mnist-sample) is found from this program's own folder: data/mnist-sample\n"
         "beside it, else examples/data/mnist-sample in it or a folder above it (the source tree).\n"
         "--limit N trains on the first N training images only (a short run; the whole test\n"
         "split is still measured).\n";
}

MnistFlags parse_flags(const std::vector<std::string>& args) {
  MnistFlags f;
  FlagReader r(args);
  while (r.next()) {
    const std::string& flag = r.flag();
    if (flag == "--help" || flag == "-h")
      f.help = true;
    else if (flag == "--device")
      f.device = r.value();
    else if (flag == "--data")
      f.data = r.value();
    else if (flag == "--epochs")
      f.epochs = r.number<int>();
    else if (flag == "--batch-size")
      f.batch_size = r.number<int>();
    else if (flag == "--lr")
      f.lr = r.number<double>();
    else if (flag == "--momentum")
      f.momentum = r.number<double>();
    else if (flag == "--seed")
      f.seed = r.number<unsigned long long>();
    else if (flag == "--threads")
      f.threads = r.number<int>();
    else if (flag == "--save")
      f.save = r.value();
    else if (flag == "--metrics")
      f.metrics = r.value();
    else if (flag == "--plot")
      f.plot = r.value();
    else if (flag == "--log-interval")
      f.log_interval = r.number<int>();
    else if (flag == "--limit")
      f.limit = r.number<int>();
    else if (flag == "--require-accuracy")
      f.require_accuracy = r.number<double>();
    else
      r.unknown();
  }
  if (f.epochs < 1) throw std::invalid_argument("--epochs must be at least 1");
  if (f.batch_size < 1) throw std::invalid_argument("--batch-size must be at least 1");
  if (f.threads < 1) throw std::invalid_argument("--threads must be at least 1");
  if (f.log_interval < 1) throw std::invalid_argument("--log-interval must be at least 1");
  if (!(f.lr > 0)) throw std::invalid_argument("--lr must be positive");
  if (!(f.momentum >= 0)) throw std::invalid_argument("--momentum must be >= 0");
  return f;
}

}  // namespace ember::examples
