// Runs a grid (launch.h): blocks one after another in the chosen order; in a block, each
// thread is a fiber that runs until its next __syncthreads() or its end. A worker fiber
// takes threads that have not started yet and runs them one after another on its stack
// until one of them waits at a barrier; that one keeps the fiber, and a new worker takes
// the next thread. So a block without barriers costs one fiber switch, and one with
// barriers a fiber per thread. When every thread has arrived, the barrier opens and the
// waiting threads resume; a thread that has ended while others wait is a kernel fault (on a
// GPU, a hang or undefined behaviour). Threads start and resume in the thread order
// (control.h): in thread order, reversed, or shuffled anew for the start and for every
// barrier, so that a shared-memory read whose barrier is missing sees stale data in some
// mode instead of always running after the write. In the racecheck build (ThreadSanitizer,
// race_detection.h) each thread is a fiber of its own with a TSan identity, each block runs
// on a new host thread, and barriers, launch and completion are TSan's only
// happens-before edges.
#include <algorithm>
#include <exception>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cuda_emulator/control.h"
#include "cuda_emulator/fiber.h"
#include "cuda_emulator/internal.h"
#include "cuda_emulator/launch.h"
#include "cuda_emulator/race_detection.h"

thread_local uint3 threadIdx{0, 0, 0};
thread_local uint3 blockIdx{0, 0, 0};
thread_local dim3 blockDim{1, 1, 1};
thread_local dim3 gridDim{1, 1, 1};

