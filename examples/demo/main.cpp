// A small tour: tensors on a device, elementwise math, autograd, and the device check.
#include <iostream>

#include "ember/ember.h"

int main() {
  using namespace ember;
  manual_seed(0);
  const Device device = cuda::is_available() ? Device::cuda(0) : Device::cpu();
  std::cout << "Ember " << version() << " on " << device << "\n";

  Tensor x = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, device).requires_grad_(true);
  Tensor y = (x * x + 1.0).relu().sum();
  y.backward();
  std::cout << "x = " << x << "\ny = sum(relu(x * x + 1)) = " << y.item<float>() << "\ndy/dx = " << x.grad()
            << "\n";

  try {
    Tensor on_cpu = ones({2, 3});
    Tensor moved = on_cpu.to(Device::cuda(0));
    std::cout << (moved + on_cpu) << "\n";
  } catch (const Error& e) {
    std::cout << "as expected: " << e.what() << "\n";
  }
  return 0;
}
