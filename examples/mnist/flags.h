#pragma once
// Command-line flags of the mnist example.
#include <string>
#include <vector>

namespace ember::examples {

struct MnistFlags {
  std::string device = "auto";  // auto | cpu | cuda | cuda:N
  std::string data;             // empty: the bundled sample (examples/common/bundled_data.h)
  int epochs = 10;
  int batch_size = 64;
  double lr = 0.01;
  double momentum = 0.5;
  unsigned long long seed = 0;
  int threads = 1;
  std::string save;     // safetensors checkpoint written after training
  std::string metrics;  // CSV of losses and accuracies
  std::string plot;     // SVG of the training curves
  int log_interval = 300;
  int limit = 0;                 // train on the first N images only (0: all)
  double require_accuracy = -1;  // exit 3 when the final accuracy (%) is below (tests)
  bool help = false;
};

/// Parses argv; throws std::invalid_argument with a one-line message on a bad flag.
MnistFlags parse_flags(const std::vector<std::string>& args);
/// The --help text.
const char* usage();

}  // namespace ember::examples
