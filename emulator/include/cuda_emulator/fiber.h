#pragma once
// Fibers for the emulated GPU threads: a pooled stack (mmap'd, with a guard page below it;
// 64 KiB, 256 KiB under AddressSanitizer) and a context switch (hand-written on x86-64,
// ucontext elsewhere). Switches tell AddressSanitizer which stack is live
// (__sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber), and, in the racecheck
// build, ThreadSanitizer which identity runs (race_detection.h: a fiber is one emulated
// thread, with a TSan identity of its own). A fiber belongs to the host thread that made it.
#include <cstddef>

#if !defined(__x86_64__) || defined(EMBER_EMULATION_UCONTEXT)
#define EMBER_EMULATION_USE_UCONTEXT 1
#include <ucontext.h>
#endif

namespace ember::emulation {

struct FiberStack {
  char* mapping = nullptr;  // guard page first, then the usable stack
  size_t mapped = 0;
  char* bottom() const;
  size_t size() const;
};

class Fiber {
 public:
  using Entry = void (*)(void*);
  /// entry(arg) starts at the first resume(); when it returns the fiber is finished.
  Fiber(Entry entry, void* arg);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  /// Runs the fiber until it suspends or finishes (called from outside any fiber).
  void resume();
  bool finished() const { return finished_; }
  /// Gives the stack back to the pool (finished fibers only), so the next fiber reuses it.
  void release_stack();

  /// Its ThreadSanitizer identity (race_detection.h; null outside the racecheck build).
  void* race_identity() const { return identity_; }

  /// Suspends the calling fiber: its resume() returns.
  static void suspend();
  /// The running fiber, or nullptr outside fibers.
  static Fiber* current();

 private:
  static void start(void* self);
#if defined(EMBER_EMULATION_USE_UCONTEXT)
  static void start_ucontext_entry(unsigned hi, unsigned lo);
#endif
  [[noreturn]] void exit_to_caller();

  Entry entry_;
  void* arg_;
  FiberStack stack_;
  bool finished_ = false;
  // The caller's stack as AddressSanitizer knows it, for switching back.
  const void* caller_bottom_ = nullptr;
  size_t caller_size_ = 0;
  // The fiber's ThreadSanitizer identity and its caller's (racecheck build only, else null).
  void* identity_ = nullptr;
  void* caller_identity_ = nullptr;
#if defined(EMBER_EMULATION_USE_UCONTEXT)
  ucontext_t context_{}, caller_context_{};
#else
  void* sp_ = nullptr;
  void* caller_sp_ = nullptr;
#endif
};

}  // namespace ember::emulation
