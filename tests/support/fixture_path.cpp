// test::fixture_path (support/expect.h): the one place that knows where the fixtures are.
#include <cstdlib>
#include <string>

#include "support/expect.h"

namespace ember::test {

std::string fixture_path(const std::string& name) {
  const char* env = std::getenv("EMBER_SOURCE_DIR");
  return std::string(env ? env : EMBER_SOURCE_DIR) + "/tests/parity/fixtures/" + name;
}

}  // namespace ember::test
