// Catalog cases derived from the elementwise op table (extend/elementwise_ops.h): every row whose
// public function the table generates (unary Plain rows; binary Arith and Comparison rows) gets
// its cases here, its arguments drawn from its functor's domain (fn::Domain, kernels/functors.h).
// A new row therefore reaches gradcheck, the mixed-device checks and CUDA parity with no test
// edit. Rows whose functions are written by hand (Custom: clamp, pow with a scalar, gelu,
// logical_not) have hand-written cases in the other catalog files.
#include <type_traits>

#include "ember/extend/elementwise_ops.h"
#include "ember/kernels/functors.h"
#include "support/op_catalog_args.h"

namespace ember::test {
namespace {

using namespace catalog;
using Args = const std::vector<Tensor>&;
using Unary = Tensor (*)(const Tensor&);
using Binary = Tensor (*)(const Tensor&, const Tensor&);

// The functor's kDomain, else [-1, 1]; a binary functor's right operand: its kRhs, else that.
template <class F, class = void>
constexpr fn::Domain kLhsDomain{-1.0, 1.0};
template <class F>
constexpr fn::Domain kLhsDomain<F, std::void_t<decltype(F::kDomain)>> = F::kDomain;
template <class F, class = void>
constexpr fn::Domain kRhsDomain = kLhsDomain<F>;
template <class F>
constexpr fn::Domain kRhsDomain<F, std::void_t<decltype(F::kRhs)>> = F::kRhs;

// Contiguous, strided (a narrowed transpose) and empty.
void unary_cases(std::vector<OpSpec>& ops, const std::string& name, Unary fn, fn::Domain d) {
  ops.push_back({name, name, {f("input", {2, 3}, d.lo, d.hi)}, [fn](Args a) { return fn(a[0]); }});
  ops.push_back({name + "_strided", name, {f("input", {3, 4}, d.lo, d.hi)}, [fn](Args a) {
                   return fn(a[0].t().narrow(0, 1, 2));
                 }});
  ops.push_back({name + "_empty", name, {f("input", {0, 3}, d.lo, d.hi)}, [fn](Args a) { return fn(a[0]); }});
}

// Same shapes, broadcast against each other, and both transposed (one also narrowed).
void arith_cases(std::vector<OpSpec>& ops, const std::string& name, Binary fn, fn::Domain l, fn::Domain r) {
  ops.push_back({name, name, {f("lhs", {2, 3}, l.lo, l.hi), f("rhs", {2, 3}, r.lo, r.hi)}, [fn](Args a) {
                   return fn(a[0], a[1]);
                 }});
  ops.push_back({name + "_broadcast",
                 name,
                 {f("lhs", {4, 1, 3}, l.lo, l.hi), f("rhs", {2, 1}, r.lo, r.hi)},
                 [fn](Args a) { return fn(a[0], a[1]); }});
  ops.push_back(
      {name + "_strided", name, {f("lhs", {3, 2}, l.lo, l.hi), f("rhs", {4, 2}, r.lo, r.hi)}, [fn](Args a) {
         return fn(a[0].t(), a[1].narrow(0, 1, 3).t());
       }});
}

// A bool output, never recorded: a broadcast right operand, and a transposed left one.
void comparison_cases(std::vector<OpSpec>& ops, const std::string& name, Binary fn) {
  OpSpec s{name, name, {f("lhs", {2, 3}), f("rhs", {3})}, [fn](Args a) { return fn(a[0], a[1]); }};
  s.differentiable = false;
  ops.push_back(s);
  OpSpec t{name + "_strided", name, {f("lhs", {3, 2}), f("rhs", {2, 1})}, [fn](Args a) {
             return fn(a[0].t(), a[1]);
           }};
  t.differentiable = false;
  ops.push_back(t);
}

}  // namespace

std::vector<OpSpec> elementwise_cases() {
  std::vector<OpSpec> ops;
  // One expansion per row, chosen by its api or kind column; hand-written rows expand to nothing.
#define EMBER_CATALOG_UNARY_Plain(name, functor) \
  unary_cases(ops, #name, static_cast<Unary>(&ember::name), kLhsDomain<decltype functor>);
#define EMBER_CATALOG_UNARY_Custom(name, functor)
#define EMBER_CATALOG_UNARY_ROW(Enum, name, dtypes, api, functor, gradient) \
  EMBER_CATALOG_UNARY_##api(name, functor)
  EMBER_UNARY_OPS(EMBER_CATALOG_UNARY_ROW)
#define EMBER_CATALOG_BINARY_Arith(name, functor)                                          \
  arith_cases(ops, #name, static_cast<Binary>(&ember::name), kLhsDomain<decltype functor>, \
              kRhsDomain<decltype functor>);
#define EMBER_CATALOG_BINARY_Comparison(name, functor) \
  comparison_cases(ops, #name, static_cast<Binary>(&ember::name));
#define EMBER_CATALOG_BINARY_Gradient(name, functor)
#define EMBER_CATALOG_BINARY_ROW(Enum, name, dtypes, kind, functor, saves, lhs_gradient, rhs_gradient, \
                                 scalar_gradient)                                                      \
  EMBER_CATALOG_BINARY_##kind(name, functor)
  EMBER_BINARY_OPS(EMBER_CATALOG_BINARY_ROW)
#undef EMBER_CATALOG_BINARY_ROW
#undef EMBER_CATALOG_BINARY_Gradient
#undef EMBER_CATALOG_BINARY_Comparison
#undef EMBER_CATALOG_BINARY_Arith
#undef EMBER_CATALOG_UNARY_ROW
#undef EMBER_CATALOG_UNARY_Custom
#undef EMBER_CATALOG_UNARY_Plain
  return ops;
}

}  // namespace ember::test
