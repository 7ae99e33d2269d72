// Every user-facing row of the elementwise op table (extend/elementwise_ops.h) has a case in the
// op catalog (tests/support/op_catalog*.cpp), which feeds gradcheck, the mixed-device checks
// and CUDA parity: a new row without a case fails here instead of skipping those suites.
// Gradient rows (a backward's functor, which users never call) are exercised through their
// forward ops' gradients.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "ember/extend/elementwise_ops.h"
#include "support/op_catalog.h"

namespace {

// The table's rows as (name, whether the catalog must cover it).
struct Row {
  std::string name;
  bool user_facing;
};

std::vector<Row> table_rows() {
  std::vector<Row> rows;
#define EMBER_UNARY_ROW(Enum, name, dtypes, api, functor, gradient) rows.push_back({#name, true});
  EMBER_UNARY_OPS(EMBER_UNARY_ROW)
#undef EMBER_UNARY_ROW
#define EMBER_BINARY_ROW(Enum, name, dtypes, kind, functor, saves, lhs_gradient, rhs_gradient, \
                         scalar_gradient)                                                      \
  rows.push_back({#name, std::string(#kind) != "Gradient"});
  EMBER_BINARY_OPS(EMBER_BINARY_ROW)
#undef EMBER_BINARY_ROW
  return rows;
}

TEST(OpCatalog, EveryElementwiseRowHasACase) {
  std::set<std::string> covered;
  for (const auto& spec : ember::test::op_catalog()) covered.insert(spec.op);
  std::string missing;
  std::set<std::string> read, skipped;
  for (const Row& row : table_rows()) {
    (row.user_facing ? read : skipped).insert(row.name);
    if (row.user_facing && !covered.count(row.name)) missing += " " + row.name;
  }
  // The table is read whole: its first and last rows of each kind, the gradient rows apart.
  for (const char* name : {"neg", "gelu", "add", "ge"}) EXPECT_TRUE(read.count(name)) << name;
  EXPECT_EQ(skipped,
            (std::set<std::string>{"relu_backward", "sigmoid_backward", "tanh_backward", "gelu_backward"}));
  EXPECT_TRUE(missing.empty()) << "elementwise ops with no catalog case (tests/support/op_catalog*.cpp):"
                               << missing;
}

}  // namespace
