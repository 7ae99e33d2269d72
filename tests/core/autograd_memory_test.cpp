// Running out of memory while a long graph is built: OutOfMemoryError, and the graph is freed
// while that error unwinds without allocating (no std::terminate). Run in a child process
// under an address-space limit; sanitizer builds reserve their shadow memory up front, which
// such a limit cannot bound, so they skip it.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "ember/ember.h"
#include "support/sanitized.h"

using namespace ember;

#ifndef EMBER_TEST_SANITIZED
namespace {

// Bytes of address space this process maps now (/proc/self/statm's first field, in pages).
long mapped_bytes() {
  long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return pages * ::sysconf(_SC_PAGESIZE);
}

enum ChildResult { kOutOfMemoryError = 0, kBadAlloc = 3, kNoError = 4, kOtherError = 5 };

// In the child: a 100,000-op chain of small adds, then adds of 256 KiB tensors on the same
// graph until memory runs out (at most about 2 GiB), then everything is released.
int build_until_out_of_memory() {
  set_num_threads(1);  // a forked child has no pool workers to hand work to
  Tensor x = scalar_tensor(1.0).requires_grad_(true);
  Tensor y = x;
  for (int i = 0; i < 100000; ++i) y = y + 1.0;
  const rlimit limit{static_cast<rlim_t>(mapped_bytes() + (256l << 20)), RLIM_INFINITY};
  if (::setrlimit(RLIMIT_AS, &limit) != 0) return kOtherError;
  try {
    Tensor big = y.expand({65536}) * 1.0;
    for (int i = 0; i < 8192; ++i) big = big + 1.0;
    return kNoError;
  } catch (const OutOfMemoryError&) {
    return kOutOfMemoryError;
  } catch (const std::bad_alloc&) {
    return kBadAlloc;
  } catch (...) {
    return kOtherError;
  }
}

}  // namespace
#endif

TEST(AutogradMemory, RunningOutOfMemoryMidGraphIsAnOutOfMemoryErrorAndFreesTheGraph) {
#ifdef EMBER_TEST_SANITIZED
  GTEST_SKIP() << "an address-space limit cannot bound a sanitizer's reserved shadow memory";
#else
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(build_until_out_of_memory());
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << " (std::terminate aborts)";
  EXPECT_EQ(WEXITSTATUS(status), kOutOfMemoryError)
      << "3: std::bad_alloc escaped; 4: memory never ran out; 5: another error";
#endif
}
