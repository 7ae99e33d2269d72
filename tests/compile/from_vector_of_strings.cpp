// Compiled by the CTest from_vector.strings_are_refused_readably (tests/CMakeLists.txt): a
// tensor of std::string must not compile, and the compiler must print dtype_of's one-line
// reason. With EMBER_FROM_VECTOR_OF_INTS_ONLY the same file holds only what compiles.
#include <string>
#include <vector>

#include "ember/core/ops/factory.h"

int main() {
  ember::Tensor labels = ember::from_vector(std::vector<int>{1, 0});  // int32, fine
#ifndef EMBER_FROM_VECTOR_OF_INTS_ONLY
  ember::Tensor texts = ember::from_vector(std::vector<std::string>{"1", "0"});
#endif
  return 0;
}
