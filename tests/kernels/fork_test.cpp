// fork() after the CPU thread pool has run: the child has none of the parent's workers (fork
// copies only the calling thread), yet its parallel ops must run, and the parent's pool must
// be unaffected. Without the pool's fork handler the child's next parallel op hung.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "ember/kernels/cpu/conv/conv_scratch.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/thread_pool.h"
#include "support/expect.h"
#include "support/threads_guard.h"

namespace {
using namespace ember;

bool near(const Tensor& a, const Tensor& b) { return ember::test::all_close(a, b, 1e-4, 1e-4); }

// Waits up to 20 s for the child; a child still running then is killed and reported as hung.
// Returns the child's exit code, or -1 when it hung or did not exit normally.
int wait_for_child(pid_t pid) {
  int status = 0;
  for (int i = 0; i < 2000; ++i) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  ADD_FAILURE() << "child hung";
  return -1;
}

// The parent runs a 256 x 256 matmul on parent_threads, forks, and the child runs it on
// child_threads (from the same inputs) and exits 0 when its values match the parent's.
void fork_after_a_parallel_matmul(int parent_threads, int child_threads) {
  test::ThreadsGuard guard(parent_threads);
  manual_seed(7);
  const Tensor a = rand({256, 256}), b = rand({256, 256});
  const uint64_t jobs = cpu::parallel_jobs_started();
  const Tensor ref = matmul(a, b);
  ASSERT_GT(cpu::parallel_jobs_started(), jobs) << "the parent's matmul did not use the pool";
  // The workers poll briefly, then sleep on the pool's condition variable: let them reach that
  // state, the one a child inherits from a process between two steps.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));

  const pid_t pid = fork();
  ASSERT_GE(pid, 0) << "fork failed";
  if (pid == 0) {
    // The child: no gtest assertions here, only an exit code.
    set_num_threads(child_threads);
    const uint64_t before = cpu::parallel_jobs_started();
    if (!near(matmul(a, b), ref)) _exit(1);
    if (cpu::parallel_jobs_started() == before) _exit(2);  // it must have gone parallel
    // Convolutions keep scratch per thread in a registry that the new workers join.
    const Tensor y = conv2d(ones({8, 3, 16, 16}), ones({2, 3, 3, 3}));
    if (y.sum().item<double>() != 27.0 * 8 * 2 * 14 * 14) _exit(3);
    cpu_backend().empty_cache();
    if (cpu::conv_scratch_kept_all_threads() != 0) _exit(4);
    _exit(0);
  }
  EXPECT_EQ(wait_for_child(pid), 0)
      << "1: wrong values in the child; 2: the child's matmul ran serially; 3: wrong conv2d values; 4: "
         "conv scratch kept after empty_cache";
  // The parent's pool still works.
  EXPECT_TRUE(near(matmul(a, b), ref));
}

TEST(Fork, AChildWithAnotherThreadCountRunsParallelOps) {
  // The child's pool is resized from the parent's two workers to one: it joined workers the
  // child does not have, and hung.
  fork_after_a_parallel_matmul(3, 2);
}

TEST(Fork, AChildWithTheSameThreadCountRunsParallelOps) { fork_after_a_parallel_matmul(2, 2); }

}  // namespace
