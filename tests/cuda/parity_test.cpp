// The CUDA parity suite, generated from the op catalog at run time (so ops added to the
// catalog on other branches are covered without an edit here): every op runs on fresh
// random inputs on cuda:0 and on the CPU, forward and (for differentiable ops) the
// gradients of a fixed weighted sum, and the results are compared under docs/DESIGN.md's
// tolerance. Ops that draw random numbers are compared exactly with the CPU in float32
// (normal draws to within the case's ulps).
// With two GPUs every op also runs on cuda:1 from inputs moved there from cuda:0.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "gpu_required.h"
#include "parity.h"
#include "support/op_catalog.h"

using namespace ember;
using ember::test::HostValues;
using ember::test::OpSpec;

namespace {

// Jacobian sparsity from float64 autograd on the CPU: for each output element the largest
// number of elements of one input it depends on (its K), and for each input element the
// number of outputs that depend on it (the K of its gradient). Above this many outputs a
// bound is used instead (every input element).
constexpr int64_t kMaxJacobianRows = 4096;

struct Sparsity {
  std::vector<int64_t> out_k;
  std::vector<std::vector<int64_t>> grad_k;  // per argument (empty: no gradient)
};

Sparsity jacobian_counts(const OpSpec& spec, const std::vector<Tensor>& args) {
  Sparsity s;
  s.grad_k.resize(args.size());
  Tensor out = spec.fn(args);
  const int64_t n_out = out.numel();
  int64_t bound = 1;
  for (const Tensor& a : args) bound += a.numel();
  if (!out.requires_grad() || !is_floating(out.dtype()) || n_out > kMaxJacobianRows) {
    const int64_t k = out.requires_grad() ? bound : 1;
    s.out_k.assign(static_cast<size_t>(n_out), k);
    for (size_t j = 0; j < args.size(); ++j)
      if (args[j].requires_grad()) s.grad_k[j].assign(static_cast<size_t>(args[j].numel()), n_out);
    return s;
  }
  s.out_k.assign(static_cast<size_t>(n_out), 1);
  for (size_t j = 0; j < args.size(); ++j)
    if (args[j].requires_grad()) s.grad_k[j].assign(static_cast<size_t>(args[j].numel()), 0);
  Tensor flat = out.reshape({-1});
  for (int64_t i = 0; i < n_out; ++i) {
    for (const Tensor& a : args)
      if (a.requires_grad()) a.set_grad(Tensor());
    flat.select(0, i).backward(Tensor(), /*retain_graph=*/true);
    for (size_t j = 0; j < args.size(); ++j) {
      if (!args[j].requires_grad() || !args[j].grad().defined()) continue;
      const std::vector<double> g = args[j].grad().to_vector<double>();
      int64_t nnz = 0;
      for (size_t e = 0; e < g.size(); ++e)
        if (g[e] != 0) {
          ++nnz;
          ++s.grad_k[j][e];
        }
      s.out_k[static_cast<size_t>(i)] = std::max(s.out_k[static_cast<size_t>(i)], nnz);
    }
  }
  for (const Tensor& a : args)
    if (a.requires_grad()) a.set_grad(Tensor());
  return s;
}

// A seed per case, so that each case sees its own (never all-zero) inputs.
uint64_t seed_for(const std::string& label) { return std::hash<std::string>()(label) % 1000003 + 1; }

bool wants_grad(const OpSpec& spec, size_t i, const Tensor& t) {
  return spec.differentiable && spec.args[i].grad && is_floating(t.dtype());
}

std::vector<Tensor> leaves_on(const OpSpec& spec, const std::vector<Tensor>& base, Device device,
                              DType float_dtype) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < base.size(); ++i) {
    Tensor t = is_floating(base[i].dtype()) ? base[i].to(float_dtype) : base[i];
    t = t.to(device).detach();
    if (wants_grad(spec, i, t)) t.requires_grad_(true);
    out.push_back(t);
  }
  return out;
}

// What one run of an op gives: its output and each argument's gradient of sum(out * w).
struct Run {
  Tensor out;
  std::vector<Tensor> grads;
};

