#include "ember/kernels/cpu/thread_pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include <pthread.h>

#include "ember/core/threads.h"
#include "ember/kernels/cpu/conv/conv_scratch.h"

namespace ember::cpu {
namespace {

// Polls before a worker sleeps, or before a waiting caller starts yielding its core: about
// 20-60 us, longer than the gap between two ops of a training step, far shorter than a
// scheduler time slice.
constexpr int kSpins = 2000;
// After polling, a worker goes on watching for the next job this long, yielding its core
// between looks, before it sleeps. Why: a batch-1 forward at 48 tokens hands the pool a job
// every 20-100 us between serial ops; a worker asleep by then woke late for every one of them
// (2 threads were slower than 1). Yielding rather than polling leaves the core to any other
// runnable thread, so a busy machine loses no more than it did with the worker asleep.
constexpr auto kYieldFor = std::chrono::microseconds(300);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

template <class Pred>
void wait_until(const Pred& done) {
  for (int i = 0; !done(); ++i) {
    if (i < kSpins)
      cpu_relax();
    else
      std::this_thread::yield();
  }
}

class Pool;
Pool* g_pool = nullptr;  // for the fork handler

thread_local bool t_in_task = false;
std::atomic<uint64_t> g_jobs_started{0};

struct Job {
  void (*body)(const void*, int64_t);
  const void* context;
  int64_t tasks;
  std::atomic<int64_t> next{0};      // the next unclaimed task (may run past tasks)
  std::atomic<int64_t> finished{0};  // tasks ended, normally or by an exception
  std::atomic<int> users{0};         // workers inside run_tasks
  std::mutex error_mutex;
  std::exception_ptr error;
};

void run_tasks(Job& job) {
  t_in_task = true;
  for (int64_t t; (t = job.next.fetch_add(1, std::memory_order_relaxed)) < job.tasks;) {
    try {
      job.body(job.context, t);
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.error_mutex);
      if (!job.error) job.error = std::current_exception();
    }
    job.finished.fetch_add(1, std::memory_order_release);
  }
  t_in_task = false;
}

class Pool {
 public:
  // Never destroyed: a worker may still be asleep in it while the process exits, and a static
  // destructor could otherwise join threads after other statics are gone.
  static Pool& instance() {
    static Pool* pool = [] {
      Pool* p = new Pool;
      g_pool = p;
      pthread_atfork(nullptr, nullptr, &Pool::reset_in_child);
      return p;
    }();
    return *pool;
  }

  // One job at a time: the caller that wins `busy` owns the workers until it returns.
  bool try_acquire() {
    bool expected = false;
    return busy_.compare_exchange_strong(expected, true, std::memory_order_acquire);
  }
  void release() { busy_.store(false, std::memory_order_release); }

  // Called with the pool acquired, so no job is published while workers come and go.
  void resize(int workers) {
    if (static_cast<int>(workers_.size()) == workers) return;
    publish(nullptr, /*stop=*/true);
    for (std::thread& w : workers_) w.join();
    workers_.clear();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = false;
    }
    // A worker starts from the epoch of its creation, not of its first instruction: a thread
    // that starts late must still see the jobs and the stop published meanwhile.
    const uint64_t epoch = epoch_.load(std::memory_order_relaxed);
    try {
      for (int i = 0; i < workers; ++i) workers_.emplace_back([this, epoch] { loop(epoch); });
    } catch (const std::system_error&) {
      // No more threads from the system: run with the workers that started.
    }
  }

  int workers() const { return static_cast<int>(workers_.size()); }

  // fork() copies only the calling thread: the child's pool would wait for workers that do not
  // exist (resize joins them; a job's end waits for its users). As PyTorch does, the child
  // starts with a fresh pool that makes new workers at its next parallel call. The old one is
  // overwritten, not destroyed (destroying a joinable std::thread terminates), and nothing is
  // locked here: a dead worker may have held the mutex at the fork.
  static void reset_in_child() {
    if (g_pool) new (g_pool) Pool;
  }

  void run(Job& job) {
    publish(&job, false);
    run_tasks(job);
    wait_until([&] { return job.finished.load(std::memory_order_acquire) == job.tasks; });
    {
      std::lock_guard<std::mutex> lock(mutex_);
      current_ = nullptr;  // no worker joins the job any more
    }
    wait_until([&] { return job.users.load(std::memory_order_acquire) == 0; });
  }

 private:
  void publish(Job* job, bool stop) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      current_ = job;
      stop_ = stop;
      epoch_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
  }

  void loop(uint64_t seen) {
    for (;;) {
      for (int i = 0; i < kSpins && epoch_.load(std::memory_order_acquire) == seen; ++i) cpu_relax();
      const auto until = std::chrono::steady_clock::now() + kYieldFor;
      while (epoch_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      Job* job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return epoch_.load(std::memory_order_relaxed) != seen; });
        if (stop_) return;
        seen = epoch_.load(std::memory_order_relaxed);
        job = current_;
        if (job) job->users.fetch_add(1, std::memory_order_relaxed);
      }
      if (job) {
        run_tasks(*job);
        // The scratch the tasks took is let go of before the caller can return: a buffer over
        // the bound is not kept by an idle worker, and empty_cache can free the rest.
        conv_scratch_job_done();
        job->users.fetch_sub(1, std::memory_order_release);
      }
    }
  }

  std::atomic<bool> busy_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<uint64_t> epoch_{0};
  Job* current_ = nullptr;  // guarded by mutex_
  bool stop_ = false;       // guarded by mutex_
  std::vector<std::thread> workers_;
};

}  // namespace

int parallel_width() { return t_in_task ? 1 : get_num_threads(); }

void run_parallel(int64_t tasks, void (*body)(const void*, int64_t), const void* context) {
  const int width = parallel_width();
  Pool& pool = Pool::instance();
  if (tasks <= 1 || width <= 1 || !pool.try_acquire()) {
    for (int64_t t = 0; t < tasks; ++t) body(context, t);
    return;
  }
  struct Releaser {
    Pool& pool;
    ~Releaser() { pool.release(); }
  } releaser{pool};
  pool.resize(width - 1);
  Job job;
  job.body = body;
  job.context = context;
  job.tasks = tasks;
  if (pool.workers() == 0) {
    run_tasks(job);
  } else {
    g_jobs_started.fetch_add(1, std::memory_order_relaxed);
    pool.run(job);
  }
  if (job.error) std::rethrow_exception(job.error);
}

uint64_t parallel_jobs_started() { return g_jobs_started.load(std::memory_order_relaxed); }

}  // namespace ember::cpu