namespace ember::emulation {
namespace {

// What kernel_fault throws inside a fiber; caught by the worker that runs the thread.
struct KernelFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class ThreadState { Fresh, Running, AtBarrier, Done };

// Racecheck: a sync object is a fresh heap byte, so that TSan's clock for it starts empty
// (freeing the byte drops it).
using SyncObject = std::unique_ptr<char>;
SyncObject new_sync_object() { return race::kEnabled ? std::make_unique<char>() : nullptr; }

struct Block {
  void (*thread)(void*);
  void* context;                // the launch, which its host released (streams.cpp)
  unsigned size;                // threads
  std::vector<unsigned> order;  // the order in which threads start, then resume at a barrier
  ThreadOrder thread_order = ThreadOrder::Forward;
  std::mt19937_64* shuffle = nullptr;  // the launch's draws (shuffled thread order only)
  // Racecheck: threads release `arriving` at a barrier and acquire `opened` once it opens (a
  // new pair per barrier, so that a thread resumed early and arriving at the next barrier
  // gives nothing to those not resumed yet); all release `done` when they end.
  SyncObject arriving, opened;
  const void* done = nullptr;
  std::vector<ThreadState> state;
  std::vector<Fiber*> fiber_of;
  std::vector<std::unique_ptr<Fiber>> fibers;
  unsigned next_fresh = 0;
  unsigned current = 0;
  unsigned epoch = 0;
  uint64_t serial = 0;
  std::string fault;
};

thread_local Block* t_block = nullptr;
thread_local uint64_t t_block_serial = 0;

std::string xyz(unsigned x, unsigned y, unsigned z) {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
}

void enter_thread(Block& b, unsigned t) {
  b.current = t;
  threadIdx = uint3{t % blockDim.x, (t / blockDim.x) % blockDim.y, t / (blockDim.x * blockDim.y)};
}

std::string thread_name(unsigned t) {
  return "thread " + xyz(t % blockDim.x, (t / blockDim.x) % blockDim.y, t / (blockDim.x * blockDim.y)) +
         " of block " + xyz(blockIdx.x, blockIdx.y, blockIdx.z);
}

// Racecheck: one thread per worker, as its fiber is that thread's TSan identity.
void worker(void* arg) {
  Block& b = *static_cast<Block*>(arg);
  while (b.fault.empty() && b.next_fresh < b.size) {
    const unsigned t = b.order[b.next_fresh++];
    b.state[t] = ThreadState::Running;
    b.fiber_of[t] = Fiber::current();
    enter_thread(b, t);
    race::acquire(b.context);
    try {
      b.thread(b.context);
    } catch (const std::exception& e) {
      const race::IgnoreAccesses scheduler_record;  // freed by another identity
      if (b.fault.empty()) b.fault = thread_name(t) + ": " + e.what();
    } catch (...) {
      const race::IgnoreAccesses scheduler_record;
      if (b.fault.empty()) b.fault = thread_name(t) + ": an unknown exception";
    }
    race::release(b.done);
    b.state[t] = ThreadState::Done;
    if (race::kEnabled) break;
  }
}

void resume(Fiber& f) {
  f.resume();
  if (f.finished()) f.release_stack();
}

// The order of the block's next round of threads (its start, then each barrier's release).
void draw_thread_order(Block& b) {
  if (b.order.size() != b.size) {
    b.order.resize(b.size);
    std::iota(b.order.begin(), b.order.end(), 0u);
    if (b.thread_order == ThreadOrder::Reverse) std::reverse(b.order.begin(), b.order.end());
  }
  if (b.shuffle) std::shuffle(b.order.begin(), b.order.end(), *b.shuffle);
}

// Runs one block; returns the fault, "" when it ran to its end.
std::string run_block(Block& b) {
  draw_thread_order(b);
  b.state.assign(b.size, ThreadState::Fresh);
  b.fiber_of.assign(b.size, nullptr);
  b.fibers.clear();
  b.next_fresh = 0;
  b.epoch = 0;
  b.serial = ++t_block_serial;
  b.fault.clear();
  b.arriving = new_sync_object();
  while (b.fault.empty() && b.next_fresh < b.size) {
    b.fibers.push_back(std::make_unique<Fiber>(&worker, &b));
    resume(*b.fibers.back());
  }
  while (b.fault.empty()) {
    unsigned waiting = 0, done = 0, first_done = 0;
    for (unsigned t = 0; t < b.size; ++t) {
      if (b.state[t] == ThreadState::AtBarrier) ++waiting;
      if (b.state[t] == ThreadState::Done && done++ == 0) first_done = t;
    }
    if (waiting == 0) break;
    if (done > 0) {
      b.fault = thread_name(first_done) + " exited while " + std::to_string(waiting) +
                " thread(s) of its block wait at __syncthreads() (barrier " + std::to_string(b.epoch + 1) +
                ")";
      break;
    }
    ++b.epoch;
    b.opened = std::move(b.arriving);
    b.arriving = new_sync_object();
    draw_thread_order(b);
    for (unsigned i = 0; i < b.size && b.fault.empty(); ++i) {
      const unsigned t = b.order[i];
      if (b.state[t] != ThreadState::AtBarrier) continue;
      b.state[t] = ThreadState::Running;
      enter_thread(b, t);
      resume(*b.fiber_of[t]);
    }
  }
  // Fibers of an abandoned block are dropped where they stand (their frames hold no
  // resources: kernels allocate nothing). For the racecheck they are done all the same: the
  // launch's end orders what they did before the host (which frees the launch, say).
  if (!b.fault.empty())
    for (const auto& f : b.fibers)
      if (!f->finished()) race::release_as(f->race_identity(), b.done);
  b.fibers.clear();
  return b.fault;
}

// Racecheck: the block on a host thread of its own, so that TSan sees its shared memory
// (thread_local, kernel_language.h) as new memory, not as the previous block's without a
// happens-before edge. The grid's thread-locals are set there; the launching thread's are
// left as they were. Nothing there may take the runtime's lock, which the launching thread holds.
std::string run_block_on_new_thread(Block& b) {
  const dim3 grid = gridDim, block = blockDim;
  const uint3 index = blockIdx;
  std::string fault;
  std::thread runner([&] {
    gridDim = grid;
    blockDim = block;
    blockIdx = index;
    t_block = &b;
    try {
      fault = run_block(b);
    } catch (const std::exception& e) {
      fault = e.what();
    }
    t_block = nullptr;
  });
  runner.join();
  return fault;
}

std::vector<uint64_t> block_sequence(uint64_t n) {
  std::vector<uint64_t> order(n);
  std::iota(order.begin(), order.end(), uint64_t(0));
  switch (block_order()) {
    case BlockOrder::Forward:
      break;
    case BlockOrder::Reverse:
      std::reverse(order.begin(), order.end());
      break;
    case BlockOrder::Shuffle: {
      std::mt19937_64 rng(next_shuffle_seed());
      std::shuffle(order.begin(), order.end(), rng);
      break;
    }
  }
  return order;
}

}  // namespace

void syncthreads() {
  Block* b = t_block;
  if (!b || !Fiber::current()) throw KernelFault("__syncthreads() called outside a kernel");
  b->state[b->current] = ThreadState::AtBarrier;
  race::release(b->arriving.get());
  Fiber::suspend();
  race::acquire(b->opened.get());
}

unsigned barrier_epoch() { return t_block ? t_block->epoch : 0; }
uint64_t block_serial() { return t_block ? t_block->serial : 0; }

void kernel_fault(const std::string& what) { throw KernelFault(what); }

void run_grid(const LaunchConfig& config, int device, void (*thread)(void*), void* context) {
  if (t_block) {
    set_sticky_error(
        device, cudaErrorLaunchFailure,
        std::string("kernel ") + config.kernel + " launched from inside a kernel (not emulated)");
    return;
  }
  const dim3 saved_grid = gridDim, saved_block = blockDim;
  gridDim = config.grid;
  blockDim = config.block;
  Block b;
  b.thread = thread;
  b.context = context;
  b.size = config.block.x * config.block.y * config.block.z;
  b.thread_order = thread_order();  // read here: it takes the runtime's lock (a block thread would wait)
  const SyncObject done = new_sync_object();
  b.done = done.get();
  std::mt19937_64 thread_shuffle;
  if (thread_order() == ThreadOrder::Shuffle) {
    thread_shuffle.seed(next_thread_shuffle_seed());
    b.shuffle = &thread_shuffle;
  }
  t_block = &b;
  const uint64_t blocks = uint64_t(config.grid.x) * config.grid.y * config.grid.z;
  std::string fault;
  try {
    for (uint64_t i : block_sequence(blocks)) {
      blockIdx = uint3{static_cast<unsigned>(i % config.grid.x),
                       static_cast<unsigned>(i / config.grid.x % config.grid.y),
                       static_cast<unsigned>(i / (uint64_t(config.grid.x) * config.grid.y))};
      fault = race::kEnabled ? run_block_on_new_thread(b) : run_block(b);
      if (!fault.empty()) break;
    }
  } catch (const std::exception& e) {  // no stack for a fiber
    fault = e.what();
  }
  race::acquire(b.done);
  t_block = nullptr;
  gridDim = saved_grid;
  blockDim = saved_block;
  if (!fault.empty())
    set_sticky_error(device, cudaErrorLaunchFailure, std::string("kernel ") + config.kernel + ": " + fault);
}

}  // namespace ember::emulation
