// softmax / log_softmax: the class dim is moved last (a view, copied only when needed) so
// the backend always sees contiguous rows.
#include "ember/core/ops/softmax.h"

#include "ember/core/ops/transfer.h"
#include "ember/core/ops/views.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

namespace ember {
namespace {

class SoftmaxNode final : public Node {
 public:
  explicit SoftmaxNode(bool log) : Node(log ? "log_softmax" : "softmax"), log_(log) {}
  std::vector<Tensor> backward(const Tensor& g) override {
    const Tensor& out = saved(0);
    Tensor grad_in = detail::make_empty(out.shape(), out.dtype(), out.device());
    backend_for(out.device()).softmax_backward(grad_in, g.contiguous(), out, log_);
    return {grad_in};
  }

 private:
  bool log_;
};

Tensor softmax_impl(const Tensor& input, int64_t dim_in, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  check_defined(name, {{"input", input}});
  check_floating(name, {"input", input});
  if (input.dim() == 0) return softmax_impl(input.reshape({1}), 0, log).reshape({});
  const int dim = normalize_dim(dim_in, input.dim(), name);
  const int last = static_cast<int>(input.dim()) - 1;
  Tensor x = dim == last ? input : input.transpose(dim, last);
  x = x.contiguous();
  Tensor out = detail::make_empty(x.shape(), x.dtype(), x.device());
  if (out.numel()) backend_for(x.device()).softmax(out, x, log);
  if (autograd::any_requires_grad({&x})) {
    auto node = autograd::make_node<SoftmaxNode>(log);
    node->save(out);
    autograd::record(out, node, {&x});
  }
  return dim == last ? out : out.transpose(dim, last);
}

}  // namespace

Tensor softmax(const Tensor& input, int64_t dim) { return softmax_impl(input, dim, false); }
Tensor log_softmax(const Tensor& input, int64_t dim) { return softmax_impl(input, dim, true); }

}  // namespace ember
