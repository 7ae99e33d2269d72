// Text-data plumbing on CUDA devices: pad_sequence on the device, and the DataLoader's device
// option moving every named field of a batch (input_ids, attention_mask, labels).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/ember.h"
#include "gpu_required.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::data;

namespace {

// Example i: input_ids of length 1 + i % 3 (values 10 i + k) padded per batch by the collate.
class Ragged : public Dataset {
 public:
  size_t size() const override { return 7; }
  Example get(size_t i) const override {
    std::vector<int64_t> ids;
    for (size_t k = 0; k <= i % 3; ++k) ids.push_back(static_cast<int64_t>(10 * i + k));
    Example e;
    e.text = std::to_string(i);
    e.set_field("input_ids", from_vector(ids));
    e.set_field("labels", scalar_tensor(static_cast<int64_t>(i % 2), kInt64));
    return e;
  }
};

Batch pad_collate(const std::vector<Example>& examples) {
  std::vector<Tensor> ids, masks, labels;
  for (const Example& e : examples) {
    ids.push_back(e.field("input_ids"));
    masks.push_back(ones_like(e.field("input_ids")));
    labels.push_back(e.field("labels"));
  }
  Batch b;
  b.set_field("input_ids", pad_sequence(ids));
  b.set_field("attention_mask", pad_sequence(masks));
  b.set_field("labels", stack(labels));
  return b;
}

}  // namespace

TEST(CudaTextData, PadSequenceOnTheDeviceEqualsTheCpus) {
  EMBER_REQUIRE_GPU();
  const Tensor a = arange(0, 6, 1, kFloat32).reshape({2, 3}).t();  // [3, 2], transposed
  const Tensor b = arange(10, 12, 1, kFloat32).reshape({1, 2});
  const Tensor c = from_vector(std::vector<float>{}, {0, 2});
  for (bool batch_first : {true, false}) {
    const Tensor want = pad_sequence({a, b, c}, batch_first, -1.5);
    for (int d = 0; d < cuda::device_count(); ++d) {
      const Device dev = Device::cuda(d);
      const Tensor got = pad_sequence({a.to(dev), b.to(dev), c.to(dev)}, batch_first, -1.5);
      EXPECT_EQ(got.device(), dev);
      EXPECT_EQ(got.shape(), want.shape());
      EXPECT_EQ(got.cpu().to_vector<float>(), want.to_vector<float>()) << "cuda:" << d;
    }
  }
  EXPECT_EQ(pad_sequence({a, b, c}, true, -1.5).to_vector<float>(),
            (std::vector<float>{0, 3, 1, 4, 2, 5, 10, 11, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5,
                                -1.5, -1.5}));
}

TEST(CudaTextData, DeviceOptionMovesEveryNamedField) {
  EMBER_REQUIRE_GPU();
  for (int d = 0; d < cuda::device_count(); ++d) {
    for (bool prefetch : {true, false}) {
      DataLoaderOptions opts;
      opts.batch_size = 3;
      opts.collate = pad_collate;
      opts.device = Device::cuda(d);
      opts.prefetch = prefetch;
      DataLoader loader(std::make_shared<Ragged>(), opts);
      std::vector<int64_t> ids, masks, labels;
      for (Batch& b : loader) {
        ASSERT_EQ(b.field_names(), (std::vector<std::string>{"input_ids", "attention_mask", "labels"}));
        for (const auto& [name, t] : b.fields) EXPECT_EQ(t.device(), Device::cuda(d)) << name;
        for (int64_t v : b.field("input_ids").cpu().to_vector<int64_t>()) ids.push_back(v);
        for (int64_t v : b.field("attention_mask").cpu().to_vector<int64_t>()) masks.push_back(v);
        for (int64_t v : b.field("labels").cpu().to_vector<int64_t>()) labels.push_back(v);
      }
      // Batches {0,1,2} (padded to 3), {3,4,5} (to 3), {6} (to 1).
      EXPECT_EQ(ids,
                (std::vector<int64_t>{0, 0, 0, 10, 11, 0, 20, 21, 22, 30, 0, 0, 40, 41, 0, 50, 51, 52, 60}));
      EXPECT_EQ(masks, (std::vector<int64_t>{1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1}));
      EXPECT_EQ(labels, (std::vector<int64_t>{0, 1, 0, 1, 0, 1, 0}));
    }
  }
}
