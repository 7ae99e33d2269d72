#pragma once
// Command-line flags of the text_classifier example.
#include <string>
#include <vector>

namespace ember::examples {

struct TextFlags {
  std::string mode = "finetune";  // finetune | pretrain | frozen | predict
  std::string device = "auto";    // auto | cpu | cuda | cuda:N
  std::string pretrained;         // a Hugging Face BERT directory (frozen and predict need one)
  std::string data;               // reviews .tsv(.gz); empty: the bundled corpus
  std::string vocab;              // vocab.txt; empty: the pretrained directory's, else the corpus's
  std::string save;               // output directory (checkpoint each epoch; a Hugging Face dir)
  std::string resume;             // a --save directory to continue from
  std::string plot;               // SVG of the loss and test accuracy
  std::string metrics;            // CSV of the logged losses and test accuracies
  std::string pooling = "cls";    // the classifier's input: cls | mean
  std::string padding = "skip";   // skip: the BERT computes real tokens only; compute: padded
  int epochs = 3;
  int batch_size = 32;
  int max_length = 128;
  double lr = 5e-4;
  double warmup = 0.1;  // fraction of the steps with a rising learning rate
  unsigned long long seed = 0;
  int threads = 2;
  int log_interval = 50;
  int limit = 0;                 // use only the first N training and N test reviews (0: all)
  double require_accuracy = -1;  // exit 3 when the final test accuracy (%) is below (tests)
  int stop_after = 0;            // act as if Ctrl-C came after this many batches (tests; 0: never)
  bool help = false;
};

/// Parses argv; std::invalid_argument with a one-line message for a bad flag or combination.
TextFlags parse_text_flags(const std::vector<std::string>& args);
const char* text_usage();

}  // namespace ember::examples
