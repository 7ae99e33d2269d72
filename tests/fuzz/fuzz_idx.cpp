// The IDX reader on any bytes, raw or gzip: a uint8 tensor whose size matches its header,
// or an ember::Error; never a crash, a hang or an allocation above the size cap.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "ember/core/error.h"
#include "ember/data/idx.h"
#include "fuzz_support.h"

namespace {
// One file per process, rewritten for every input (read_idx takes a path).
const std::string& scratch_path() {
  static const std::string path = [] {
    std::string p = "/tmp/ember_fuzz_idx_" + std::to_string(::getpid()) + "_XXXXXX";
    const int fd = ::mkstemp(p.data());
    if (fd < 0) std::abort();
    ::close(fd);
    std::atexit([] { ::unlink(scratch_path().c_str()); });
    return p;
  }();
  return path;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::fuzz::cap_allocations();
  const std::string& path = scratch_path();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0) std::abort();
  try {
    const ember::Tensor t = ember::data::read_idx(path);
    if (t.dtype() != ember::kUInt8 || t.dim() < 1) std::abort();
    // Every value is read, so ASan sees any byte the reader did not own.
    const auto* p = static_cast<const uint8_t*>(t.raw_data());
    unsigned sum = 0;
    for (int64_t i = 0; i < t.numel(); ++i) sum += p[i];
    if (t.numel() == 0 && sum != 0) std::abort();
  } catch (const ember::Error&) {
  }
  return 0;
}
