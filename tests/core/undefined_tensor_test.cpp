// A default-constructed Tensor at every public entry point: a ValueError naming the call,
// never a null dereference (docs/DESIGN.md, "Undefined tensors").
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;

namespace {

using Call = std::pair<const char*, std::function<void(Tensor&)>>;

// Each call's message starts with the call's own name (or the accessor it reads first).
std::vector<Call> calls_on_an_undefined_tensor() {
  Tensor x = ones({2, 2});
  return {
      {"shape", [](Tensor& u) { (void)u.shape(); }},
      {"strides", [](Tensor& u) { (void)u.strides(); }},
      {"size", [](Tensor& u) { (void)u.size(0); }},
      {"stride", [](Tensor& u) { (void)u.stride(0); }},
      {"offset", [](Tensor& u) { (void)u.offset(); }},
      {"dim", [](Tensor& u) { (void)u.dim(); }},
      {"numel", [](Tensor& u) { (void)u.numel(); }},
      {"dtype", [](Tensor& u) { (void)u.dtype(); }},
      {"device", [](Tensor& u) { (void)u.device(); }},
      {"numel", [](Tensor& u) { (void)u.is_contiguous(); }},
      {"name", [](Tensor& u) { (void)u.name(); }},
      {"set_name", [](Tensor& u) { u.set_name("x"); }},
      {"set_owner", [](Tensor& u) { u.set_owner({}); }},
      {"version", [](Tensor& u) { (void)u.version(); }},
      {"dtype", [](Tensor& u) { (void)u.data_ptr<float>(); }},
      {"data_ptr", [](Tensor& u) { (void)u.raw_data(); }},
      {"device", [](Tensor& u) { (void)u.values<float>(); }},
      {"item", [](Tensor& u) { (void)u.item<float>(); }},
      {"to_vector", [](Tensor& u) { (void)u.to_vector<float>(); }},
      {"to", [](Tensor& u) { (void)u.to(Device::cpu()); }},
      {"to", [](Tensor& u) { (void)u.to(kFloat64); }},
      {"clone", [](Tensor& u) { (void)u.clone(); }},
      {"contiguous", [](Tensor& u) { (void)u.contiguous(); }},
      {"copy_", [](Tensor& u) { u.copy_(ones({2})); }},
      {"copy_", [x](Tensor& u) mutable { x.copy_(u); }},
      {"fill_", [](Tensor& u) { u.fill_(1); }},
      {"fill_", [](Tensor& u) { u.zero_(); }},
      {"add_", [](Tensor& u) { u.add_(1.0); }},
      {"add_", [x](Tensor& u) mutable { x.add_(u); }},
      {"mul_", [](Tensor& u) { u.mul_(2.0); }},
      {"uniform_", [](Tensor& u) { uniform_(u, 0, 1); }},
      {"zeros_like", [](Tensor& u) { (void)zeros_like(u); }},
      {"ones_like", [](Tensor& u) { (void)ones_like(u); }},
      {"empty_like", [](Tensor& u) { (void)empty_like(u); }},
      {"randn_like", [](Tensor& u) { (void)randn_like(u); }},
      {"set_data", [](Tensor& u) { set_data(u, ones({2})); }},
      {"set_data", [x](Tensor& u) { set_data(x, u); }},
      {"mark_modified", [](Tensor& u) { mark_modified(u); }},
      {"requires_grad_", [](Tensor& u) { u.requires_grad_(true); }},
      {"set_grad", [](Tensor& u) { u.set_grad(Tensor()); }},
      {"detach", [](Tensor& u) { (void)u.detach(); }},
      {"backward", [](Tensor& u) { u.backward(); }},
      {"register_post_accumulate_grad_hook",
       [](Tensor& u) { u.register_post_accumulate_grad_hook([](const Tensor&) {}); }},
      {"view", [](Tensor& u) { (void)u.view({1}); }},
      {"reshape", [](Tensor& u) { (void)u.reshape({1}); }},
      {"flatten", [](Tensor& u) { (void)u.flatten(); }},
      {"permute", [](Tensor& u) { (void)u.permute({0}); }},
      {"transpose", [](Tensor& u) { (void)u.transpose(0, 1); }},
      {"t", [](Tensor& u) { (void)u.t(); }},
      {"narrow", [](Tensor& u) { (void)u.narrow(0, 0, 1); }},
      {"select", [](Tensor& u) { (void)u.select(0, 0); }},
      {"squeeze", [](Tensor& u) { (void)u.squeeze(); }},
      {"squeeze", [](Tensor& u) { (void)u.squeeze(0); }},
      {"unsqueeze", [](Tensor& u) { (void)u.unsqueeze(0); }},
      {"expand", [](Tensor& u) { (void)u.expand({2}); }},
      {"add", [](Tensor& u) { (void)(u + 1.0); }},
      {"add", [x](Tensor& u) { (void)(x + u); }},
      {"exp", [](Tensor& u) { (void)u.exp(); }},
      {"sum", [](Tensor& u) { (void)u.sum(); }},
      {"matmul", [x](Tensor& u) { (void)u.matmul(x); }},
      {"softmax", [](Tensor& u) { (void)u.softmax(0); }},
  };
}

}  // namespace

TEST(UndefinedTensor, EveryCallRaisesAValueErrorNamingItself) {
  for (auto& [name, call] : calls_on_an_undefined_tensor()) {
    Tensor u;
    try {
      call(u);
      ADD_FAILURE() << name << ": no exception";
    } catch (const ValueError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(name, 0), 0u) << "call " << name << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << ": not a ValueError: " << e.what();
    }
  }
}

TEST(UndefinedTensor, QueriesThatMakeSenseAnswerWithoutRaising) {
  Tensor u;
  EXPECT_FALSE(u.defined());
  EXPECT_FALSE(u.requires_grad());
  EXPECT_FALSE(u.grad().defined());
  EXPECT_TRUE(u.is_leaf());
  EXPECT_EQ(u.grad_fn(), nullptr);
  EXPECT_EQ(u.identity(), nullptr);
  EXPECT_TRUE(u.is_same(Tensor()));
  std::ostringstream os;
  os << u;
  EXPECT_EQ(os.str(), "tensor(undefined)");
}
