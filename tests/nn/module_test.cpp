// Module trees: registration and names, traversal order, repr, moves between devices and
// dtypes, train/eval, freezing, and state dicts.
#include <gtest/gtest.h>

#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;

namespace {

// A small all-Linear model: runs on core ops that need no convolution.
struct Mlp : nn::Module {
  Mlp() : Module("Mlp") {
    fc1 = register_module("fc1", std::make_shared<nn::Linear>(4, 3));
    body = register_module(
        "body", std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
                    std::make_shared<nn::Linear>(3, 3), std::make_shared<nn::ReLU>()}));
    fc2 = register_module("fc2", std::make_shared<nn::Linear>(3, 2, /*bias=*/false));
  }
  Tensor forward(const Tensor& x) override { return fc2->forward(body->forward(fc1->forward(x))); }
  std::shared_ptr<nn::Linear> fc1, fc2;
  std::shared_ptr<nn::Sequential> body;
};

// A module that registers a tensor it is given: the way to share a parameter.
struct Holder : nn::Module {
  explicit Holder(const Tensor& t) : Module("Holder") { w = register_parameter("w", t); }
  Tensor w;
};

std::vector<std::string> names_of(const nn::NamedTensors& named) {
  std::vector<std::string> out;
  for (const auto& n : named) out.push_back(n.first);
  return out;
}

}  // namespace

TEST(Module, NamesShapesAndDevicesOfParameters) {
  Mlp net;
  const auto params = net.named_parameters();
  EXPECT_EQ(names_of(params), (std::vector<std::string>{"fc1.weight", "fc1.bias", "body.0.weight",
                                                        "body.0.bias", "fc2.weight"}));
  const std::vector<Shape> shapes{{3, 4}, {3}, {3, 3}, {3}, {2, 3}};
  for (size_t i = 0; i < params.size(); ++i) {
    EXPECT_EQ(params[i].second.shape(), shapes[i]) << params[i].first;
    EXPECT_EQ(params[i].second.device(), Device::cpu());
    EXPECT_EQ(params[i].second.name(), params[i].first);  // the tensor carries its path
    EXPECT_TRUE(params[i].second.requires_grad());
  }
  EXPECT_EQ(net.parameters().size(), 5u);
  EXPECT_TRUE(net.fc1->weight.is_same(net.parameters()[0]));
  EXPECT_EQ(names_of(net.named_parameters(/*recurse=*/false)), std::vector<std::string>{});
  EXPECT_EQ(names_of(net.fc1->named_parameters()), (std::vector<std::string>{"weight", "bias"}));
}

TEST(Module, ChildrenAndModulesInRegistrationOrder) {
  Mlp net;
  const auto children = net.named_children();
  ASSERT_EQ(children.size(), 3u);
  EXPECT_EQ(children[0].first, "fc1");
  EXPECT_EQ(children[1].first, "body");
  EXPECT_EQ(children[2].first, "fc2");
  EXPECT_EQ(net.children()[1].get(), net.body.get());
  std::vector<std::string> paths;
  for (const auto& m : net.named_modules()) paths.push_back(m.first + ":" + m.second->type_name());
  EXPECT_EQ(paths, (std::vector<std::string>{":Mlp", "fc1:Linear", "body:Sequential", "body.0:Linear",
                                             "body.1:ReLU", "fc2:Linear"}));
  EXPECT_EQ(net.modules().front().get(), &net);  // a stack-owned root is returned too
  auto owned = std::make_shared<Mlp>();
  EXPECT_EQ(owned->modules().front(), owned);
  EXPECT_EQ(owned->modules().size(), 6u);
}

TEST(Module, ReprMatchesPyTorch) {
  struct Net : nn::Module {
    Net() : Module("Net") {
      register_module("conv1", std::make_shared<nn::Conv2d>(1, 4, 3));
      register_module("bn", std::make_shared<nn::BatchNorm2d>(4));
      register_module("pool", std::make_shared<nn::MaxPool2d>(2));
      register_module("head",
                      std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
                          std::make_shared<nn::Flatten>(), std::make_shared<nn::Dropout>(0.25),
                          std::make_shared<nn::Linear>(36, 10), std::make_shared<nn::ReLU>()}));
    }
  } net;
  // Printed by PyTorch 1.13 for the same model.
  EXPECT_EQ(net.repr(),
            "Net(\n"
            "  (conv1): Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1))\n"
            "  (bn): BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
            "  (pool): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)\n"
            "  (head): Sequential(\n"
            "    (0): Flatten(start_dim=1, end_dim=-1)\n"
            "    (1): Dropout(p=0.25, inplace=False)\n"
            "    (2): Linear(in_features=36, out_features=10, bias=True)\n"
            "    (3): ReLU()\n"
            "  )\n"
            ")");
  EXPECT_EQ(nn::Conv2d(3, 8, {3, 5}, 2, 1, 1, false).repr(),
            "Conv2d(3, 8, kernel_size=(3, 5), stride=(2, 2), padding=(1, 1), bias=False)");
  EXPECT_EQ(nn::CrossEntropyLoss().repr(), "CrossEntropyLoss()");
  EXPECT_EQ(nn::Module().repr(), "Module()");
  std::ostringstream os;
  os << nn::ReLU();
  EXPECT_EQ(os.str(), "ReLU()");
  EXPECT_EQ(
      nn::BatchNorm2d(32).state_dict().keys(),
      (std::vector<std::string>{"weight", "bias", "running_mean", "running_var", "num_batches_tracked"}));
}

