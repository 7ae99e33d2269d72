#include "ember/nn/dropout.h"

#include "ember/core/error.h"
#include "ember/core/ops/dropout.h"

namespace ember::nn {
namespace {
double checked_p(const char* layer, double p) {
  if (!(p >= 0 && p <= 1))
    raise<ValueError>(layer, ": dropout probability has to be between 0 and 1, but got ", p);
  return p;
}
}  // namespace

DropoutBase::DropoutBase(const char* type_name, double p_) : Module(type_name), p(checked_p(type_name, p_)) {}
std::string DropoutBase::extra_repr() const { return "p=" + detail::py_float(p) + ", inplace=False"; }

Tensor Dropout::forward(const Tensor& input) { return dropout(input, p, is_training()); }
Tensor Dropout2d::forward(const Tensor& input) { return dropout2d(input, p, is_training()); }

}  // namespace ember::nn
