#pragma once
// Sets the CPU thread count for one test and restores the previous count after it, so a test
// that needs two threads leaves the others on the default.
#include "ember/core/threads.h"

namespace ember::test {

struct ThreadsGuard {
  int saved = get_num_threads();
  explicit ThreadsGuard(int n) { set_num_threads(n); }
  ~ThreadsGuard() { set_num_threads(saved); }
  ThreadsGuard(const ThreadsGuard&) = delete;
  ThreadsGuard& operator=(const ThreadsGuard&) = delete;
};

}  // namespace ember::test
