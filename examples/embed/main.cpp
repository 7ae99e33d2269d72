// Trains a tiny model through the installed package: fits y = 3x - 2 with autograd and
// plain gradient descent, then checks the answer. Exit code 0 means the package works.
#include <cmath>
#include <cstdio>

#include <ember/ember.h>

int main() {
  using namespace ember;
  manual_seed(0);
  Tensor x = rand({256, 1}) * 4.0 - 2.0;
  Tensor y = x * 3.0 - 2.0;
  Tensor w = zeros({1, 1}).requires_grad_(true);
  Tensor b = zeros({1}).requires_grad_(true);
  float loss_value = 0;
  for (int step = 0; step < 300; ++step) {
    Tensor loss = mse_loss(linear(x, w, b), y);
    loss.backward();
    {
      NoGradGuard no_grad;
      w.add_(w.grad(), -0.1);
      b.add_(b.grad(), -0.1);
    }
    w.set_grad(Tensor());
    b.set_grad(Tensor());
    loss_value = loss.item<float>();
  }
  const float wv = w.item<float>(), bv = b.item<float>();
  std::printf("ember %s: w = %.4f, b = %.4f, loss = %.2e\n", version(), wv, bv, loss_value);
  return (std::abs(wv - 3) < 1e-3 && std::abs(bv + 2) < 1e-3) ? 0 : 1;
}