Run run_op(const OpSpec& spec, const std::vector<Tensor>& args, const Tensor& weight_cpu) {
  Run r;
  if (spec.random) manual_seed(11);
  r.out = spec.fn(args);
  r.grads.resize(args.size());
  if (weight_cpu.defined() && r.out.requires_grad()) {
    Tensor w = weight_cpu.to(r.out.dtype()).to(r.out.device());
    (r.out * w).sum().backward();
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].requires_grad()) r.grads[i] = args[i].grad();
  }
  return r;
}

// Runs spec on device and compares with the CPU reference.
void check_on(const OpSpec& spec, Device device) {
  manual_seed(seed_for(spec.label));
  const std::vector<Tensor> base = ember::test::make_args(spec, Device::cpu(), kFloat32);
  // Random ops: the same draws on both devices, so float32 against float32, bit for bit.
  const DType ref_dtype = spec.random ? kFloat32 : kFloat64;
  const std::vector<Tensor> ref_args = leaves_on(spec, base, Device::cpu(), ref_dtype);
  Tensor probe;
  {
    NoGradGuard ng;
    if (spec.random) manual_seed(11);
    probe = spec.fn(ref_args);
  }
  const bool backward = spec.differentiable && is_floating(probe.dtype());
  Tensor weight;
  if (backward) weight = rand(probe.shape()) + 0.5;  // float32, in [0.5, 1.5)
  const Run ref = run_op(spec, ref_args, weight);

  // On cuda:0 the inputs come from the host. On cuda:1 some cross from cuda:0 (which enables
  // peer access both ways) and the others come straight from the host (a case whose
  // arguments all do runs without peer access), alternating by argument and case, so that
  // a kernel handed the other device's buffer fails there even outside strict devices.
  std::vector<Tensor> dev_args = leaves_on(spec, base, Device::cuda(0), kFloat32);
  if (device != Device::cuda(0)) {
    const std::vector<Tensor> direct = leaves_on(spec, base, device, kFloat32);
    for (size_t i = 0; i < dev_args.size(); ++i) {
      if ((i + seed_for(spec.label)) % 2 == 0) {
        dev_args[i] = direct[i];
        continue;
      }
      dev_args[i] = dev_args[i].detach().to(device).detach();
      if (wants_grad(spec, i, dev_args[i])) dev_args[i].requires_grad_(true);
    }
  }
  Run got;
  {
    ember::test::PoisonGuard poison(ember::test::poison_for(probe.dtype()));
    got = run_op(spec, dev_args, weight);
    cuda::synchronize();
  }
  ASSERT_EQ(got.out.device(), device) << spec.label << ": output on the wrong device";

  Sparsity k;
  if (!spec.random) {
    std::vector<Tensor> j_args = leaves_on(spec, base, Device::cpu(), kFloat64);
    k = jacobian_counts(spec, j_args);
  }
  EXPECT_TRUE(ember::test::matches(ember::test::host_values(got.out), ember::test::host_values(ref.out),
                                   k.out_k, spec.random, spec.label + " output", spec.ulps));
  for (size_t i = 0; i < dev_args.size(); ++i) {
    if (!ref.grads[i].defined() && !got.grads[i].defined()) continue;
    const std::string what = spec.label + " gradient of " + spec.args[i].name;
    ASSERT_EQ(ref.grads[i].defined(), got.grads[i].defined()) << what << " is missing on one device";
    EXPECT_TRUE(ember::test::matches(
        ember::test::host_values(got.grads[i]), ember::test::host_values(ref.grads[i]),
        spec.random ? std::vector<int64_t>() : k.grad_k[i], spec.random, what, spec.ulps));
  }
}

class CudaParity : public ::testing::TestWithParam<OpSpec> {};
std::string label(const ::testing::TestParamInfo<OpSpec>& info) { return info.param.label; }

}  // namespace

TEST_P(CudaParity, MatchesCpu) {
  EMBER_REQUIRE_GPU();
  check_on(GetParam(), Device::cuda(0));
}

TEST_P(CudaParity, MatchesCpuOnSecondDevice) {
  EMBER_REQUIRE_GPU();
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  check_on(GetParam(), Device::cuda(1));
}

INSTANTIATE_TEST_SUITE_P(Catalog, CudaParity, ::testing::ValuesIn(ember::test::op_catalog()), label);
