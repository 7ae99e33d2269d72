// Emulated streams and events: a stream runs its work at once, or, with deferred streams,
// queues it until a synchronisation point (a stream or device synchronisation, cudaFree)
// so that a missing synchronisation shows as a wrong value. An event is a position in its
// stream; waiting for it queues a drain of that stream up to there. Launches are checked
// here as a GPU checks them. (pending_reads.cpp: what a copy still queued reads.)
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "cuda_emulator/internal.h"
#include "cuda_emulator/race_detection.h"

namespace ember::emulation {

void run_until(CUstream_st& s, uint64_t position) {
  while (s.executed < position && !s.queue.empty()) {
    CUstream_st::Work w = std::move(s.queue.front());
    s.queue.pop_front();
    ++s.executed;
    w.run(w.context.get());
  }
}

void drain(CUstream_st& s) { run_until(s, s.enqueued); }

void drain_device(int d) {
  DeviceState& dev = state().devices[static_cast<size_t>(d)];
  drain(*dev.null_stream);
  for (auto& s : dev.streams) drain(*s);
}

bool begin_launch(const LaunchConfig& c, int* device) {
  State& st = state();
  Lock lock(st.mutex);
  const int d = current_device();
  if (usable(d) != cudaSuccess) return false;
  const std::string k = std::string("kernel ") + c.kernel;
  if (c.stream && c.stream->device != d) {
    set_launch_error(cudaErrorInvalidResourceHandle,
                     k + ": launched on cuda:" + std::to_string(d) +
                         " into a stream of cuda:" + std::to_string(c.stream->device));
    return false;
  }
  const dim3 b = c.block, g = c.grid;
  const uint64_t threads = uint64_t(b.x) * b.y * b.z;
  std::string bad;
  if (threads == 0 || uint64_t(g.x) * g.y * g.z == 0)
    bad = "a zero-sized grid or block";
  else if (b.x > 1024 || b.y > 1024 || b.z > 64 || threads > 1024)
    bad = "more than 1024 threads per block";
  else if (g.x > 2147483647u || g.y > 65535 || g.z > 65535)
    bad = "a grid beyond (2^31 - 1, 65535, 65535)";
  if (!bad.empty()) {
    set_launch_error(cudaErrorInvalidConfiguration,
                     k + ": grid (" + std::to_string(g.x) + ", " + std::to_string(g.y) + ", " +
                         std::to_string(g.z) + "), block (" + std::to_string(b.x) + ", " +
                         std::to_string(b.y) + ", " + std::to_string(b.z) + "): " + bad);
    return false;
  }
  if (c.shared_bytes > 48 * 1024) {
    set_launch_error(cudaErrorInvalidValue, k + ": more than 48 KiB of dynamic shared memory");
    return false;
  }
  *device = d;
  return true;
}

void submit(cudaStream_t s, int device, void (*work)(void*), std::shared_ptr<void> context) {
  State& st = state();
  Lock lock(st.mutex);
  CUstream_st& stream = stream_or_null(s, device);
  ++stream.enqueued;
  race::release(context.get());  // the launch's edge from the host (race_detection.h)
  if (!st.deferred) {
    ++stream.executed;
    work(context.get());
    return;
  }
  stream.queue.push_back({work, std::move(context)});
}

}  // namespace ember::emulation

using namespace ember::emulation;

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  State& st = state();
  Lock lock(st.mutex);
  if (const cudaError_t e = usable(current_device())) return e;
  auto s = std::make_unique<CUstream_st>();
  s->device = current_device();
  *stream = s.get();
  st.devices[static_cast<size_t>(current_device())].streams.push_back(std::move(s));
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  State& st = state();
  Lock lock(st.mutex);
  if (!stream || !valid_device(stream->device)) return fail(cudaErrorInvalidResourceHandle);
  drain(*stream);
  auto& streams = st.devices[static_cast<size_t>(stream->device)].streams;
  streams.erase(
      std::remove_if(streams.begin(), streams.end(), [&](const auto& s) { return s.get() == stream; }),
      streams.end());
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  State& st = state();
  Lock lock(st.mutex);
  const int d = device_of(stream);
  if (!valid_device(d)) return fail(cudaErrorInvalidResourceHandle);
  drain(stream_or_null(stream, d));
  return usable(d);  // a fault in the work just run is reported here
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  State& st = state();
  Lock lock(st.mutex);
  const int d = device_of(stream);
  if (const cudaError_t e = usable(d)) return e;
  if (!event) return fail(cudaErrorInvalidResourceHandle);
  if (!event->stream) return cudaSuccess;  // never recorded: nothing to wait for
  CUstream_st* waited = event->stream;
  const uint64_t position = event->position;
  // From here on the stream is ordered after the waited stream's work up to position, and
  // after what that stream had waited for (the stream-order checks, pending_reads.cpp).
  CUstream_st& waiter = stream_or_null(stream, d);
  if (waited != &waiter) {
    for (const auto& [id, p] : waited->waited) waiter.waited[id] = std::max(waiter.waited[id], p);
    waiter.waited[waited->id] = std::max(waiter.waited[waited->id], position);
  }
  submit_function(stream, d, [waited, position] { run_until(*waited, position); });
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
  *event = new CUevent_st;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  State& st = state();
  Lock lock(st.mutex);
  const int d = device_of(stream);
  if (const cudaError_t e = usable(d)) return e;
  if (!event) return fail(cudaErrorInvalidResourceHandle);
  CUstream_st& s = stream_or_null(stream, d);
  event->stream = &s;
  event->position = s.enqueued;
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;  // waits already queued hold the stream and position, not the event
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
  State& st = state();
  Lock lock(st.mutex);
  const int d = device_of(stream);
  if (const cudaError_t e = usable(d)) return e;
  submit_function(stream, d, [fn, user_data] { fn(user_data); });
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  State& st = state();
  Lock lock(st.mutex);
  if (!valid_device(current_device())) return usable(current_device());
  drain_device(current_device());
  return usable(current_device());
}
