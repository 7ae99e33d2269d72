// Fibers for the emulated GPU threads (fiber.h).
#include "cuda_emulator/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#include "cuda_emulator/race_detection.h"
#include "cuda_emulator/sanitizer.h"
#if defined(EMBER_EMULATION_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if !defined(EMBER_EMULATION_USE_UCONTEXT)
// ember_emulation_swap(save, next): saves the callee-saved registers, the SSE and x87
// control words and the stack pointer into *save, then continues at the stack next.
// ember_emulation_trampoline is where a new fiber's first switch returns to: it calls
// r12(rbx), which never returns.
asm(R"(
  .text
  .globl ember_emulation_swap
  .hidden ember_emulation_swap
  .type ember_emulation_swap, @function
ember_emulation_swap:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size ember_emulation_swap, .-ember_emulation_swap

  .globl ember_emulation_trampoline
  .hidden ember_emulation_trampoline
  .type ember_emulation_trampoline, @function
ember_emulation_trampoline:
  movq %rbx, %rdi
  callq *%r12
  ud2
  .size ember_emulation_trampoline, .-ember_emulation_trampoline
)");
extern "C" void ember_emulation_swap(void** save, void* next);
extern "C" void ember_emulation_trampoline();
#endif

namespace ember::emulation {
namespace {

#if defined(EMBER_EMULATION_ASAN)
constexpr size_t kStackSize = size_t(256) << 10;  // ASan's redzones make frames larger
#else
constexpr size_t kStackSize = size_t(64) << 10;
#endif

size_t page_size() {
  static const size_t size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

// Stacks are kept per host thread and reused: a grid of thousands of threads that never
// wait at a barrier runs on one stack.
struct StackPool {
  std::vector<FiberStack> free;
  ~StackPool() {
    for (const FiberStack& s : free) ::munmap(s.mapping, s.mapped);
  }
  FiberStack take() {
    if (!free.empty()) {
      FiberStack s = free.back();
      free.pop_back();
      if (race::kEnabled) forget_accesses(s);
      return s;
    }
    FiberStack s;
    s.mapped = kStackSize + page_size();
    void* m =
        ::mmap(nullptr, s.mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    s.mapping = static_cast<char*>(m);
    // The guard page: an overflowing fiber faults here instead of writing over its neighbour.
    ::mprotect(s.mapping, page_size(), PROT_NONE);
    return s;
  }
  void give(FiberStack s) { free.push_back(s); }
  // Racecheck: the stack's next fiber is another TSan identity, and its frames would race
  // with the previous one's in TSan's eyes. Mapping the usable part afresh makes TSan's mmap
  // hook overwrite the range's history (as the new fiber's creator's write, which happens
  // before the fiber).
  static void forget_accesses(const FiberStack& s) {
    void* m = ::mmap(s.bottom(), s.size(), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
  }
};

thread_local StackPool t_pool;
thread_local Fiber* t_current = nullptr;

void start_switch(void** fake_stack, const void* bottom, size_t size) {
#if defined(EMBER_EMULATION_ASAN)
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#else
  (void)fake_stack, (void)bottom, (void)size;
#endif
}
void finish_switch(void* fake_stack, const void** old_bottom, size_t* old_size) {
#if defined(EMBER_EMULATION_ASAN)
  __sanitizer_finish_switch_fiber(fake_stack, old_bottom, old_size);
#else
  (void)fake_stack, (void)old_bottom, (void)old_size;
#endif
}

}  // namespace

char* FiberStack::bottom() const { return mapping + page_size(); }
size_t FiberStack::size() const { return mapped - page_size(); }

Fiber::Fiber(Entry entry, void* arg)
    : entry_(entry), arg_(arg), stack_(t_pool.take()), identity_(race::new_identity()) {
#if defined(EMBER_EMULATION_USE_UCONTEXT)
  getcontext(&context_);
  context_.uc_stack.ss_sp = stack_.bottom();
  context_.uc_stack.ss_size = stack_.size();
  context_.uc_link = nullptr;
  const auto p = reinterpret_cast<uintptr_t>(this);
  makecontext(&context_, reinterpret_cast<void (*)()>(&Fiber::start_ucontext_entry), 2,
              static_cast<unsigned>(p >> 32), static_cast<unsigned>(p & 0xFFFFFFFFu));
#else
  // The first switch pops this frame: control words, six registers (r12 = start,
  // rbx = this) and the trampoline as return address; the trampoline then runs on a
  // 16-byte aligned stack, as the ABI wants before a call.
  const uintptr_t top = reinterpret_cast<uintptr_t>(stack_.bottom() + stack_.size()) & ~uintptr_t(15);
  auto* frame = reinterpret_cast<uint64_t*>(top - 80);
  frame[0] = 0x037F00001F80ull;                          // MXCSR 0x1F80 (low half), x87 control word 0x037F
  frame[1] = frame[2] = frame[3] = 0;                    // r15, r14, r13
  frame[4] = reinterpret_cast<uint64_t>(&Fiber::start);  // r12
  frame[5] = reinterpret_cast<uint64_t>(this);           // rbx
  frame[6] = 0;                                          // rbp
  frame[7] = reinterpret_cast<uint64_t>(&ember_emulation_trampoline);
  frame[8] = frame[9] = 0;
  sp_ = frame;
#endif
}

Fiber::~Fiber() {
  release_stack();
  if (identity_) race::destroy_identity(identity_);
}

void Fiber::release_stack() {
  if (!stack_.mapping) return;
#if defined(EMBER_EMULATION_ASAN)
  // A fiber abandoned at a barrier (its block faulted) leaves its frames' redzones behind.
  __asan_unpoison_memory_region(stack_.bottom(), stack_.size());
#endif
  t_pool.give(stack_);
  stack_ = FiberStack();
}

Fiber* Fiber::current() { return t_current; }

void Fiber::resume() {
  Fiber* previous = t_current;
  t_current = this;
  void* fake_stack = nullptr;
  start_switch(&fake_stack, stack_.bottom(), stack_.size());
  caller_identity_ = race::current_identity();
  race::switch_identity(identity_);
#if defined(EMBER_EMULATION_USE_UCONTEXT)
  swapcontext(&caller_context_, &context_);
#else
  ember_emulation_swap(&caller_sp_, sp_);
#endif
  finish_switch(fake_stack, nullptr, nullptr);
  t_current = previous;
}

void Fiber::suspend() {
  Fiber* self = t_current;
  void* fake_stack = nullptr;
  start_switch(&fake_stack, self->caller_bottom_, self->caller_size_);
  race::switch_identity(self->caller_identity_);
#if defined(EMBER_EMULATION_USE_UCONTEXT)
  swapcontext(&self->context_, &self->caller_context_);
#else
  ember_emulation_swap(&self->sp_, self->caller_sp_);
#endif
  finish_switch(fake_stack, &self->caller_bottom_, &self->caller_size_);
}

#if defined(EMBER_EMULATION_USE_UCONTEXT)
// makecontext passes int arguments only: the fiber's address comes in two halves.
void Fiber::start_ucontext_entry(unsigned hi, unsigned lo) {
  start(reinterpret_cast<void*>((static_cast<uintptr_t>(hi) << 32) | lo));
}
#endif

void Fiber::start(void* self) {
  auto* f = static_cast<Fiber*>(self);
  finish_switch(nullptr, &f->caller_bottom_, &f->caller_size_);
  f->entry_(f->arg_);  // catches everything itself: nothing may unwind past a fiber's start
  f->exit_to_caller();
}

void Fiber::exit_to_caller() {
  finished_ = true;
  start_switch(nullptr, caller_bottom_, caller_size_);  // null: this fiber's fake stack dies
  race::switch_identity(caller_identity_);
#if defined(EMBER_EMULATION_USE_UCONTEXT)
  setcontext(&caller_context_);
#else
  // Saves into a member, not a local: under AddressSanitizer locals may live on the fake
  // stack that the call above has just destroyed.
  ember_emulation_swap(&sp_, caller_sp_);
#endif
  __builtin_unreachable();
}

}  // namespace ember::emulation
