// Several devices and the random generator: draws equal the CPU's for a seed on every
// device, cross-device copies (direct between peers, or through the host) keep values, and
// ops refuse tensors of two devices.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ember/ember.h"
#include "gpu_required.h"
#include "support/expect.h"

using namespace ember;

namespace {

std::vector<uint32_t> bits(const Tensor& t) {
  const std::vector<float> v = t.cpu().to_vector<float>();
  std::vector<uint32_t> b(v.size());
  std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
  return b;
}

}  // namespace

TEST(CudaDevices, RandomDrawsAndDropoutMasksEqualTheCpusForASeed) {
  EMBER_REQUIRE_GPU();
  for (int d = 0; d < cuda::device_count(); ++d) {
    const TensorOptions on = TensorOptions().device(Device::cuda(d));
    const Shape odd{7, 143};  // not a multiple of the four values a Philox counter gives
    manual_seed(5);
    const Tensor u_cpu = rand(odd), n_cpu = randn(odd), i_cpu = randint(-3, 1000, odd);
    manual_seed(5);
    const Tensor u = rand(odd, on), n = randn(odd, on), i = randint(-3, 1000, odd, on);
    EXPECT_EQ(bits(u), bits(u_cpu)) << "rand on cuda:" << d;
    EXPECT_EQ(i.cpu().to_vector<int64_t>(), i_cpu.to_vector<int64_t>()) << "randint on cuda:" << d;
    if (cuda::is_emulated()) {
      EXPECT_EQ(bits(n), bits(n_cpu)) << "randn on cuda:" << d << " (the host's libm on both sides)";
    } else {
      const std::vector<float> a = n.cpu().to_vector<float>(), b = n_cpu.to_vector<float>();
      for (size_t k = 0; k < a.size(); ++k)
        EXPECT_LE(std::abs(a[k] - b[k]), std::nextafter(std::abs(b[k]), INFINITY) - std::abs(b[k])) << k;
    }
    const Tensor x = rand(odd) + 1.0;
    manual_seed(9);
    const Tensor kept_cpu = dropout(x, 0.4);
    manual_seed(9);
    const Tensor kept = dropout(x.to(Device::cuda(d)), 0.4);
    EXPECT_EQ(bits(kept), bits(kept_cpu)) << "dropout on cuda:" << d;
    const std::vector<float> k = kept_cpu.to_vector<float>();
    EXPECT_GT(std::count(k.begin(), k.end(), 0.0f), 0) << "some elements dropped";
  }
}

TEST(CudaDevices, CopiesBetweenDevicesKeepValues) {
  EMBER_REQUIRE_GPU();
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  const Tensor a = arange(0, 600, 1, kFloat32).reshape({20, 30});
  const Tensor on0 = a.cuda(0);
  // Direct (peer) copies both ways, a strided source, and a dtype change on arrival.
  const Tensor on1 = on0.to(Device::cuda(1));
  EXPECT_EQ(on1.device(), Device::cuda(1));
  EXPECT_EQ(on1.cpu().to_vector<float>(), a.to_vector<float>());
  EXPECT_EQ(on1.t().to(Device::cuda(0)).cpu().to_vector<float>(), a.t().contiguous().to_vector<float>());
  EXPECT_EQ(on1.to(Device::cuda(0)).to(kFloat64).cpu().to_vector<double>(),
            a.to(kFloat64).to_vector<double>());
  // Into an existing tensor of the other device, and through the host.
  Tensor dst = zeros({20, 30}, TensorOptions().device(Device::cuda(1)));
  dst.copy_(on0 * 2.0);
  EXPECT_EQ(dst.cpu().to_vector<float>(), (a * 2.0).to_vector<float>());
  EXPECT_EQ(on0.cpu().to(Device::cuda(1)).sum().item<float>(), a.sum().item<float>());
}

TEST(CudaDevices, OpsRefuseTensorsOfTwoDevices) {
  EMBER_REQUIRE_GPU();
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  const Tensor x = ones({3}, TensorOptions().device(Device::cuda(0)));
  const Tensor y = ones({3}, TensorOptions().device(Device::cuda(1)));
  EXPECT_THROW_MSG(x + y, DeviceMismatchError,
                   "tensors on different devices: add got lhs on cuda:0 and rhs on cuda:1");
  EXPECT_THROW_MSG(where(x > 0.0, x, y), DeviceMismatchError,
                   "tensors on different devices: where got condition on cuda:0 and other on cuda:1");
  EXPECT_THROW_MSG(cross_entropy(ones({2, 3}, TensorOptions().device(Device::cuda(1))),
                                 zeros({2}, TensorOptions().device(Device::cuda(0)).dtype(kInt64))),
                   DeviceMismatchError,
                   "tensors on different devices: cross_entropy got input on cuda:1 and target on cuda:0");
}
