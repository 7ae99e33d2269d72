#pragma once
// Two linear branches summed, for data-parallel tests that need backward to reach the
// parameters in an order of their choosing, or to skip some of them.
#include <memory>

#include "ember/ember.h"

namespace ember::test {

class TwoBranchNet : public nn::Module {
 public:
  /// Which branches forward uses, and which comes first in the sum (backward reaches the
  /// second one's parameters first).
  enum class Use { AThenB, BThenA, AOnly };

  explicit TwoBranchNet(Use use = Use::AThenB) : Module("TwoBranchNet"), use(use) {
    a = register_module("a", std::make_shared<nn::Linear>(3, 2));
    b = register_module("b", std::make_shared<nn::Linear>(3, 2));
  }
  Tensor forward(const Tensor& x) override {
    switch (use) {
      case Use::AThenB:
        return (*a)(x) + (*b)(x);
      case Use::BThenA:
        return (*b)(x) + (*a)(x);
      case Use::AOnly:
        break;
    }
    return (*a)(x);
  }

  Use use;
  std::shared_ptr<nn::Linear> a, b;
};

}  // namespace ember::test