TEST(Module, PythonFloatFormatting) {
  EXPECT_EQ(nn::detail::py_float(0.1), "0.1");
  EXPECT_EQ(nn::detail::py_float(1e-5), "1e-05");
  EXPECT_EQ(nn::detail::py_float(1.5e-7), "1.5e-07");
  EXPECT_EQ(nn::detail::py_float(1.0), "1.0");
  EXPECT_EQ(nn::detail::py_float(0.25), "0.25");
  EXPECT_EQ(nn::detail::py_float(1e16), "1e+16");
  EXPECT_EQ(nn::detail::py_float(123456.0), "123456.0");
  EXPECT_EQ(nn::detail::py_float(0.0001), "0.0001");
}

TEST(Module, SharedParameterKeepsItsFirstName) {
  nn::Module root("Root");
  auto a = std::make_shared<nn::Linear>(2, 2);
  auto tied = std::make_shared<Holder>(a->weight);  // shared before either is attached
  root.register_module("a", a);
  root.register_module("tied", tied);
  EXPECT_EQ(a->weight.name(), "a.weight");
  EXPECT_TRUE(tied->w.is_same(a->weight));
  // Listed once, under its first path; the state dict has every registration.
  EXPECT_EQ(names_of(root.named_parameters()), (std::vector<std::string>{"a.weight", "a.bias"}));
  EXPECT_EQ(root.state_dict().keys(), (std::vector<std::string>{"a.weight", "a.bias", "tied.w"}));
  // Registered again later under another root: the name stays.
  nn::Module other("Other");
  other.register_module("x", std::make_shared<Holder>(a->weight));
  EXPECT_EQ(a->weight.name(), "a.weight");
  // Names survive in-place moves but not detach() or clone().
  root.to(kFloat64);
  EXPECT_EQ(a->weight.name(), "a.weight");
  EXPECT_EQ(a->weight.detach().name(), "");
  EXPECT_EQ(a->weight.clone().name(), "");
}

TEST(Module, RegistrationErrors) {
  nn::Module m("M");
  m.register_parameter("w", zeros({2}));
  EXPECT_THROW_MSG(m.register_parameter("w", zeros({2})), ValueError, "register_parameter: M already has");
  EXPECT_THROW_MSG(m.register_buffer("a.b", zeros({2})), ValueError, "register_buffer: invalid name");
  EXPECT_THROW_MSG(m.register_parameter("u", Tensor()), ValueError,
                   "register_parameter: \"u\" is an undefined");
  Tensor leaf = ones({2}, TensorOptions().requires_grad(true));
  EXPECT_THROW_MSG(m.register_parameter("v", leaf * 2.0), ValueError,
                   "register_parameter: \"v\" must be a leaf");
  EXPECT_THROW_MSG(m.register_module("c", std::shared_ptr<nn::Linear>()), ValueError,
                   "register_module: \"c\" is a null");
  auto child = std::make_shared<nn::Module>("Child");
  auto parent = std::make_shared<nn::Module>("Parent");
  parent->register_module("child", child);
  EXPECT_THROW_MSG(child->register_module("loop", parent), ValueError,
                   "register_module: \"loop\" would make");
  EXPECT_THROW_MSG(nn::Module().forward(ones({1})), NotImplementedError, "Module does not define forward");
  EXPECT_THROW_MSG(nn::Linear(-1, 2), ValueError, "Linear: feature counts");
  EXPECT_THROW_MSG(nn::Conv2d(1, 2, 0), ValueError, "Conv2d: channels and kernel size");
  EXPECT_THROW_MSG(nn::Dropout(1.5), ValueError,
                   "Dropout: dropout probability has to be between 0 and 1, but got 1.5");
}

