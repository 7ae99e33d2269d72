#pragma once
// MNIST and Fashion-MNIST from their IDX files (raw or .gz).
#include <string>

#include "ember/data/tensor_dataset.h"
#include "ember/data/transforms.h"

namespace ember::data {

/// The train or test split of MNIST (or Fashion-MNIST, same layout) in root: images as
/// float32 [N, 1, rows, cols] scaled to [0, 1] and then normalized, labels as int64 [N].
/// The default Normalize leaves the [0, 1] values as they are (as torchvision's ToTensor);
/// pass Normalize(MNIST::kMean, MNIST::kStd) for the usual zero-mean inputs.
/// Files are found under either naming, raw or gzip: train-images-idx3-ubyte[.gz] or
/// train-images.idx3-ubyte[.gz], likewise train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
/// t10k-labels-idx1-ubyte. Sizes come from the headers. IOError naming the file and the
/// problem when a file is missing or malformed, the image and label counts differ, or a
/// label is above 9.
class EMBER_API MNIST : public TensorDataset {
 public:
  /// Mean and standard deviation of MNIST's training pixels in [0, 1].
  static constexpr double kMean = 0.1307;
  static constexpr double kStd = 0.3081;

  MNIST(const std::string& root, bool train, Normalize normalize = {});

  /// Images, float32 [N, 1, rows, cols].
  const Tensor& images() const { return data(); }
  /// Labels, int64 [N], in 0..9.
  const Tensor& labels() const { return targets(); }
  const Normalize& normalize() const { return normalize_; }

 private:
  MNIST(std::pair<Tensor, Tensor> images_labels, Normalize normalize);
  Normalize normalize_;
};

namespace detail {
/// The path of an MNIST file in root for stem "train-images" / "t10k-labels" and idx
/// "idx3" / "idx1", trying both namings, raw and .gz; IOError listing what was tried.
EMBER_API std::string find_mnist_file(const std::string& root, const std::string& stem,
                                      const std::string& idx);
}  // namespace detail

}  // namespace ember::data
