// Device strings: any text either parses or throws ValueError; what parses prints back to
// a string that parses to the same device.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ember/core/device.h"
#include "ember/core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  ember::Device d;
  try {
    d = ember::Device(spec);
  } catch (const ember::ValueError&) {
    return 0;
  }
  const ember::Device back(d.str());
  if (back != d || d.index < 0) std::abort();
  if (spec != d.str() && spec != "cuda" && spec.compare(0, 5, "cuda:") != 0) std::abort();
  return 0;
}
