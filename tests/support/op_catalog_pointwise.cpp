// Catalog cases of the transformer toolkit's pointwise ops and moments: gelu (both forms; erf
// and rsqrt come from the op table, op_catalog_elementwise.cpp), masked_fill (out of place and in place,
// broadcast masks) and var / std. Outputs that would be NaN (an empty reduction, a correction past the count)
// stay out: the device comparisons here compare values exactly; tests/core/pointwise_test.cpp checks those.
#include "support/op_catalog_args.h"

namespace ember::test {
namespace {

using namespace catalog;
using Args = const std::vector<Tensor>&;

Tensor gelu_tanh(const Tensor& t) { return gelu(t, "tanh"); }
Tensor gelu_none(const Tensor& t) { return gelu(t); }

}  // namespace

std::vector<OpSpec> pointwise_cases() {
  std::vector<OpSpec> ops;
  auto push = [&](OpSpec s) { ops.push_back(std::move(s)); };

  // ---- unary rows: contiguous, strided (a narrowed transpose) and empty ----
  struct Un {
    const char* label;
    const char* op;
    Tensor (*fn)(const Tensor&);
    double lo, hi;
  };
  for (Un u : {Un{"gelu", "gelu", &gelu_none, -3, 3}, Un{"gelu_tanh", "gelu", &gelu_tanh, -3, 3}}) {
    auto fn = u.fn;
    push({u.label, u.op, {f("input", {2, 3}, u.lo, u.hi)}, [fn](Args a) { return fn(a[0]); }});
    push({std::string(u.label) + "_strided", u.op, {f("input", {3, 4}, u.lo, u.hi)}, [fn](Args a) {
            return fn(a[0].t().narrow(0, 1, 2));
          }});
    push({std::string(u.label) + "_empty", u.op, {f("input", {0, 3}, u.lo, u.hi)}, [fn](Args a) {
            return fn(a[0]);
          }});
  }

  // ---- masked_fill: a full mask, broadcast masks, a strided input, empty ----
  push({"masked_fill", "masked_fill", {f("input", {2, 3}), boolean("mask", {2, 3})}, [](Args a) {
          return masked_fill(a[0], a[1], 2.5);
        }});
  push({"masked_fill_broadcast", "masked_fill", {f("input", {4, 2, 3}), boolean("mask", {2, 1})}, [](Args a) {
          return masked_fill(a[0], a[1], -1e4);
        }});
  push({"masked_fill_strided", "masked_fill", {f("input", {3, 4}), boolean("mask", {3})}, [](Args a) {
          return a[0].t().masked_fill(a[1], 0.0);
        }});
  push({"masked_fill_empty", "masked_fill", {f("input", {0, 3}), boolean("mask", {3})}, [](Args a) {
          return masked_fill(a[0], a[1], 1.0);
        }});
  push({"masked_fill_", "masked_fill_", {f("self", {2, 3}), boolean("mask", {3})}, [](Args a) {
          Tensor s = a[0] * 1.0;
          s.masked_fill_(a[1], -0.5);
          return s;
        }});

  // ---- var / std: over dims, all elements, strided, keepdim, corrections, empty rows ----
  push({"var", "var", {f("input", {3, 5})}, [](Args a) { return var(a[0], {1}); }});
  push({"var_all", "var", {f("input", {3, 5})}, [](Args a) { return var(a[0]); }});
  push({"var_dims_keepdim", "var", {f("input", {2, 3, 4})}, [](Args a) {
          return var(a[0], {0, 2}, 1, true);
        }});
  push(
      {"var_strided", "var", {f("input", {3, 4})}, [](Args a) { return a[0].t().narrow(1, 0, 2).var({0}); }});
  push({"var_correction0", "var", {f("input", {4, 3})}, [](Args a) { return var(a[0], {0}, 0); }});
  push({"var_empty_rows", "var", {f("input", {0, 3})}, [](Args a) { return var(a[0], {1}); }});
  push({"std", "std", {f("input", {3, 5})}, [](Args a) { return ember::std(a[0], {-1}); }});
  push({"std_all", "std", {f("input", {3, 5})}, [](Args a) { return a[0].std(); }});
  push({"std_correction0_keepdim", "std", {f("input", {2, 6})}, [](Args a) {
          return a[0].std({1}, 0, true);
        }});
  return ops;
}

}  // namespace ember::test