TEST(Module, TrainEvalReachEveryModule) {
  Mlp net;
  EXPECT_TRUE(net.is_training());
  net.eval();
  for (const auto& m : net.modules()) EXPECT_FALSE(m->is_training()) << m->type_name();
  net.body->train();
  EXPECT_FALSE(net.is_training());
  EXPECT_TRUE((*net.body)[0]->is_training());
  net.train();
  for (const auto& m : net.modules()) EXPECT_TRUE(m->is_training());
}

TEST(Module, FrozenSubmoduleGetsNoGradAndOptimizerSkipsIt) {
  manual_seed(1);
  Mlp net;
  net.fc1->requires_grad_(false);
  for (const auto& p : net.fc1->parameters()) EXPECT_FALSE(p.requires_grad());
  const std::vector<float> frozen = net.fc1->weight.to_vector<float>();
  const std::vector<float> trained = net.fc2->weight.to_vector<float>();
  nn::SGD opt(net.parameters(), {0.5});
  const Tensor loss = ember::square(net.forward(randn({5, 4}))).mean();
  loss.backward();
  EXPECT_FALSE(net.fc1->weight.grad().defined());
  EXPECT_FALSE(net.fc1->bias.grad().defined());
  ASSERT_TRUE(net.fc2->weight.grad().defined());
  opt.step();
  EXPECT_EQ(net.fc1->weight.to_vector<float>(), frozen);
  EXPECT_NE(net.fc2->weight.to_vector<float>(), trained);
  net.zero_grad();
  EXPECT_FALSE(net.fc2->weight.grad().defined());
}

TEST(Module, ZeroGradKeepsZerosWhenAsked) {
  Mlp net;
  net.forward(ones({1, 4})).sum().backward();
  net.zero_grad(/*set_to_none=*/false);
  ASSERT_TRUE(net.fc1->weight.grad().defined());
  EXPECT_TRUE(ember::test::values_near(net.fc1->weight.grad().sum(), {0}, {}));
}

TEST(Module, ToDTypeConvertsFloatingStateInPlace) {
  nn::Sequential net{std::make_shared<nn::Linear>(2, 2), std::make_shared<nn::BatchNorm2d>(2)};
  const Tensor w = (*std::dynamic_pointer_cast<nn::Linear>(net[0])).weight;  // a handle held elsewhere
  const std::vector<double> before = w.to_vector<double>();
  net[0]->forward(ones({1, 2})).sum().backward();
  net.to(kFloat64);
  EXPECT_EQ(w.dtype(), kFloat64);
  EXPECT_EQ(w.to_vector<double>(), before);
  EXPECT_EQ(w.grad().dtype(), kFloat64);
  const auto buffers = net.named_buffers();
  EXPECT_EQ(names_of(buffers),
            (std::vector<std::string>{"1.running_mean", "1.running_var", "1.num_batches_tracked"}));
  EXPECT_EQ(buffers[0].second.dtype(), kFloat64);
  EXPECT_EQ(buffers[2].second.dtype(), kInt64);  // counters stay integers
  EXPECT_THROW_MSG(net.to(kInt64), DTypeError, "Module::to: only floating dtypes");
}

TEST(Module, ToDeviceMovesParametersGradsAndBuffersInPlace) {
  ember::test::EmulatedCuda emu(2);
  Mlp net;
  auto bn = net.register_module("bn", std::make_shared<nn::BatchNorm2d>(3));
  const Tensor w = net.fc1->weight;
  const std::vector<float> values = w.to_vector<float>();
  net.forward(ones({2, 4})).sum().backward();
  const uint64_t version = w.version();
  net.to("cuda:1");
  for (const auto& p : net.named_parameters()) {
    EXPECT_EQ(p.second.device(), Device::cuda(1)) << p.first;
    EXPECT_EQ(p.second.name(), p.first);
  }
  for (const auto& b : net.named_buffers()) EXPECT_EQ(b.second.device(), Device::cuda(1)) << b.first;
  EXPECT_EQ(w.device(), Device::cuda(1));  // the handle taken before the move follows
  EXPECT_EQ(w.grad().device(), Device::cuda(1));
  EXPECT_EQ(w.to_vector<float>(), values);
  EXPECT_LE(w.version(), version);  // the move itself bumps nothing
  EXPECT_EQ(net.forward(ones({2, 4}, Device::cuda(1))).device(), Device::cuda(1));
  EXPECT_THROW(net.to("cuda:2"), DeviceError);
  EXPECT_EQ(w.device(), Device::cuda(1));  // a failed move changes nothing
  net.to(Device::cpu());
  EXPECT_EQ(bn->running_var.device(), Device::cpu());
  EXPECT_EQ(w.to_vector<float>(), values);
}

