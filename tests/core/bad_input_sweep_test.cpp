// A sweep of bad inputs over the public entry points. Every call must throw an ember::Error
// (a typed error), never crash, hang or silently return. The categories and their counts
// are printed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "ember/core/io/json.h"
#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Call {
  std::string category;
  std::function<void()> fn;
};

Tensor x4() { return arange(0, 36).view({1, 1, 6, 6}); }
Tensor idx(std::vector<int64_t> v) {
  const auto n = static_cast<int64_t>(v.size());
  return from_vector(v, {n});
}

std::vector<Call> calls() {
  std::vector<Call> c;
  auto add = [&](const char* cat, std::function<void()> fn) { c.push_back({cat, std::move(fn)}); };

  // Factories: negative and wrapping sizes, bad ranges, bad dtypes.
  for (const Shape& s : std::vector<Shape>{{-1},
                                           {2, -3},
                                           {kMin},
                                           {kMax, 2},
                                           {int64_t{1} << 62},
                                           {int64_t{1} << 32, int64_t{1} << 32},
                                           {0, kMax, kMax}}) {
    add("factories", [s] { empty(s); });
    add("factories", [s] { zeros(s); });
    add("factories", [s] { ones(s, kFloat64); });
    add("factories", [s] { full(s, 1.0); });
    add("factories", [s] { rand(s); });
    add("factories", [s] { randn(s); });
    add("factories", [s] { randint(0, 5, s); });
  }
  add("factories", [] { arange(0, 1e30); });
  add("factories", [] { arange(0, 10, 0); });
  add("factories", [] { arange(0, kNaN); });
  add("factories", [] { arange(0, 1, kInf); });
  add("factories", [] { arange(-kInf, 0); });
  add("factories", [] { randint(kMin, kMax, {2}); });
  add("factories", [] { randint(5, 5, {2}); });
  add("factories", [] { randint(0, int64_t{1} << 40, {2}); });
  add("factories", [] { randint(0, 2, {2}, kBool); });
  add("factories", [] { rand({2}, kInt64); });
  add("factories", [] { from_vector(std::vector<float>{1, 2}, {3}); });
  add("factories", [] { from_vector(std::vector<float>{}, {-1}); });
  add("factories", [] { tensor({{1, 2}, {3}}, kFloat32); });
  // One past the last CUDA device: NotCompiledError without CUDA, DeviceError with it (the
  // emulated build has devices, so cuda:0 itself would be fine).
  add("factories", [] { zeros({2}, Device::cuda(cuda::device_count())); });
  add("factories", [] { zeros({2}, Device("cuda:7")); });

  // Dims of 0-d tensors and out-of-range dims.
  const Tensor s = scalar_tensor(1);
  add("dims", [s] { s.size(0); });
  add("dims", [s] { s.stride(-1); });
  add("dims", [s] { s.select(0, 0); });
  add("dims", [s] { s.narrow(0, 0, 1); });
  add("dims", [s] { s.sum({0}); });
  add("dims", [s] { s.mean({0}); });
  add("dims", [s] { amax(s, {0}); });
  add("dims", [s] { s.transpose(0, 1).size(0); });
  add("dims", [s] { s.flatten(0, 1); });
  add("dims", [s] { cat({s, s}); });
  for (int64_t d : {int64_t{2}, int64_t{-3}, kMax, kMin}) {
    const Tensor t = zeros({2, 3});
    add("dims", [t, d] { t.size(d); });
    add("dims", [t, d] { t.stride(d); });
    add("dims", [t, d] { t.sum({d}); });
    add("dims", [t, d] { t.argmax(d); });
    add("dims", [t, d] { t.softmax(d); });
    add("dims", [t, d] { t.log_softmax(d); });
    // Past the end for unsqueeze too (its range is one wider), without overflowing d.
    const int64_t past = d == kMax || d == kMin ? d : (d > 0 ? d + 1 : d - 1);
    add("dims", [t, past] { t.unsqueeze(past); });
    add("dims", [t, d] { t.squeeze(d); });
    add("dims", [t, d] { t.transpose(0, d); });
    add("dims", [t, d] { t.flatten(d, 1); });
    add("dims", [t, d] { t.permute({0, d}); });
  }
  add("dims", [] { zeros({2, 3}).sum({0, 0}); });
  add("dims", [] { zeros({2, 3}).permute({0, 0}); });
  add("dims", [] { zeros({2, 3}).permute({0}); });

  // Views: sizes, offsets and lengths that do not fit or wrap.
  const Tensor t = arange(0, 6).view({2, 3});
  add("views", [t] { t.view({4, 2}); });
  add("views", [t] { t.view({-1, -1}); });
  add("views", [t] { t.view({-2, 3}); });
  add("views", [t] { t.view({kMax, 2}); });
  add("views", [t] { t.view({0, -1}); });
  add("views", [] { empty({0}).view({int64_t{1} << 32, int64_t{1} << 32, 0}); });
  add("views", [t] { t.t().view({6}); });
  add("views", [t] { t.reshape({7}); });
  add("views", [t] { t.reshape({kMax, kMax}); });
  add("views", [t] { t.narrow(1, 1, kMax); });
  add("views", [t] { t.narrow(1, kMax, 1); });
  add("views", [t] { t.narrow(1, kMin, 1); });
  add("views", [t] { t.narrow(1, 0, -1); });
  add("views", [t] { t.narrow(1, 4, 0); });
  add("views", [t] { t.select(0, 2); });
  add("views", [t] { t.select(0, kMin); });
  add("views", [t] { t.select(0, kMax); });
  add("views", [t] { t.expand({-5}); });
  add("views", [t] { t.expand({2, -2}); });
  add("views", [t] { t.expand({3}); });
  add("views", [t] { t.expand({4, 3}); });
  add("views", [t] { t.expand({-1, 2, 3}); });
  add("views", [] { tensor({1}, kFloat32).expand({kMax, kMax}); });
  add("views", [] { tensor({1}, kFloat32).expand({int64_t{1} << 40, int64_t{1} << 40}); });
  add("views", [t] { t.t().t().t().view({3, 2}).view({6}).size(2); });

  // conv2d and pools: windows, strides, paddings and dilations that do not fit or wrap.
  const Tensor x = x4(), w = ones({1, 1, 3, 3});
  add("conv2d", [x, w] { conv2d(x, w, Tensor(), 1, kMax / 2 + 1); });
  add("conv2d", [x, w] { conv2d(x, w, Tensor(), 1, int64_t{1} << 40); });
  add("conv2d", [x, w] { conv2d(x, w, Tensor(), 1, 0, kMax); });
  add("conv2d", [x, w] { conv2d(x, w, Tensor(), 1, 0, int64_t{1} << 62); });
  add("conv2d", [x, w] { conv2d(x, w, Tensor(), 0); });
  add("conv2d", [x, w] { conv2d(x, w, Tensor(), -1); });
  add("conv2d", [x, w] { conv2d(x, w, Tensor(), kMin); });
  add("conv2d", [x, w] { conv2d(x, w, Tensor(), 1, -1); });
  add("conv2d", [x, w] { conv2d(x, w, Tensor(), 1, kMin); });
  add("conv2d", [x, w] { conv2d(x, w, Tensor(), 1, 0, 0); });
  add("conv2d", [x, w] { conv2d(x, w, Tensor(), 1, 0, 4); });
  add("conv2d", [x] { conv2d(x, ones({1, 1, 0, 0})); });
  add("conv2d", [x] { conv2d(x, ones({1, 1, 7, 7})); });
  add("conv2d", [x] { conv2d(x, ones({1, 2, 3, 3})); });
  add("conv2d", [x] { conv2d(x, ones({1, 1, 3})); });
  add("conv2d", [x, w] { conv2d(x, w, ones({2})); });
  add("conv2d", [w] { conv2d(ones({6, 6}), w); });
  add("conv2d", [w] { conv2d(ones({1, 1, 1, 6, 6}), w); });
  add("conv2d", [x] { conv2d(x, ones({1, 1, 3, 3}, kFloat64)); });
  add("conv2d", [w] { conv2d(ones({1, 1, 6, 6}, kInt64), w.to(kInt64)); });
  for (auto pool :
       {+[](const Tensor& in, IntPair k, IntPair st, IntPair p) { return max_pool2d(in, k, st, p); },
        +[](const Tensor& in, IntPair k, IntPair st, IntPair p) { return avg_pool2d(in, k, st, p); },
        +[](const Tensor& in, IntPair k, IntPair st, IntPair p) {
          return max_pool2d_with_indices(in, k, st, p).values;
        }}) {
    add("pools", [x, pool] { pool(x, 0, 0, 0); });
    add("pools", [x, pool] { pool(x, -2, 0, 0); });
    add("pools", [x, pool] { pool(x, 7, 0, 0); });
    add("pools", [x, pool] { pool(x, kMax, 1, kMax / 2); });
    add("pools", [x, pool] { pool(x, kMax, 1, 0); });
    add("pools", [x, pool] { pool(x, 2, -1, 0); });
    add("pools", [x, pool] { pool(x, 2, 1, 2); });
    add("pools", [x, pool] { pool(x, 2, 1, -1); });
    add("pools", [x, pool] { pool(x, IntPair(2, kMin), 1, 0); });
    add("pools", [pool] { pool(ones({1, 1, 0, 0}), 2, 1, 1); });
    add("pools", [pool] { pool(ones({1, 0, 3}), 2, 1, 1); });
    add("pools", [pool] { pool(ones({6, 6}), 2, 2, 0); });
    add("pools", [pool] { pool(ones({1, 1, 6, 6}, kInt64), 2, 2, 0); });
  }

  // Index ops: indices out of range (either sign), wrong dtypes, shapes and dims.
  const Tensor v = arange(0, 6).view({2, 3});
  for (int64_t i : {int64_t{3}, int64_t{-4}, kMax, kMin}) {
    add("index", [v, i] { index_select(v, 0, idx({0, i})); });
    add("index", [v, i] { gather(v, 1, from_vector(std::vector<int64_t>{0, i}, {2, 1})); });
    add("index", [v, i] { index_select(v, i, idx({0})); });
    add("index", [v, i] { gather(v, i, from_vector(std::vector<int64_t>{0, 0}, {2, 1})); });
  }
  add("index", [v] { index_select(v, 0, tensor({0}, kFloat32)); });
  add("index", [v] { index_select(v, 0, from_vector(std::vector<int64_t>{0}, {1, 1})); });
  add("index", [v] { gather(v, 0, idx({0})); });
  add("index", [v] { gather(v, 0, from_vector(std::vector<int64_t>(8, 0), {2, 4})); });
  add("index", [v] { cat({}); });
  add("index", [v] { cat({v, zeros({3, 3})}, 1); });
  add("index", [v] { cat({v, v.to(kFloat64)}); });
  add("index", [v] { stack({v, zeros({3, 2})}); });
  add("index", [v] { stack({v, v}, 3); });
  add("index", [v] { cat({v, Tensor()}); });

  // Elementwise, matmul, losses, norms, dropout: shapes, dtypes, undefined tensors, values.
  add("math", [v] { v + zeros({3, 2}); });
  add("math", [v] { v + v.to(kFloat64); });
  add("math", [v] { v.matmul(v); });
  add("math", [v] { matmul(v, zeros({4})); });
  add("math", [] { matmul(scalar_tensor(1), scalar_tensor(1)); });
  add("math", [v] { linear(v, zeros({2, 4})); });
  add("math", [v] { v + Tensor(); });
  add("math", [] { Tensor().sum(); });
  add("math", [] { Tensor().item<float>(); });
  add("math", [v] { v.item<float>(); });
  add("math", [v] {
    Tensor c = v;
    c.add_(zeros({4}));
  });
  add("math", [] {
    Tensor b = zeros({2}, kBool);
    b.add_(1.0);
  });
  add("math", [v] { cross_entropy(v, idx({0, 3})); });
  add("math", [v] { cross_entropy(v, idx({0, -1})); });
  add("math", [v] { cross_entropy(v, idx({0, kMax})); });
  add("math", [v] { cross_entropy(v, idx({0})); });
  add("math", [v] { cross_entropy(v, tensor({0, 1}, kFloat32)); });
  add("math", [v] { nll_loss(v, idx({kMin, 0})); });
  add("math", [v] { mse_loss(v, zeros({3, 2})); });
  add("math", [v] { dropout(v, -0.1); });
  add("math", [v] { dropout(v, 1.5); });
  add("math", [v] { dropout(v, kNaN); });
  add("math", [v] { dropout2d(v, 2.0); });
  add("math", [] { batch_norm(ones({2, 3, 2, 2}), zeros({2}), ones({3})); });
  add("math", [v] {
    Tensor c = v;
    c.requires_grad_(true);
    c.view({6}).backward();
  });
  add("math", [] {
    Tensor i = zeros({2}, kInt64);
    i.requires_grad_(true);
  });

  // Modules, optimizers and schedulers: constructor arguments and state.
  add("nn", [] { nn::Linear(-1, 3); });
  add("nn", [] { nn::Linear(3, kMax); });
  add("nn", [] { nn::Conv2d(1, 1, 0); });
  add("nn", [] { nn::Conv2d(-1, 1, 3); });
  add("nn", [] { nn::Conv2d(1, 1, kMax); });
  add("nn", [] { nn::BatchNorm2d(-2); });
  add("nn", [] { nn::Dropout d(2.0); });
  add("nn", [] { nn::Dropout d(kNaN); });
  add("nn", [] { nn::MaxPool2d(0)(x4()); });
  add("nn", [] { nn::AvgPool2d(-1)(x4()); });
  add("nn", [] { nn::SGD(std::vector<Tensor>{}, nn::SGDOptions{0.1}); });
  add("nn", [] {
    Tensor p = zeros({2}).requires_grad_(true);
    nn::SGD({p}, nn::SGDOptions{kNaN});
  });
  add("nn", [] {
    Tensor p = zeros({2}).requires_grad_(true);
    nn::SGD({p}, nn::SGDOptions{-1});
  });
  add("nn", [] {
    Tensor p = zeros({2}).requires_grad_(true);
    nn::Adam({p}, nn::AdamOptions{0.1, kNaN});
  });
  add("nn", [] {
    Tensor p = zeros({2}).requires_grad_(true);
    nn::Adam({p}, nn::AdamOptions{0.1, 0.9, 1.0});
  });
  for (double step : {kNaN, 1e300, -1.0, 0.5, kInf}) {
    add("nn", [step] {
      Tensor p = zeros({2}).requires_grad_(true);
      nn::Adam opt({p}, nn::AdamOptions{0.1});
      p.set_grad(ones({2}));
      opt.step();
      nn::StateDict sd = opt.state_dict();
      sd.insert("state.0.step", scalar_tensor(step, kFloat64));
      opt.load_state_dict(sd);
    });
  }
  add("nn", [] {
    nn::Linear m(2, 2);
    nn::StateDict sd = m.state_dict();
    sd.insert("weight", zeros({3, 2}));
    m.load_state_dict(sd);
  });
  add("nn", [] {
    Tensor p = zeros({2}).requires_grad_(true);
    nn::SGD opt({p}, nn::SGDOptions{0.1});
    nn::StepLR(opt, 0);
  });
  add("nn", [] {
    Tensor p = zeros({2}).requires_grad_(true);
    nn::SGD opt({p}, nn::SGDOptions{0.1});
    nn::StepLR(opt, -5);
  });

  // Data: datasets and loader options.
  add("data", [] { data::TensorDataset(zeros({3, 2}), zeros({4})); });
  add("data", [] { data::TensorDataset(scalar_tensor(1), scalar_tensor(1)); });
  add("data", [] { data::TensorDataset(Tensor(), zeros({1})); });
  add("data", [] { data::TensorDataset(zeros({2}), zeros({2})).get(2); });
  add("data", [] { data::TensorDataset(zeros({2}), zeros({2})).get(SIZE_MAX); });
  add("data", [] { data::TensorDataset(zeros({2}), zeros({2})).get_batch({5}); });
  add("data", [] { data::TensorDataset(zeros({2}), zeros({2})).get_batch({-1}); });
  add("data", [] { data::TensorDataset(zeros({2}), zeros({2})).get_batch({kMin}); });
  for (size_t b : {size_t{0}, SIZE_MAX, size_t{1} << 31, size_t{1} << 63}) {
    add("data", [b] {
      data::DataLoaderOptions o;
      o.batch_size = b;
      data::DataLoader(std::make_shared<data::TensorDataset>(zeros({2}), zeros({2})), o);
    });
  }
  add("data", [] { data::DataLoader(nullptr); });
  add("data", [] { data::Normalize(0, 0); });
  add("data", [] { data::Normalize(0, -1); });
  add("data", [] { data::Normalize(0, kNaN); });
  add("data", [] { data::read_idx("/nonexistent/ember/file"); });
  add("data", [] { data::MNIST("/nonexistent/ember/dir", true); });

  // Devices and bytes: device strings, JSON and safetensors headers.
  for (const char* d : {"", "gpu", "cuda:", "cuda:-1", "cuda:1234567", "cuda:1x", "CPU", " cpu", "cpu:0",
                        "cuda:99999999999999999999", "cuda:+1", "cuda: 1", "\xff"})
    add("strings", [d] { Device{std::string(d)}; });
  add("strings", [] { Device(static_cast<const char*>(nullptr)); });
  for (const char* j : {"", "{", "[1,", "\"\xff\"", "{\"a\":1}}", "nul", "1e", "--1", "\"\\ud800\""})
    add("strings", [j] { io::json::parse(j); });
  for (const std::string& b :
       {std::string(), std::string(7, '\0'), std::string("\xff\xff\xff\xff\xff\xff\xff\xff{}", 10),
        std::string("\x02\0\0\0\0\0\0\0{}", 10) + "x", std::string("\x02\0\0\0\0\0\0\0[]", 10)})
    add("strings", [b] { nn::decode_safetensors(b); });
  add("strings", [] { nn::encode_safetensors(nn::StateDict{{"\xff", zeros({1})}}); });
  add("strings", [] { nn::load_file("/nonexistent/ember.safetensors"); });
  add("strings", [] { nn::save_file(nn::StateDict{{"a", zeros({1})}}, "/nonexistent/dir/a.safetensors"); });
  add("strings", [] { nn::check_writable("/nonexistent/dir/a.safetensors"); });
  return c;
}

}  // namespace

TEST(BadInputSweep, EveryCallIsATypedError) {
  std::map<std::string, int> count, failed;
  int index = 0;
  for (const Call& call : calls()) {
    ++count[call.category];
    try {
      call.fn();
      ADD_FAILURE() << call.category << " call #" << index << " was accepted";
      ++failed[call.category];
    } catch (const Error&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << call.category << " call #" << index << " threw a non-Ember " << e.what();
      ++failed[call.category];
    }
    ++index;
  }
  int total = 0;
  for (const auto& [category, n] : count) {
    std::printf("  sweep %-10s %4d calls, %d not a typed error\n", category.c_str(), n, failed[category]);
    total += n;
  }
  std::printf("  sweep total      %4d calls\n", total);
  EXPECT_GT(total, 300);
}
