// Trains a tiny model through the installed package, as an embedding application would: the
// application's own buffers become tensors without a copy (from_blob), a model's parameters
// are found by name, and the answer is read back in place (values). Fits y = 3x - 2 with
// autograd and SGD, then checks it. Exit code 0 means the package works.
#include <cmath>
#include <cstdio>
#include <vector>

#include <ember/ember.h>

int main() {
  using namespace ember;
  // The application's data, owned by the application: Ember reads it where it is.
  std::vector<float> xs(256), ys(256);
  for (size_t i = 0; i < xs.size(); ++i) {
    xs[i] = -2.0f + 4.0f * static_cast<float>(i) / static_cast<float>(xs.size());
    ys[i] = 3.0f * xs[i] - 2.0f;
  }
  const Tensor x = from_blob(xs.data(), {256, 1});
  const Tensor y = from_blob(ys.data(), {256, 1});

  nn::Linear model(1, 1);
  Tensor w = model.parameter("weight"), b = model.parameter("bias");
  nn::SGD opt(model.parameters(), {0.1});
  float loss_value = 0;
  for (int step = 0; step < 300; ++step) {
    opt.zero_grad();
    Tensor loss = mse_loss(model(x), y);
    loss.backward();
    opt.step();
    loss_value = loss.item<float>();
  }
  const float wv = w.values<float>()[0], bv = b.values<float>()[0];
  std::printf("ember %s: w = %.4f, b = %.4f, loss = %.2e\n", version(), wv, bv, loss_value);
  try {
    (void)model.parameter("weights");
    return 1;  // an unknown name must not pass silently
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Value) return 1;
  }
  return (std::abs(wv - 3) < 1e-3 && std::abs(bv + 2) < 1e-3) ? 0 : 1;
}
