#include "ember/data/text_dataset.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <string>

#include "ember/core/error.h"
#include "ember/core/io/gzip.h"
#include "ember/core/io/io_error.h"
#include "ember/core/io/utf8.h"
#include "ember/core/ops/factory.h"
#include "ember/data/sampler.h"

namespace ember::data {
namespace {

constexpr const char* kLoad = "load_reviews";
// A text corpus anywhere near this is not what this reader is for; a small .gz that claims
// more is garbage (or a zip bomb), not data. 1 GiB: refused before the text's growth needs
// more than 1.5 GiB at once, so that a process with little memory gets this error (or, where
// even that fails, an OutOfMemoryError), never std::bad_alloc.
constexpr size_t kMaxText = size_t{1} << 30;
constexpr int64_t kMaxLabel = (int64_t{1} << 31) - 1;

// The file's text, inflated when it is gzip: at most kMaxText bytes of that.
std::string read_text(const std::string& path) {
  io::GzipOrRawFile file(path, kLoad);
  std::string text;
  char chunk[1 << 16];
  for (;;) {
    const size_t n = file.read(chunk, sizeof chunk);
    if (n == 0) return text;
    if (file.gzip() && text.size() + n > kMaxText)
      io::raise_file_error(kLoad, path, "decompresses to more than ", kMaxText, " bytes");
    try {
      text.append(chunk, n);
    } catch (const std::bad_alloc&) {
      raise<OutOfMemoryError>(kLoad, ": ", path, ": no memory for ", text.size() + n, " bytes of ",
                              file.gzip() ? "decompressed text" : "text");
    }
  }
}

}  // namespace

TextClassificationDataset::TextClassificationDataset(std::vector<std::string> texts,
                                                     std::vector<int64_t> labels)
    : texts_(std::move(texts)), labels_(std::move(labels)) {
  if (texts_.size() != labels_.size())
    raise<ValueError>("TextClassificationDataset: ", texts_.size(), " texts but ", labels_.size(), " labels");
  for (size_t i = 0; i < labels_.size(); ++i)
    if (labels_[i] < 0)
      raise<ValueError>("TextClassificationDataset: label ", labels_[i], " of example ", i, " is negative");
}

Example TextClassificationDataset::get(size_t index) const {
  if (index >= size())
    raise<IndexError>("get: index ", index, " is out of range for a dataset of size ", size());
  Example e;
  e.text = texts_[index];
  e.target = scalar_tensor(labels_[index], TensorOptions(kInt64));
  e.set_field("labels", e.target);
  return e;
}

int64_t TextClassificationDataset::num_classes() const {
  return labels_.empty() ? 0 : *std::max_element(labels_.begin(), labels_.end()) + 1;
}

TextClassificationDataset TextClassificationDataset::subset(const std::vector<int64_t>& indices) const {
  std::vector<std::string> texts;
  std::vector<int64_t> labels;
  texts.reserve(indices.size());
  labels.reserve(indices.size());
  for (int64_t i : indices) {
    detail::check_index("subset", i, size());
    texts.push_back(texts_[static_cast<size_t>(i)]);
    labels.push_back(labels_[static_cast<size_t>(i)]);
  }
  return TextClassificationDataset(std::move(texts), std::move(labels));
}

std::pair<TextClassificationDataset, TextClassificationDataset> train_test_split(
    const TextClassificationDataset& dataset, double test_fraction, uint64_t seed) {
  if (!(test_fraction > 0 && test_fraction < 1))
    raise<ValueError>("train_test_split: test_fraction must be in (0, 1), got ", test_fraction);
  const size_t n = dataset.size();
  // ceil as scikit-learn's train_test_split; a relative epsilon keeps 0.3 * 10
  // (3.0000000000000004) at 3 and still gives a tiny fraction its one example.
  const double exact = test_fraction * static_cast<double>(n);
  const size_t n_test = std::min(n, static_cast<size_t>(std::ceil(exact * (1 - 1e-12))));
  const std::vector<int64_t> order = shuffled_indices(n, seed, 0);
  std::vector<bool> in_test(n, false);
  for (size_t k = 0; k < n_test; ++k) in_test[static_cast<size_t>(order[k])] = true;
  std::vector<int64_t> train, test;
  train.reserve(n - n_test);
  test.reserve(n_test);
  for (size_t i = 0; i < n; ++i) (in_test[i] ? test : train).push_back(static_cast<int64_t>(i));
  return {dataset.subset(train), dataset.subset(test)};
}

TextClassificationDataset load_reviews(const std::string& path) {
  const std::string bytes = read_text(path);
  std::vector<std::string> texts;
  std::vector<int64_t> labels;
  size_t line_no = 0;
  for (size_t pos = 0; pos < bytes.size();) {
    ++line_no;
    size_t end = bytes.find('\n', pos);
    if (end == std::string::npos) end = bytes.size();
    size_t stop = end;
    if (stop > pos && bytes[stop - 1] == '\r') --stop;
    const std::string line = bytes.substr(pos, stop - pos);
    pos = end + 1;
    auto bad = [&](const auto&... why) {
      raise<ValueError>(kLoad, ": ", path, ": line ", line_no, ": ", why...);
    };
    if (line.empty()) bad("empty line (expected <label><TAB><text>)");
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) bad("no tab between the label and the text");
    const std::string label = line.substr(0, tab);
    int64_t value = 0;
    bool ok = !label.empty() && label.size() <= 10;
    for (char c : label) {
      if (c < '0' || c > '9') ok = false;
      if (ok) value = value * 10 + (c - '0');
    }
    if (!ok || value > kMaxLabel) bad("label \"", label, "\" is not an integer in [0, ", kMaxLabel, "]");
    size_t invalid = 0;
    if (!io::valid_utf8(line, &invalid)) bad("invalid UTF-8 at byte ", invalid + 1, " of the line");
    texts.push_back(line.substr(tab + 1));
    labels.push_back(value);
  }
  return TextClassificationDataset(std::move(texts), std::move(labels));
}

}  // namespace ember::data
