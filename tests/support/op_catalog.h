#pragma once
// The list of Ember's ops with example arguments. Generated tests walk it so that no op is
// left out: mixed-device errors (every op taking two or more tensors), finite-difference
// gradients (every differentiable op) and the CUDA parity suite. Adding an op to Ember
// means adding it here.
#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

struct ArgSpec {
  std::string name;  // the op's parameter name, as in error messages ("lhs", "weight")
  Shape shape;
  DType dtype = kFloat32;      // floating args get float64 in gradchecks
  double lo = -1.0, hi = 1.0;  // value range (integers: [lo, hi))
  bool grad = true;            // floating args: checked by gradcheck
};

struct OpSpec {
  std::string label;  // unique test name ("add_broadcast")
  std::string op;     // the op's name in messages ("add")
  std::vector<ArgSpec> args;
  std::function<Tensor(const std::vector<Tensor>&)> fn;
  bool differentiable = true;
  bool crosses_devices = false;  // to, copy_: allowed to mix devices
  bool random = false;           // draws from the generator: seed before each call
  // false where finite differences cannot judge the example (inputs on a non-differentiable
  // point such as ties in a max, or rounding amplified past gradcheck's tolerance): gradcheck
  // skips the case, the parity suite still compares its gradients.
  bool finite_differences = true;
  // Random ops: how many float32 ulps the devices may differ by (normal draws go through
  // libm's log and cos on the CPU and CUDA's on a GPU); 0 compares bit for bit.
  int ulps = 0;
};

/// Every op with example arguments.
const std::vector<OpSpec>& op_catalog();
/// Random arguments for spec on device (floating dtype overridden by float_dtype).
std::vector<Tensor> make_args(const OpSpec& spec, Device device, DType float_dtype);

}  // namespace ember::test

namespace ember::test {
/// gtest prints a case by its label.
inline void PrintTo(const OpSpec& spec, std::ostream* os) { *os << spec.label; }
}  // namespace ember::test
