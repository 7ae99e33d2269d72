#include "support/op_catalog.h"

#include "support/op_catalog_args.h"

namespace ember::test {
namespace {

using namespace catalog;
using Args = const std::vector<Tensor>&;

std::vector<OpSpec> build() {
  std::vector<OpSpec> ops;
  auto push = [&](OpSpec s) { ops.push_back(std::move(s)); };

  // ---- the elementwise table's generated ops (op_catalog_elementwise.cpp), and where ----
  for (OpSpec& s : elementwise_cases()) push(std::move(s));
  push({"where", "where", {boolean("condition", {2, 3}), f("input", {2, 3}), f("other", {3})}, [](Args a) {
          return where(a[0], a[1], a[2]);
        }});
  // ---- in place ----
  {
    OpSpec s{"add_", "add_", {f("self", {2, 3}), f("other", {3})}, [](Args a) {
               Tensor s = a[0].clone();
               s.add_(a[1], 0.5);
               return s;
             }};
    push(s);
    push({"mul_", "mul_", {f("self", {2, 3}), f("other", {2, 3})}, [](Args a) {
            Tensor s = a[0].clone();
            s.mul_(a[1]);
            return s;
          }});
  }
  // ---- the elementwise table's hand-written rows ----
  // logical_not: bool in, bool out, contiguous and strided.
  for (bool strided : {false, true}) {
    OpSpec s{strided ? "logical_not_strided" : "logical_not",
             "logical_not",
             {boolean("input", {3, 4})},
             [strided](Args a) { return logical_not(strided ? a[0].t().narrow(0, 1, 2) : a[0]); }};
    s.differentiable = false;
    push(s);
  }
  push({"clamp", "clamp", {f("input", {2, 3}, -2, 2)}, [](Args a) { return clamp(a[0], -1, 1); }});
  push({"pow_scalar", "pow", {f("input", {2, 3}, 0.5, 2)}, [](Args a) { return pow(a[0], 2.5); }});
  push({"rpow_scalar", "pow", {f("input", {2, 3})}, [](Args a) { return pow(1.5, a[0]); }});
  push({"scalar_arith", "div", {f("input", {2, 3}, 0.5, 2)}, [](Args a) {
          return (2.0 - a[0]) * 3.0 / 2.0 + 1.0 / a[0] - a[0] / 4.0 + maximum(a[0], 1.0);
        }});
  // ---- views ----
  push({"views", "reshape", {f("input", {2, 3, 4})}, [](Args a) {
          return a[0]
              .permute({2, 0, 1})
              .reshape({4, 6})
              .t()
              .narrow(0, 1, 4)
              .select(1, 2)
              .unsqueeze(0)
              .expand({3, 4})
              .flatten();
        }});
  push({"views_squeeze", "squeeze", {f("input", {2, 1, 3})}, [](Args a) {
          return a[0].squeeze(1).transpose(0, 1).reshape({6}) * 1.0 + a[0].squeeze().sum();
        }});
  push({"contiguous", "contiguous", {f("input", {3, 4})}, [](Args a) { return a[0].t().contiguous(); }});
  {
    // Rounding through float32 defeats finite differences; autograd_test checks it by hand.
    OpSpec s{"to_dtype", "to", {f("input", {2, 3})}, [](Args a) {
               return a[0].to(kFloat32).to(a[0].dtype()) * a[0];
             }};
    s.differentiable = false;
    push(s);
  }
  push({"clone", "clone", {f("input", {2, 3})}, [](Args a) { return a[0].clone() * 2.0; }});
  // ---- reductions ----
  push({"sum", "sum", {f("input", {3, 4})}, [](Args a) { return sum(a[0]); }});
  push({"sum_dims", "sum", {f("input", {2, 3, 4})}, [](Args a) { return sum(a[0], {0, 2}, true); }});
  push({"sum_strided", "sum", {f("input", {3, 4})}, [](Args a) { return sum(a[0].t(), {1}); }});
  push({"mean", "mean", {f("input", {3, 5})}, [](Args a) { return mean(a[0], {-1}); }});
  push({"mean_all", "mean", {f("input", {3, 5})}, [](Args a) { return mean(a[0]); }});
  push({"amax", "amax", {f("input", {3, 5})}, [](Args a) { return amax(a[0], {1}); }});
  push({"amin", "amin", {f("input", {3, 5})}, [](Args a) { return amin(a[0], {0}, true); }});
  push({"max_all", "amax", {f("input", {3, 5})}, [](Args a) { return max(a[0]); }});
  push({"min_all", "amin", {f("input", {3, 5})}, [](Args a) { return min(a[0]); }});
  push({"max_dim", "max", {f("input", {3, 5})}, [](Args a) { return max(a[0], 1).values; }});
  push({"min_dim", "min", {f("input", {4, 3})}, [](Args a) { return min(a[0].t(), 0, true).values; }});
  {
    OpSpec s{"argmax", "argmax", {f("input", {3, 5})}, [](Args a) { return argmax(a[0], 1); }};
    s.differentiable = false;
    push(s);
    OpSpec s2{"argmin", "argmin", {f("input", {3, 5})}, [](Args a) { return argmin(a[0], 0); }};
    s2.differentiable = false;
    push(s2);
  }
  // ---- linear algebra ----
  push({"matmul", "matmul", {f("lhs", {3, 4}), f("rhs", {4, 5})}, [](Args a) { return matmul(a[0], a[1]); }});
  push({"matmul_transposed", "matmul", {f("lhs", {4, 3}), f("rhs", {5, 4})}, [](Args a) {
          return matmul(a[0].t(), a[1].t());
        }});
  push({"matmul_batched", "matmul", {f("lhs", {2, 3, 4}), f("rhs", {4, 2})}, [](Args a) {
          return matmul(a[0], a[1]);
        }});
  push({"matmul_broadcast", "matmul", {f("lhs", {2, 1, 3, 4}), f("rhs", {3, 4, 2})}, [](Args a) {
          return matmul(a[0], a[1]);
        }});
  push({"matmul_vector", "matmul", {f("lhs", {4}), f("rhs", {4, 3})}, [](Args a) {
          return matmul(a[0], a[1]);
        }});
  push({"matmul_dot", "matmul", {f("lhs", {5}), f("rhs", {5})}, [](Args a) { return matmul(a[0], a[1]); }});
  push({"matmul_matvec", "matmul", {f("lhs", {3, 5}), f("rhs", {5})}, [](Args a) {
          return matmul(a[0], a[1]);
        }});
  push({"linear", "linear", {f("input", {5, 4}), f("weight", {3, 4}), f("bias", {3})}, [](Args a) {
          return linear(a[0], a[1], a[2]);
        }});
  push({"linear_nobias", "linear", {f("input", {2, 5, 4}), f("weight", {3, 4})}, [](Args a) {
          return linear(a[0], a[1]);
        }});
  // ---- softmax and losses ----
  push({"softmax", "softmax", {f("input", {3, 5}, -3, 3)}, [](Args a) { return softmax(a[0], 1); }});
  push({"softmax_dim0", "softmax", {f("input", {4, 3}, -3, 3)}, [](Args a) { return softmax(a[0], 0); }});
  push({"log_softmax", "log_softmax", {f("input", {3, 5}, -3, 3)}, [](Args a) {
          return log_softmax(a[0], -1);
        }});
  push({"cross_entropy", "cross_entropy", {f("input", {4, 5}, -3, 3), idx("target", {4}, 0, 5)}, [](Args a) {
          return cross_entropy(a[0], a[1]);
        }});
  push({"cross_entropy_sum",
        "cross_entropy",
        {f("input", {4, 5}, -3, 3), idx("target", {4}, 0, 5)},
        [](Args a) { return cross_entropy(a[0], a[1], Reduction::Sum); }});
  push({"cross_entropy_none",
        "cross_entropy",
        {f("input", {4, 5}, -3, 3), idx("target", {4}, 0, 5)},
        [](Args a) { return cross_entropy(a[0], a[1], Reduction::None); }});
  push({"nll_loss", "nll_loss", {f("input", {4, 5}, -3, 0), idx("target", {4}, 0, 5)}, [](Args a) {
          return nll_loss(a[0], a[1]);
        }});
  push({"mse_loss", "mse_loss", {f("input", {3, 4}), f("target", {3, 4})}, [](Args a) {
          return mse_loss(a[0], a[1]);
        }});
  // ---- convolution and pooling ----
  push(
      {"conv2d", "conv2d", {f("input", {2, 3, 6, 5}), f("weight", {4, 3, 3, 2}), f("bias", {4})}, [](Args a) {
         return conv2d(a[0], a[1], a[2]);
       }});
  push({"conv2d_nobias", "conv2d", {f("input", {1, 2, 5, 5}), f("weight", {3, 2, 3, 3})}, [](Args a) {
          return conv2d(a[0], a[1]);
        }});
  push({"conv2d_stride",
        "conv2d",
        {f("input", {2, 2, 7, 6}), f("weight", {3, 2, 3, 3}), f("bias", {3})},
        [](Args a) {
          return conv2d(a[0], a[1], a[2], {2, 1});
        }});
  push({"conv2d_padding",
        "conv2d",
        {f("input", {1, 2, 4, 5}), f("weight", {2, 2, 3, 3}), f("bias", {2})},
        [](Args a) {
          return conv2d(a[0], a[1], a[2], 1, {2, 1});
        }});
  push({"conv2d_dilation",
        "conv2d",
        {f("input", {1, 2, 9, 8}), f("weight", {2, 2, 2, 3}), f("bias", {2})},
        [](Args a) {
          return conv2d(a[0], a[1], a[2], {1, 2}, 1, {3, 2});
        }});
  push({"conv2d_strided",
        "conv2d",
        {f("input", {2, 2, 5, 6}), f("weight", {3, 2, 3, 3}), f("bias", {3})},
        [](Args a) { return conv2d(a[0].transpose(2, 3), a[1].transpose(2, 3), a[2]); }});
  push({"max_pool2d", "max_pool2d", {f("input", {2, 3, 6, 6})}, [](Args a) { return max_pool2d(a[0], 2); }});
  push({"max_pool2d_padded", "max_pool2d", {f("input", {1, 2, 7, 5})}, [](Args a) {
          return max_pool2d(a[0], 3, {2, 1}, 1);
        }});
  push({"max_pool2d_chw", "max_pool2d", {f("input", {2, 5, 4})}, [](Args a) {
          return max_pool2d(a[0], {2, 1});
        }});
  push({"avg_pool2d", "avg_pool2d", {f("input", {2, 3, 6, 6})}, [](Args a) { return avg_pool2d(a[0], 2); }});
  push({"avg_pool2d_padded", "avg_pool2d", {f("input", {1, 2, 7, 5})}, [](Args a) {
          return avg_pool2d(a[0], {3, 2}, {2, 1}, 1);
        }});
  // ---- normalisation and dropout ----
  {
    const std::vector<ArgSpec> args = {f("input", {4, 3, 2, 2}), fixed("running_mean", {3}, -1, 1),
                                       fixed("running_var", {3}, 0.5, 2), f("weight", {3}), f("bias", {3})};
    push({"batch_norm_train", "batch_norm", args,
          [](Args a) { return batch_norm(a[0], a[1], a[2], a[3], a[4], true); }});
    push({"batch_norm_eval", "batch_norm", args,
          [](Args a) { return batch_norm(a[0], a[1], a[2], a[3], a[4], false); }});
    const std::vector<ArgSpec> plain = {f("input", {5, 3}), fixed("running_mean", {3}, -1, 1),
                                        fixed("running_var", {3}, 0.5, 2)};
    push({"batch_norm_train_noaffine", "batch_norm", plain,
          [](Args a) { return batch_norm(a[0], a[1], a[2], Tensor(), Tensor(), true); }});
    push({"batch_norm_eval_noaffine", "batch_norm", plain,
          [](Args a) { return batch_norm(a[0], a[1], a[2], Tensor(), Tensor(), false); }});
    OpSpec d{"dropout", "dropout", {f("input", {4, 5})}, [](Args a) { return dropout(a[0], 0.3); }};
    d.random = true;
    push(d);
    OpSpec d2{
        "dropout2d", "dropout2d", {f("input", {4, 6, 2, 2})}, [](Args a) { return dropout2d(a[0], 0.5); }};
    d2.random = true;
    push(d2);
  }
  // ---- joining and indexing ----
  push(
      {"cat", "cat", {f("tensors[0]", {2, 3}), f("tensors[1]", {4, 3}), f("tensors[2]", {1, 3})}, [](Args a) {
         return cat({a[0], a[1], a[2]});
       }});
  push({"cat_strided", "cat", {f("tensors[0]", {3, 2}), f("tensors[1]", {2, 4})}, [](Args a) {
          return cat({a[0].t(), a[1]}, 1);
        }});
  push({"stack", "stack", {f("tensors[0]", {2, 3}), f("tensors[1]", {2, 3})}, [](Args a) {
          return stack({a[0], a[1]}, 1);
        }});
  push({"index_select", "index_select", {f("input", {4, 3}), idx("index", {5}, 0, 4)}, [](Args a) {
          return index_select(a[0], 0, a[1]);
        }});
  push({"index_select_strided", "index_select", {f("input", {3, 4}), idx("index", {4}, 0, 3)}, [](Args a) {
          return index_select(a[0].t(), 1, a[1]);
        }});
  push({"gather", "gather", {f("input", {3, 4}), idx("index", {3, 5}, 0, 4)}, [](Args a) {
          return gather(a[0], 1, a[1]);
        }});
  push({"gather_dim0", "gather", {f("input", {4, 3}), idx("index", {2, 3}, 0, 4)}, [](Args a) {
          return gather(a[0], 0, a[1]);
        }});
  for (OpSpec& s : block_path_cases()) push(std::move(s));
  for (OpSpec& s : layernorm_cases()) push(std::move(s));
  for (OpSpec& s : training_cases()) push(std::move(s));
  for (OpSpec& s : pointwise_cases()) push(std::move(s));
  for (OpSpec& s : scalars_cases()) push(std::move(s));
  for (OpSpec& s : attention_cases()) push(std::move(s));
  for (OpSpec& s : tails_cases()) push(std::move(s));
  return ops;
}

}  // namespace

const std::vector<OpSpec>& op_catalog() {
  static const std::vector<OpSpec> ops = build();
  return ops;
}

std::vector<Tensor> make_args(const OpSpec& spec, Device device, DType float_dtype) {
  std::vector<Tensor> args;
  for (const ArgSpec& a : spec.args) {
    Tensor t;
    if (a.dtype == kInt64) {
      t = randint(static_cast<int64_t>(a.lo), static_cast<int64_t>(a.hi), a.shape);
    } else if (a.dtype == kBool) {
      t = rand(a.shape) > 0.5;
    } else {
      t = rand(a.shape, float_dtype) * (a.hi - a.lo) + a.lo;
    }
    args.push_back(t.to(device));
  }
  return args;
}

}  // namespace ember::test
