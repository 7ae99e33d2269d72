#include "flags.h"

#include <stdexcept>

namespace ember::examples {
namespace {

template <class T>
T parse_number(const std::string& flag, const std::string& text) {
  size_t used = 0;
  T value{};
  try {
    if constexpr (std::is_same<T, double>::value)
      value = std::stod(text, &used);
    else if constexpr (std::is_same<T, int>::value)
      value = std::stoi(text, &used);
    else
      value = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() ||
      (!text.empty() && text[0] == '-' && !std::is_same<T, double>::value))
    throw std::invalid_argument(flag + " expects a number, got \"" + text + "\"");
  return value;
}

}  // namespace

const char* usage() {
  return "usage: mnist [--device auto|cpu|cuda|cuda:N] [--data DIR] [--epochs N] [--batch-size N]\n"
         "             [--lr X] [--momentum X] [--seed N] [--threads N] [--save PATH]\n"
         "             [--metrics PATH] [--plot PATH.svg] [--log-interval N]\n"
         "Trains the tutorial CNN on MNIST (the bundled 10,000-digit sample by default) and\n"
         "reports the test accuracy after each epoch. --data also accepts Fashion-MNIST\n"
         "(e.g. /usr/share/datasets/fashion-mnist).\n";
}

MnistFlags parse_flags(const std::vector<std::string>& args) {
  MnistFlags f;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    const size_t eq = flag.find('=');
    const bool inline_value = flag.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    if (flag == "--help" || flag == "-h") {
      f.help = true;
      continue;
    }
    auto next = [&]() -> std::string {
      if (inline_value) return value;
      if (i + 1 >= args.size()) throw std::invalid_argument(flag + " needs a value");
      return args[++i];
    };
    if (flag == "--device")
      f.device = next();
    else if (flag == "--data")
      f.data = next();
    else if (flag == "--epochs")
      f.epochs = parse_number<int>(flag, next());
    else if (flag == "--batch-size")
      f.batch_size = parse_number<int>(flag, next());
    else if (flag == "--lr")
      f.lr = parse_number<double>(flag, next());
    else if (flag == "--momentum")
      f.momentum = parse_number<double>(flag, next());
    else if (flag == "--seed")
      f.seed = parse_number<unsigned long long>(flag, next());
    else if (flag == "--threads")
      f.threads = parse_number<int>(flag, next());
    else if (flag == "--save")
      f.save = next();
    else if (flag == "--metrics")
      f.metrics = next();
    else if (flag == "--plot")
      f.plot = next();
    else if (flag == "--log-interval")
      f.log_interval = parse_number<int>(flag, next());
    else if (flag == "--require-accuracy")
      f.require_accuracy = parse_number<double>(flag, next());
    else
      throw std::invalid_argument("unknown flag \"" + args[i] + "\" (see --help)");
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
