#pragma once
// Racecheck through ThreadSanitizer (a TSan build of the emulated backend). The emulator runs
// a grid on one host thread, so TSan alone would see one thread and no race. Here every
// emulated GPU thread gets a TSan identity of its own (a TSan "fiber"), and the switches
// between them carry no synchronisation (__tsan_switch_to_fiber_no_sync), so that the only
// happens-before edges between a launch's threads are the ones a GPU guarantees:
//   - a __syncthreads(): each thread releases a sync object of its block and barrier before
//     waiting, and acquires it once the barrier opens (grid.cpp);
//   - the launch: what the host did before it is visible to every thread (the host releases
//     the launch at submission, streams.cpp; each thread acquires it when it starts);
//   - the launch's end: every thread releases the launch's completion, which the host thread
//     that ran the grid acquires (with deferred streams that is the synchronisation that ran
//     it), so the host sees the results after a stream synchronisation.
// Atomics are the __atomic builtins (kernel_language.h), which TSan sees as atomics. So a
// shared-memory read not ordered after its write by a barrier, and a plain read-modify-write
// of one address by two threads of a launch, are TSan reports whose stack names the kernel.
//
// TSan keeps a call stack per identity, so an identity must only change where the real stack
// changes: under TSan each emulated thread runs on a fiber (and stack) of its own instead of
// a worker fiber running many threads back to back, and a stack reused by a later fiber is
// mapped afresh so that TSan forgets the accesses of the identity that used it before
// (fiber.cpp). Shared memory is thread_local storage of the host thread that runs the block:
// under TSan each block runs on a new host thread, whose TLS TSan treats as new, so one
// block's shared memory is no race with the previous block's (blocks of a launch have no
// happens-before edges between them either).
//
// Build with -DEMBER_EMULATION_RACECHECK=0 to keep TSan but turn this off (one identity for
// the whole grid, as before): the racecheck tests (tests/cuda_tsan) then fail.
#include "cuda_emulator/sanitizer.h"

#if defined(EMBER_EMULATION_TSAN) && !defined(EMBER_EMULATION_RACECHECK)
#define EMBER_EMULATION_RACECHECK 1
#endif
#if defined(EMBER_EMULATION_TSAN) && EMBER_EMULATION_RACECHECK
#include <sanitizer/tsan_interface.h>
// TSan's dynamic annotations (its runtime defines them; no header declares them).
extern "C" void AnnotateIgnoreReadsBegin(const char* file, int line);
extern "C" void AnnotateIgnoreReadsEnd(const char* file, int line);
extern "C" void AnnotateIgnoreWritesBegin(const char* file, int line);
extern "C" void AnnotateIgnoreWritesEnd(const char* file, int line);
#endif

namespace ember::emulation::race {

#if defined(EMBER_EMULATION_TSAN) && EMBER_EMULATION_RACECHECK
inline constexpr bool kEnabled = true;
/// A new identity; whatever the calling identity did so far happens before it.
inline void* new_identity() { return __tsan_create_fiber(0); }
inline void destroy_identity(void* identity) { __tsan_destroy_fiber(identity); }
inline void* current_identity() { return __tsan_get_current_fiber(); }
/// Makes identity the running one, with no happens-before edge (call just before the switch
/// of stacks).
inline void switch_identity(void* identity) {
  __tsan_switch_to_fiber(identity, __tsan_switch_to_fiber_no_sync);
}
inline void release(const void* sync) { __tsan_release(const_cast<void*>(sync)); }
inline void acquire(const void* sync) { __tsan_acquire(const_cast<void*>(sync)); }
/// Releases sync on behalf of a fiber that will never run again (abandoned at a barrier by
/// a faulted block), without running it: no stack changes, so its identity may be borrowed.
inline void release_as(void* identity, const void* sync) {
  void* self = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(identity, __tsan_switch_to_fiber_no_sync);
  __tsan_release(const_cast<void*>(sync));
  __tsan_switch_to_fiber(self, __tsan_switch_to_fiber_no_sync);
}
/// For a scope, TSan neither checks nor records the running identity's accesses (its heap
/// allocations included): for the scheduler's records that an emulated thread writes and
/// another identity frees later.
struct IgnoreAccesses {
  IgnoreAccesses() {
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  }
  ~IgnoreAccesses() {
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
  }
  IgnoreAccesses(const IgnoreAccesses&) = delete;
  IgnoreAccesses& operator=(const IgnoreAccesses&) = delete;
};
#else
inline constexpr bool kEnabled = false;
inline void* new_identity() { return nullptr; }
inline void destroy_identity(void*) {}
inline void* current_identity() { return nullptr; }
inline void switch_identity(void*) {}
inline void release(const void*) {}
inline void acquire(const void*) {}
inline void release_as(void*, const void*) {}
struct IgnoreAccesses {
  IgnoreAccesses() {}  // user-provided, as the TSan one's: a scope guard, not an unused variable
  ~IgnoreAccesses() {}
  IgnoreAccesses(const IgnoreAccesses&) = delete;
  IgnoreAccesses& operator=(const IgnoreAccesses&) = delete;
};
#endif

}  // namespace ember::emulation::race
