#include "ember/kernels/cpu/conv/conv_scratch.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>

namespace ember::cpu {
namespace {

// Who may touch a record's buffers: its thread while it holds them, release_conv_scratch
// while it frees them, nobody otherwise.
enum State : int { kUnheld, kHeld, kFreeing };

struct Record {
  std::atomic<int> state{kUnheld};
  std::atomic<bool> drop_all{false};  // release_conv_scratch found the record held
  std::atomic<size_t> kept{0};        // the sum of bytes[], for the queries of other threads
  void* data[kConvSlots] = {};
  size_t bytes[kConvSlots] = {};

  void free_over(size_t limit) {
    for (int s = 0; s < kConvSlots; ++s)
      if (bytes[s] > limit) {
        std::free(data[s]);
        kept.fetch_sub(bytes[s]);
        data[s] = nullptr;
        bytes[s] = 0;
      }
  }
};

// The records of the threads alive. Never destroyed: a thread may exit after static
// destructors have run.
struct Registry {
  std::mutex mutex;
  std::vector<Record*> records;
};
Registry* g_registry = nullptr;

// fork() while another thread registers, unregisters or empties would leave the child a mutex
// locked by a thread it does not have and a list half changed: the forking thread takes the
// mutex first and both processes let it go after. The records of the threads the child lacks
// stay listed; their memory is the child's copy, freed by its empty_cache like any other.
void lock_for_fork() { g_registry->mutex.lock(); }
void unlock_after_fork() { g_registry->mutex.unlock(); }

Registry& registry() {
  static Registry* r = [] {
    g_registry = new Registry;
    pthread_atfork(&lock_for_fork, &unlock_after_fork, &unlock_after_fork);
    return g_registry;
  }();
  return *r;
}

// Frees every buffer of r unless its thread holds them; false when it does.
bool free_if_unheld(Record& r) {
  int expected = kUnheld;
  if (!r.state.compare_exchange_strong(expected, kFreeing)) return false;
  r.drop_all.store(false);
  r.free_over(0);
  r.state.store(kUnheld);
  return true;
}

struct ThreadScratch;
thread_local ThreadScratch* t_self = nullptr;  // trivial, so the pool's check costs a load

struct ThreadScratch {
  Record record;
  int depth = 0;      // ConvScratchScope nesting
  bool held = false;  // this thread holds record

  ThreadScratch() {
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().records.push_back(&record);
    t_self = this;
  }
  ~ThreadScratch() {
    {
      std::lock_guard<std::mutex> lock(registry().mutex);
      auto& rs = registry().records;
      rs.erase(std::find(rs.begin(), rs.end(), &record));
    }
    record.free_over(0);
    t_self = nullptr;
  }

  void hold() {
    if (held) return;
    // release_conv_scratch holds a record only while it frees the buffers.
    for (int expected = kUnheld; !record.state.compare_exchange_weak(expected, kHeld); expected = kUnheld)
      std::this_thread::yield();
    held = true;
  }

  void let_go() {
    if (record.drop_all.exchange(false))
      record.free_over(0);
    else
      record.free_over(kConvScratchKeep);
    record.state.store(kUnheld);
    held = false;
    // A release that came between the exchange and the store found the record held and left
    // drop_all set; one of the two sees the other (both sequentially consistent) and frees.
    if (record.drop_all.load()) free_if_unheld(record);
  }
};

ThreadScratch& mine() {
  thread_local ThreadScratch self;
  return self;
}

}  // namespace

ConvScratchScope::ConvScratchScope() { ++mine().depth; }

ConvScratchScope::~ConvScratchScope() {
  ThreadScratch& t = mine();
  if (--t.depth == 0 && t.held) t.let_go();
}

void* conv_scratch_bytes(ConvSlot slot, size_t bytes) {
  ThreadScratch& t = mine();
  t.hold();
  Record& r = t.record;
  if (r.bytes[slot] < bytes) {
    std::free(r.data[slot]);
    r.kept.fetch_sub(r.bytes[slot]);
    r.bytes[slot] = 0;
    // calloc: zeroed as the std::vector buffers were, and large blocks come as fresh pages
    // from the system without a pass of memset.
    r.data[slot] = std::calloc(bytes, 1);
    if (!r.data[slot]) return nullptr;
    r.bytes[slot] = bytes;
    r.kept.fetch_add(bytes);
  }
  return r.data[slot];
}

void conv_scratch_job_done() {
  ThreadScratch* t = t_self;
  if (t && t->held && t->depth == 0) t->let_go();
}

void release_conv_scratch() {
  std::lock_guard<std::mutex> lock(registry().mutex);
  for (Record* r : registry().records) {
    r->drop_all.store(true);
    free_if_unheld(*r);
  }
}

size_t conv_scratch_kept() { return t_self ? t_self->record.kept.load() : 0; }

size_t conv_scratch_kept_all_threads() {
  std::lock_guard<std::mutex> lock(registry().mutex);
  size_t sum = 0;
  for (const Record* r : registry().records) sum += r->kept.load();
  return sum;
}

}  // namespace ember::cpu
