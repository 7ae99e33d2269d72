// The CPU thread count. It is core's, beside its public header; the CPU backend's pool reads
// it (kernels/cpu/thread_pool.cpp), so that core needs no backend to set it.
#include "ember/core/threads.h"

#include <atomic>

#include "ember/core/error.h"

namespace ember {
namespace {
// Default: one thread. On machines whose cores share FMA units a second compute thread
// rarely helps, and a library should not take every core unasked.
std::atomic<int> g_threads{1};
}  // namespace

void set_num_threads(int n) {
  if (n < 1) raise<ValueError>("set_num_threads: expected n >= 1, got ", n);
  g_threads.store(n);
}

int get_num_threads() { return g_threads.load(std::memory_order_relaxed); }

}  // namespace ember
