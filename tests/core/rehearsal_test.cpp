// The rehearsal CUDA devices (cuda::rehearse, EMBER_REHEARSE_CUDA): on a machine without a
// GPU, CUDA devices in host memory on the CPU kernels whose checks and errors are a GPU's.
// Each of the three placement mistakes of moving a program to the GPU (the model left on the
// CPU, a sub-model never moved, a batch collate did not move) raises, rehearsed, exactly the
// DeviceMismatchError it raises on the emulated device. In a build whose CUDA devices exist
// (the emulated build; a GPU), rehearse() must refuse, and that is what is checked there.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "ember/ember.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;

namespace {

// Rehearses `devices` for its lifetime.
struct Rehearsal {
  explicit Rehearsal(int devices) : on(cuda::rehearse(devices)) {}
  ~Rehearsal() { cuda::rehearse(0); }
  Rehearsal(const Rehearsal&) = delete;
  Rehearsal& operator=(const Rehearsal&) = delete;
  bool on;
};

// Whether this build's own CUDA backend has devices (a GPU, or the emulated build's): asked
// while no test backend or rehearsal is registered, device_count() is that backend's.
bool real_devices_exist() { return !cuda::is_rehearsed() && cuda::device_count() > 0; }

// The kind and message of what f throws ("" if nothing).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return std::string(e.kind_name()) + ": " + e.what();
  }
  return "";
}

struct Encoder : nn::Module {
  Encoder() : Module("Encoder") { proj = register_module("proj", std::make_shared<nn::Linear>(4, 4)); }
  Tensor forward(const Tensor& x) override { return relu(proj->forward(x)); }
  std::shared_ptr<nn::Linear> proj;
};

// Holds its encoder without registering it: model.to(device) leaves it behind.
struct Classifier : nn::Module {
  Classifier() : Module("Classifier"), encoder(std::make_shared<Encoder>()) {
    head = register_module("head", std::make_shared<nn::Linear>(4, 2));
  }
  Tensor forward(const Tensor& x) override { return head->forward((*encoder)(x)); }
  std::shared_ptr<Encoder> encoder;
  std::shared_ptr<nn::Linear> head;
};

// The three mistakes, each run on cuda:0 of whatever CUDA backend is in place.
const std::vector<std::pair<std::string, std::function<void()>>>& mistakes() {
  static const std::vector<std::pair<std::string, std::function<void()>>> all = {
      {"the model left on the CPU",
       [] {
         nn::Linear model(4, 2);
         model(randn({3, 4}).to(Device::cuda(0)));
       }},
      {"a sub-model never moved",
       [] {
         Classifier model;
         model.to(Device::cuda(0));
         model(randn({3, 4}, Device::cuda(0)));
       }},
      {"a batch collate did not move",
       [] {
         auto model = std::make_shared<nn::Linear>(4, 2);
         model->to(Device::cuda(0));
         auto dataset = std::make_shared<data::TensorDataset>(randn({6, 4}), arange(6));
         data::DataLoaderOptions options;
         options.batch_size = 3;
         data::DataLoader loader(dataset, options);  // no device: batches stay on the CPU
         for (const data::Batch& batch : loader) (*model)(batch.data);
       }},
  };
  return all;
}

}  // namespace

TEST(Rehearsal, DevicesLiveInHostMemoryAndSayTheyAreRehearsed) {
  if (real_devices_exist()) {
    EXPECT_FALSE(cuda::rehearse(1)) << "a rehearsal beside real (or emulated) devices";
    EXPECT_FALSE(cuda::is_rehearsed());
    return;
  }
  EXPECT_EQ(cuda::device_count(), 0);
  const auto move_to_cuda = [] { (void)randn({2}).to(Device::cuda(0)); };
  const std::string before = error_of(move_to_cuda);  // NotCompiledError, or DeviceError with CUDA built
  EXPECT_NE(before, "");
  {
    Rehearsal r(2);
    ASSERT_TRUE(r.on);
    EXPECT_TRUE(cuda::is_rehearsed());
    EXPECT_TRUE(cuda::is_available());
    EXPECT_EQ(cuda::device_count(), 2);
    EXPECT_EQ(cuda::versions().rfind("rehearsed: 2 CUDA devices in host memory on the CPU kernels", 0), 0u)
        << cuda::versions();
    EXPECT_STREQ(cuda::device_note(Device::cuda(1)), " (rehearsed on the CPU)");
    EXPECT_STREQ(cuda::device_note(Device::cpu()), "");
    const Tensor a = from_vector(std::vector<float>{1, 2, 3}, {3});
    const Tensor on1 = a.to(Device::cuda(1));
    EXPECT_EQ(on1.device(), Device::cuda(1));
    EXPECT_EQ((on1 * 2.0f).cpu().to_vector<float>(), (std::vector<float>{2, 4, 6}));
    EXPECT_THROW_MSG((void)a.to(Device::cuda(2)), DeviceError,
                     "cuda:2 requested, but only 2 CUDA devices are available");
    EXPECT_THROW_MSG(on1 + a, DeviceMismatchError, "tensors on different devices");
    EXPECT_EQ(cuda::memory_stats(0).allocated, 0u);
    EXPECT_THROW_MSG(cuda::memory_stats(2), DeviceError, "cuda:2 requested");
    // As on CUDA, a weight has no float32 pack (cuBLAS reads it in place) and no bfloat16 one.
    EXPECT_FALSE(pack_linear_weight(randn({4, 4}, Device::cuda(0))).defined());
    EXPECT_THROW_MSG(pack_linear_weight(randn({4, 4}, Device::cuda(0)), PackFormat::BFloat16),
                     NotImplementedError,
                     "pack_linear_weight with bfloat16 weights is not implemented on cuda");
  }
  EXPECT_FALSE(cuda::is_rehearsed());
  EXPECT_EQ(cuda::device_count(), 0);
  EXPECT_EQ(error_of(move_to_cuda), before) << "the rehearsal ended";
}

TEST(Rehearsal, EachPlacementMistakeRaisesTheEmulatedDevicesError) {
  if (real_devices_exist()) GTEST_SKIP() << "devices exist in this build: no rehearsal";
  std::vector<std::string> emulated;
  {
    test::EmulatedCuda emu(1);
    for (const auto& [name, run] : mistakes()) emulated.push_back(error_of(run));
  }
  Rehearsal r(1);
  ASSERT_TRUE(r.on);
  for (size_t i = 0; i < mistakes().size(); ++i) {
    const std::string rehearsed = error_of(mistakes()[i].second);
    EXPECT_EQ(rehearsed.rfind("DeviceMismatchError: tensors on different devices", 0), 0u)
        << mistakes()[i].first << ": " << rehearsed;
    EXPECT_EQ(rehearsed, emulated[i]) << mistakes()[i].first;
  }
}

TEST(Rehearsal, ACountOutsideItsRangeIsAValueError) {
  EXPECT_THROW_MSG(cuda::rehearse(-1), ValueError, "cuda::rehearse: devices must be from 0 to 64, got -1");
  EXPECT_THROW_MSG(cuda::rehearse(65), ValueError, "cuda::rehearse: devices must be from 0 to 64, got 65");
  EXPECT_FALSE(cuda::rehearse(0));
}
