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
// read_idx takes a path: one scratch file per process, unlinked at once (nothing is left in
// /tmp, even after a crash) and named through /proc/self/fd.
int scratch_fd() {
  static const int fd = [] {
    char name[] = "/tmp/ember_fuzz_idx_XXXXXX";
    const int f = ::mkstemp(name);
    if (f < 0) std::abort();
    ::unlink(name);
    return f;
  }();
  return fd;
}

void write_scratch(const uint8_t* data, size_t size) {
  const int fd = scratch_fd();
  if (::ftruncate(fd, 0) != 0) std::abort();
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::fuzz::cap_allocations();
  write_scratch(data, size);
  static const std::string path = "/proc/self/fd/" + std::to_string(scratch_fd());
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
