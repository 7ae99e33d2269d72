// Compiled by the CTests op_tables.* (tests/CMakeLists.txt), never linked: every table that
// says what an elementwise op is (names, dtype rules, functor dispatch) instantiated for
// float. With -DEMBER_EXTRA_UNARY_OP_FOR_TEST the enum gains an op that no table handles,
// and this file must then fail to compile (-Werror=switch).
#include "ember/kernels/elementwise_dispatch.h"

namespace {
struct Probe {
  template <class F>
  void operator()(F) const {}
};
}  // namespace

void ember_op_tables_probe(ember::UnaryOp u, ember::BinaryOp b) {
  (void)ember::op_name(u);
  (void)ember::is_floating_only(u);
  (void)ember::op_name(b);
  ember::with_unary<float>(u, 0, 0, Probe{});
  ember::with_binary<float>(b, Probe{});
  ember::with_comparison(b, Probe{});
}