TEST(Module, ModelOnCpuWithInputOnCudaNamesTheParameter) {
  ember::test::EmulatedCuda emu(1);
  Mlp net;
  const Tensor x = ones({2, 4}, Device::cuda(0));
  EXPECT_THROW_LINE(net.forward(x), DeviceMismatchError,
                    "tensors on different devices: linear got input on cuda:0 and weight (fc1.weight) on "
                    "cpu; move the model with model.to(device) or the input with input.to(device)");
  net.to(x.device());
  EXPECT_EQ(net.forward(x).shape(), (Shape{2, 2}));
}

TEST(Module, StateDictRoundTripAcrossDevicesAndDtypes) {
  ember::test::EmulatedCuda emu(1);
  manual_seed(3);
  Mlp source;
  manual_seed(4);
  Mlp target;
  target.to("cuda:0");
  const nn::StateDict sd = source.state_dict();
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"fc1.weight", "fc1.bias", "body.0.weight", "body.0.bias",
                                                 "fc2.weight"}));
  EXPECT_EQ(sd.at("fc1.weight").name(), "");  // detached views
  target.load_state_dict(sd);
  EXPECT_EQ(target.fc1->weight.device(), Device::cuda(0));
  EXPECT_EQ(target.fc1->weight.to_vector<float>(), source.fc1->weight.to_vector<float>());
  EXPECT_EQ(target.fc2->weight.to_vector<float>(), source.fc2->weight.to_vector<float>());
  // A float64 checkpoint loads into float32 tensors.
  nn::StateDict wide;
  for (const auto& [k, v] : sd) wide.insert(k, v.to(kFloat64) * 2.0);
  target.load_state_dict(wide);
  EXPECT_EQ(target.fc1->bias.dtype(), kFloat32);
  EXPECT_TRUE(ember::test::values_near(target.fc1->bias, (source.fc1->bias * 2.0).to_vector<double>(), {3}));
}

TEST(Module, LoadStateDictReportsEveryProblem) {
  Mlp net;
  nn::StateDict sd = net.state_dict();
  nn::StateDict partial;
  for (const auto& [k, v] : sd)
    if (k != "fc1.bias" && k != "fc2.weight") partial.insert(k, v);
  partial.insert("fc3.weight", zeros({1}));
  partial.insert("extra", zeros({1}));
  EXPECT_THROW_LINE(net.load_state_dict(partial), ValueError,
                    "load_state_dict: error(s) loading into Mlp: missing keys: fc1.bias, fc2.weight; "
                    "unexpected keys: fc3.weight, extra");
  const std::vector<float> before = net.fc1->weight.to_vector<float>();
  nn::StateDict wrong = sd;
  wrong.insert("fc1.weight", ones({3, 4}));
  wrong.insert("body.0.weight", zeros({4, 3}));
  EXPECT_THROW_LINE(net.load_state_dict(wrong), ShapeError,
                    "load_state_dict: size mismatch for body.0.weight: the checkpoint has shape [4, 3] "
                    "but the model has shape [3, 3]");
  EXPECT_EQ(net.fc1->weight.to_vector<float>(), before);  // nothing copied
  // Not strict: missing and unexpected keys are ignored, the rest loads.
  nn::StateDict loose{{"fc1.weight", ones({3, 4})}, {"unknown", zeros({1})}};
  net.load_state_dict(loose, /*strict=*/false);
  EXPECT_TRUE(ember::test::values_near(net.fc1->weight.sum(), {12}, {}));
}

TEST(StateDict, OrderPrefixesAndLookups) {
  nn::StateDict sd{{"b", zeros({1})}, {"a", ones({2})}};
  sd.insert("b", ones({3}));  // replaced in place
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(sd.at("b").numel(), 3);
  EXPECT_EQ(sd.find("c"), nullptr);
  EXPECT_THROW_MSG(sd.at("c"), ValueError, "state dict has no entry \"c\"");
  nn::StateDict all = sd.with_prefix("model.");
  all.merge(nn::StateDict{{"optim.lr", zeros({})}});
  EXPECT_EQ(all.keys(), (std::vector<std::string>{"model.b", "model.a", "optim.lr"}));
  EXPECT_EQ(all.sub("model.").keys(), (std::vector<std::string>{"b", "a"}));
  EXPECT_THROW_MSG(all.merge(nn::StateDict{{"optim.lr", zeros({})}}), ValueError,
                   "state dict merge: duplicate");
}
