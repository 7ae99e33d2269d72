// Stream order with deferred streams: a copy queued on one stream reads its source only
// when it runs, so until then that memory must be neither written by work of another stream
// that is not ordered after the copy (a kernel, memset or copy writing a block the caching
// allocator has handed out again) nor freed. Either is a sticky cudaErrorIllegalAddress on
// the writer's (freer's) device, caught when the work is queued, whatever order the streams
// would later run in. Ordering comes from cudaStreamWaitEvent (CUstream_st::waited); the
// host's synchronisations run the copy, which retires its read. Without deferred streams
// every copy has run before the call returns, and nothing is pending.
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>

#include "cuda_emulator/internal.h"

namespace ember::emulation {
namespace {

std::string hex(uintptr_t p) {
  std::ostringstream os;
  os << reinterpret_cast<const void*>(p);
  return os.str();
}

std::string range(uintptr_t begin, uintptr_t end) {
  return std::to_string(end - begin) + " bytes at " + hex(begin);
}

// The first pending read of another stream that s is not ordered after and that overlaps
// [begin, end); nullptr if none.
const State::PendingRead* unordered_read(const CUstream_st* s, uintptr_t begin, uintptr_t end) {
  for (const auto& [id, r] : state().pending_reads) {
    if (r.stream == s || r.end <= begin || end <= r.begin) continue;
    if (s) {
      const auto w = s->waited.find(r.stream->id);
      if (w != s->waited.end() && w->second >= r.position) continue;
    }
    return &r;
  }
  return nullptr;
}

}  // namespace

std::string stream_name(const CUstream_st& s) {
  const std::string device = "cuda:" + std::to_string(s.device);
  if (valid_device(s.device) && state().devices[static_cast<size_t>(s.device)].null_stream.get() == &s)
    return "the default stream of " + device;
  return "stream " + std::to_string(s.id) + " of " + device;
}

uint64_t add_pending_read(CUstream_st& s, const void* src, size_t n, const std::string& copy) {
  State& st = state();
  Lock lock(st.mutex);
  const auto begin = reinterpret_cast<uintptr_t>(src);
  const uint64_t id = ++st.pending_serial;
  st.pending_reads[id] = State::PendingRead{begin, begin + n, &s, s.enqueued, copy};
  return id;
}

void retire_pending_read(uint64_t id) {
  Lock lock(state().mutex);
  state().pending_reads.erase(id);
}

bool may_write(CUstream_st& s, const void* p, size_t n, const std::string& what) {
  State& st = state();
  Lock lock(st.mutex);
  if (st.pending_reads.empty()) return true;
  const auto begin = reinterpret_cast<uintptr_t>(p);
  const State::PendingRead* r = unordered_read(&s, begin, begin + n);
  if (!r) return true;
  set_sticky_error(s.device, cudaErrorIllegalAddress,
                   what + ", queued on " + stream_name(s) + ", uses " + range(begin, begin + n) + " while " +
                       r->copy + ", queued before it on " + stream_name(*r->stream) + ", still reads " +
                       range(r->begin, r->end) + ": " + stream_name(s) +
                       " does not wait for that copy (a stream-order bug: the source is reused or rewritten "
                       "before the copy has read it)");
  return false;
}

bool may_reuse(int device, CUstream_st* stream, const void* p, size_t n) {
  Lock lock(state().mutex);
  if (state().pending_reads.empty() || !valid_device(device)) return true;
  return may_write(stream_or_null(stream, device), p, n,
                   "a block of " + std::to_string(n) + " bytes returned to the caching allocator of cuda:" +
                       std::to_string(device) + " for reuse");
}

bool may_free(int device, const void* p, size_t n) {
  State& st = state();
  Lock lock(st.mutex);
  if (st.pending_reads.empty()) return true;
  const auto begin = reinterpret_cast<uintptr_t>(p);
  const State::PendingRead* r = unordered_read(nullptr, begin, begin + n);
  if (!r) return true;
  set_sticky_error(device, cudaErrorIllegalAddress,
                   "cudaFree of " + range(begin, begin + n) + " on cuda:" + std::to_string(device) +
                       " while " + r->copy + ", queued on " + stream_name(*r->stream) + ", still reads " +
                       range(r->begin, r->end) +
                       " (a stream-order bug: cudaFree waits for its own device only)");
  return false;
}

}  // namespace ember::emulation
