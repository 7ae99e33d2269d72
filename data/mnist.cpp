#include "ember/data/mnist.h"

#include <sys/stat.h>

#include <array>

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/data/idx.h"

namespace ember::data {
namespace {

constexpr uint32_t kImagesMagic = 0x00000803;
constexpr uint32_t kLabelsMagic = 0x00000801;

bool exists(const std::string& path, bool directory) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (directory ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

// Every pixel value maps to one float: a table lookup per pixel is both exact and fast.
Tensor images_to_float(const detail::IdxFile& f, const Normalize& normalize) {
  std::array<float, 256> table;
  for (int v = 0; v < 256; ++v)
    table[v] = static_cast<float>((v / 255.0 - normalize.mean()) / normalize.std());
  Tensor out = empty({f.shape[0], 1, f.shape[1], f.shape[2]}, TensorOptions(kFloat32));
  float* dst = out.data_ptr<float>();
  const uint8_t* src = f.payload();
  const int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) dst[i] = table[src[i]];
  return out;
}

Tensor labels_to_int64(const detail::IdxFile& f, const std::string& path) {
  Tensor out = empty({f.shape[0]}, TensorOptions(kInt64));
  int64_t* dst = out.data_ptr<int64_t>();
  const uint8_t* src = f.payload();
  for (int64_t i = 0; i < f.shape[0]; ++i) {
    if (src[i] > 9)
      raise<IOError>("MNIST: ", path, ": label ", int{src[i]}, " at index ", i, " is outside 0..9");
    dst[i] = src[i];
  }
  return out;
}

std::pair<Tensor, Tensor> load(const std::string& root, bool train, const Normalize& normalize) {
  if (!exists(root, true)) raise<IOError>("MNIST: ", root, ": no such directory");
  const std::string split = train ? "train" : "t10k";
  const std::string images_path = detail::find_mnist_file(root, split + "-images", "idx3");
  const std::string labels_path = detail::find_mnist_file(root, split + "-labels", "idx1");
  const detail::IdxFile labels = detail::read_idx_file(labels_path, kLabelsMagic);
  const detail::IdxFile images = detail::read_idx_file(images_path, kImagesMagic);
  if (images.shape[0] != labels.shape[0])
    raise<IOError>("MNIST: ", images_path, " holds ", images.shape[0], " images but ", labels_path, " holds ",
                   labels.shape[0], " labels");
  return {images_to_float(images, normalize), labels_to_int64(labels, labels_path)};
}

}  // namespace

MNIST::MNIST(const std::string& root, bool train, Normalize normalize)
    : MNIST(load(root, train, normalize), normalize) {}

MNIST::MNIST(std::pair<Tensor, Tensor> images_labels, Normalize normalize)
    : TensorDataset(std::move(images_labels.first), std::move(images_labels.second)), normalize_(normalize) {}

namespace detail {
std::string find_mnist_file(const std::string& root, const std::string& stem, const std::string& idx) {
  const std::string dir = !root.empty() && root.back() == '/' ? root : root + "/";
  std::string tried;
  for (const char* sep : {"-", "."}) {
    for (const char* ext : {"", ".gz"}) {
      const std::string name = stem + sep + idx + "-ubyte" + ext;
      if (exists(dir + name, false)) return dir + name;
      tried += (tried.empty() ? "" : ", ") + name;
    }
  }
  raise<IOError>("MNIST: no ", stem, " file in ", root, " (looked for ", tried, ")");
}
}  // namespace detail

}  // namespace ember::data
