// The emulated CUDA runtime: N devices whose memory is host memory (each cudaMalloc its own
// 256-byte aligned allocation, recorded per device), streams that run work at once or, in
// deferred mode, at the next synchronisation point, events as positions in a stream, peer
// access, and the error model: a call's error is this thread's last error (cleared by
// cudaGetLastError); an illegal address or a kernel fault is sticky for its device.
// One lock serialises the runtime, kernels included.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ember/kernels/cuda/emulation/control.h"
#include "ember/kernels/cuda/emulation/internal.h"
#include "ember/kernels/cuda/emulation/launch.h"
#include "ember/kernels/cuda/emulation/sanitizer.h"
#if defined(EMBER_EMULATION_ASAN)
#include <sanitizer/asan_interface.h>
#endif

struct CUstream_st {
  int device = 0;
  struct Work {
    void (*run)(void*);
    std::shared_ptr<void> context;
  };
  std::deque<Work> queue;
  uint64_t enqueued = 0, executed = 0;
};

struct CUevent_st {
  CUstream_st* stream = nullptr;
  uint64_t position = 0;
};

namespace ember::emulation {
namespace {

constexpr int kMultiprocessors = 4;
constexpr size_t kDefaultCapacity = size_t(80) << 30;  // an H100's, as a notional size
constexpr size_t kAlignment = 256;                      // cudaMalloc's guarantee
constexpr size_t kFreedRemembered = 4096;

struct DeviceState {
  std::map<uintptr_t, size_t> live;                     // base -> size
  std::deque<std::pair<uintptr_t, size_t>> freed;       // recent frees, for the diagnosis
  size_t used = 0, capacity = kDefaultCapacity;
  std::set<int> peers;                                  // devices whose memory it may use
  cudaError_t sticky = cudaSuccess;
  std::unique_ptr<CUstream_st> null_stream = std::make_unique<CUstream_st>();
  std::vector<std::unique_ptr<CUstream_st>> streams;
};

struct State {
  std::recursive_mutex mutex;
  std::string config_error;  // a malformed environment variable: no devices
  std::vector<DeviceState> devices;
  BlockOrder order = BlockOrder::Forward;
  uint64_t shuffle_seed = 0, shuffles = 0;
  bool deferred = false;
  std::string last_fault;
};

bool parse_size(const char* text, size_t* out) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno || end == text) return false;
  size_t scale = 1;
  if (*end == 'K' || *end == 'k') scale = size_t(1) << 10;
  if (*end == 'M' || *end == 'm') scale = size_t(1) << 20;
  if (*end == 'G' || *end == 'g') scale = size_t(1) << 30;
  if (scale != 1) ++end;
  if (*end) return false;
  *out = static_cast<size_t>(v) * scale;
  return true;
}

State& state() {
  static State* s = [] {
    auto* st = new State;  // never destroyed: tensors may outlive static destructors
    int count = 2;
    if (const char* v = std::getenv("EMBER_EMULATED_CUDA_DEVICES")) {
      size_t n = 0;
      if (parse_size(v, &n) && n <= 64) count = static_cast<int>(n);
      else st->config_error = std::string("EMBER_EMULATED_CUDA_DEVICES=") + v + " is not a device count (0 to 64)";
    }
    if (!st->config_error.empty()) count = 0;
    st->devices.resize(static_cast<size_t>(count));
    for (size_t d = 0; d < st->devices.size(); ++d) st->devices[d].null_stream->device = static_cast<int>(d);
    if (const char* v = std::getenv("EMBER_EMULATED_CUDA_MEMORY")) {
      size_t cap = 0;
      if (parse_size(v, &cap) && cap > 0)
        for (auto& d : st->devices) d.capacity = cap;
      else
        st->config_error = std::string("EMBER_EMULATED_CUDA_MEMORY=") + v + " is not a size (bytes, or with K, M or G)";
    }
    if (const char* v = std::getenv("EMBER_EMULATED_CUDA_BLOCK_ORDER")) {
      const std::string o = v;
      if (o == "forward") {
        st->order = BlockOrder::Forward;
      } else if (o == "reverse") {
        st->order = BlockOrder::Reverse;
      } else if (o.rfind("shuffle", 0) == 0) {
        st->order = BlockOrder::Shuffle;
        size_t seed = 0;
        if (o.size() > 7 && !(o[7] == ':' && parse_size(o.c_str() + 8, &seed)))
          st->config_error = "EMBER_EMULATED_CUDA_BLOCK_ORDER=" + o + ": expected shuffle or shuffle:SEED";
        st->shuffle_seed = seed;
      } else {
        st->config_error = "EMBER_EMULATED_CUDA_BLOCK_ORDER=" + o + ": expected forward, reverse or shuffle[:SEED]";
      }
    }
    if (const char* v = std::getenv("EMBER_EMULATED_CUDA_STREAMS")) {
      const std::string m = v;
      if (m == "deferred") st->deferred = true;
      else if (m != "immediate")
        st->config_error = "EMBER_EMULATED_CUDA_STREAMS=" + m + ": expected immediate or deferred";
    }
    if (!st->config_error.empty()) st->devices.clear();
    return st;
  }();
  return *s;
}

thread_local int t_device = 0;
thread_local cudaError_t t_last = cudaSuccess;

using Lock = std::lock_guard<std::recursive_mutex>;

cudaError_t fail(cudaError_t e) {
  t_last = e;
  return e;
}

bool valid_device(int d) { return d >= 0 && d < static_cast<int>(state().devices.size()); }

// The device a call works on, or an error: none configured, or the device is broken.
cudaError_t usable(int d) {
  if (state().devices.empty()) return fail(state().config_error.empty() ? cudaErrorNoDevice : cudaErrorInitializationError);
  if (!valid_device(d)) return fail(cudaErrorInvalidDevice);
  const cudaError_t sticky = state().devices[static_cast<size_t>(d)].sticky;
  return sticky == cudaSuccess ? cudaSuccess : fail(sticky);
}

CUstream_st& stream_or_null(cudaStream_t s, int device) {
  return s ? *s : *state().devices[static_cast<size_t>(device)].null_stream;
}

int device_of(cudaStream_t s) { return s ? s->device : t_device; }

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

// Where a range of n bytes at p lies: the owning device, or why it is not device memory.
struct Where {
  int device = -1;
  std::string problem;
};

std::string hex(const void* p) {
  std::ostringstream os;
  os << p;
  return os.str();
}

Where locate(const void* p, size_t n) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  State& st = state();
  for (size_t d = 0; d < st.devices.size(); ++d) {
    const auto& live = st.devices[d].live;
    auto it = live.upper_bound(a);
    if (it == live.begin()) continue;
    --it;
    if (a >= it->first + it->second) continue;
    if (n > it->first + it->second - a)
      return {-1, hex(p) + " + " + std::to_string(n) + " bytes runs past the end of its allocation on cuda:" +
                      std::to_string(d) + " (" + std::to_string(it->second) + " bytes at " +
                      hex(reinterpret_cast<void*>(it->first)) + ")"};
    return {static_cast<int>(d), ""};
  }
  for (size_t d = 0; d < st.devices.size(); ++d)
    for (const auto& f : st.devices[d].freed)
      if (a >= f.first && a < f.first + f.second)
        return {-1, hex(p) + " lies in a block freed on cuda:" + std::to_string(d)};
  return {-1, hex(p) + " is not device memory (a host pointer?)"};
}

// Whether device may use n bytes at p; if not, the device's sticky illegal address.
bool accessible(int device, const void* p, size_t n, const std::string& what) {
  Where w = locate(p, n);
  if (w.device >= 0 && w.device != device && !state().devices[static_cast<size_t>(device)].peers.count(w.device))
    w.problem = hex(p) + " is memory of cuda:" + std::to_string(w.device) + ", used on cuda:" +
                std::to_string(device) + " without peer access";
  if (w.problem.empty()) return true;
  set_sticky_error(device, cudaErrorIllegalAddress, what + ": " + w.problem);
  return false;
}

template <class F>
void submit_function(cudaStream_t s, int device, F f) {
  auto holder = std::make_shared<F>(std::move(f));
  submit(s, device, [](void* c) { (*static_cast<F*>(c))(); }, std::move(holder));
}

}  // namespace

// ---- what the emulator's other files use ------------------------------------------------

void set_sticky_error(int device, cudaError_t error, const std::string& why) {
  State& st = state();
  Lock lock(st.mutex);
  if (valid_device(device) && st.devices[static_cast<size_t>(device)].sticky == cudaSuccess)
    st.devices[static_cast<size_t>(device)].sticky = error;
  st.last_fault = "cuda:" + std::to_string(device) + ": " + why;
  t_last = error;
}

void set_launch_error(cudaError_t error, const std::string& why) {
  Lock lock(state().mutex);
  state().last_fault = why;
  t_last = error;
}

uint64_t next_shuffle_seed() {
  State& st = state();
  Lock lock(st.mutex);
  return st.shuffle_seed * 0x9E3779B97F4A7C15ull + ++st.shuffles;
}

bool begin_launch(const LaunchConfig& c, int* device) {
  State& st = state();
  Lock lock(st.mutex);
  const int d = t_device;
  if (usable(d) != cudaSuccess) return false;
  const std::string k = std::string("kernel ") + c.kernel;
  if (c.stream && c.stream->device != d) {
    set_launch_error(cudaErrorInvalidResourceHandle, k + ": launched on cuda:" + std::to_string(d) +
                                                         " into a stream of cuda:" + std::to_string(c.stream->device));
    return false;
  }
  const dim3 b = c.block, g = c.grid;
  const uint64_t threads = uint64_t(b.x) * b.y * b.z;
  std::string bad;
  if (threads == 0 || uint64_t(g.x) * g.y * g.z == 0) bad = "a zero-sized grid or block";
  else if (b.x > 1024 || b.y > 1024 || b.z > 64 || threads > 1024) bad = "more than 1024 threads per block";
  else if (g.x > 2147483647u || g.y > 65535 || g.z > 65535) bad = "a grid beyond (2^31 - 1, 65535, 65535)";
  if (!bad.empty()) {
    set_launch_error(cudaErrorInvalidConfiguration,
                     k + ": grid (" + std::to_string(g.x) + ", " + std::to_string(g.y) + ", " + std::to_string(g.z) +
                         "), block (" + std::to_string(b.x) + ", " + std::to_string(b.y) + ", " +
                         std::to_string(b.z) + "): " + bad);
    return false;
  }
  if (c.shared_bytes > 48 * 1024) {
    set_launch_error(cudaErrorInvalidValue, k + ": more than 48 KiB of dynamic shared memory");
    return false;
  }
  *device = d;
  return true;
}

bool check_kernel_pointer(int device, const void* p, const char* kernel, int argument) {
  Lock lock(state().mutex);
  return accessible(device, p, 1, std::string("kernel ") + kernel + " argument " + std::to_string(argument));
}

void submit(cudaStream_t s, int device, void (*work)(void*), std::shared_ptr<void> context) {
  State& st = state();
  Lock lock(st.mutex);
  CUstream_st& stream = stream_or_null(s, device);
  ++stream.enqueued;
  if (!st.deferred) {
    ++stream.executed;
    work(context.get());
    return;
  }
  stream.queue.push_back({work, std::move(context)});
}

// ---- control.h ---------------------------------------------------------------------------

void set_block_order(BlockOrder order, uint64_t seed) {
  Lock lock(state().mutex);
  state().order = order;
  state().shuffle_seed = seed;
  state().shuffles = 0;
}
BlockOrder block_order() {
  Lock lock(state().mutex);
  return state().order;
}
void set_memory_limit(int device, size_t bytes) {
  Lock lock(state().mutex);
  if (valid_device(device)) state().devices[static_cast<size_t>(device)].capacity = bytes ? bytes : kDefaultCapacity;
}
bool deferred_streams() {
  Lock lock(state().mutex);
  return state().deferred;
}
void set_deferred_streams(bool deferred) {
  State& st = state();
  Lock lock(st.mutex);
  for (size_t d = 0; d < st.devices.size(); ++d) drain_device(static_cast<int>(d));
  st.deferred = deferred;
}
std::string last_fault() {
  Lock lock(state().mutex);
  return state().last_fault;
}
void clear_errors() {
  Lock lock(state().mutex);
  for (auto& d : state().devices) d.sticky = cudaSuccess;
  state().last_fault.clear();
  t_last = cudaSuccess;
}
std::string describe() {
  State& st = state();
  Lock lock(st.mutex);
  if (!st.config_error.empty()) return "emulated CUDA: " + st.config_error;
  const char* order = st.order == BlockOrder::Forward ? "forward" : st.order == BlockOrder::Reverse ? "reverse" : "shuffled";
  return "CUDA runtime 13.0 (emulated: " + std::to_string(st.devices.size()) + " device(s), " +
         std::to_string(kMultiprocessors) + " SMs each, blocks " + order + ", " +
         (st.deferred ? "deferred" : "immediate") + " streams), cuBLAS and cuDNN not modelled yet (part 2)";
}

}  // namespace ember::emulation

// ---- runtime.h -----------------------------------------------------------------------------

using namespace ember::emulation;

cudaError_t cudaGetDeviceCount(int* count) {
  State& st = state();
  Lock lock(st.mutex);
  *count = static_cast<int>(st.devices.size());
  if (!st.config_error.empty()) return fail(cudaErrorInitializationError);
  return st.devices.empty() ? fail(cudaErrorNoDevice) : cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  *device = t_device;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  Lock lock(state().mutex);
  if (!valid_device(device)) return fail(cudaErrorInvalidDevice);
  t_device = device;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  Lock lock(state().mutex);
  if (!valid_device(device)) return fail(cudaErrorInvalidDevice);
  switch (attr) {
    case cudaDevAttrMultiProcessorCount: *value = kMultiprocessors; return cudaSuccess;
    case cudaDevAttrMaxThreadsPerBlock: *value = 1024; return cudaSuccess;
    case cudaDevAttrWarpSize: *value = 32; return cudaSuccess;
    case cudaDevAttrMaxGridDimX: *value = 2147483647; return cudaSuccess;
    case cudaDevAttrMaxGridDimY:
    case cudaDevAttrMaxGridDimZ: *value = 65535; return cudaSuccess;
  }
  return fail(cudaErrorInvalidValue);
}

cudaError_t cudaDriverGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaGetLastError() {
  Lock lock(state().mutex);
  const cudaError_t e = t_last;
  t_last = cudaSuccess;
  if (valid_device(t_device) && state().devices[static_cast<size_t>(t_device)].sticky != cudaSuccess)
    return state().devices[static_cast<size_t>(t_device)].sticky;
  return e;
}

cudaError_t cudaPeekAtLastError() {
  Lock lock(state().mutex);
  if (valid_device(t_device) && state().devices[static_cast<size_t>(t_device)].sticky != cudaSuccess)
    return state().devices[static_cast<size_t>(t_device)].sticky;
  return t_last;
}

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
    case cudaErrorPeerAccessAlreadyEnabled: return "cudaErrorPeerAccessAlreadyEnabled";
    case cudaErrorPeerAccessNotEnabled: return "cudaErrorPeerAccessNotEnabled";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  const char* text = "unrecognized error code";
  switch (error) {
    case cudaSuccess: text = "no error"; break;
    case cudaErrorInvalidValue: text = "invalid argument"; break;
    case cudaErrorMemoryAllocation: text = "out of memory"; break;
    case cudaErrorInitializationError: text = "initialization error"; break;
    case cudaErrorInvalidConfiguration: text = "invalid configuration argument"; break;
    case cudaErrorInvalidMemcpyDirection: text = "invalid copy direction for memcpy"; break;
    case cudaErrorNoDevice: text = "no CUDA-capable device is detected"; break;
    case cudaErrorInvalidDevice: text = "invalid device ordinal"; break;
    case cudaErrorInvalidResourceHandle: text = "invalid resource handle"; break;
    case cudaErrorIllegalAddress: text = "an illegal memory access was encountered"; break;
    case cudaErrorLaunchOutOfResources: text = "too many resources requested for launch"; break;
    case cudaErrorPeerAccessAlreadyEnabled: text = "peer access is already enabled"; break;
    case cudaErrorPeerAccessNotEnabled: text = "peer access has not been enabled"; break;
    case cudaErrorLaunchFailure: text = "unspecified launch failure"; break;
    case cudaErrorNotSupported: text = "operation not supported"; break;
  }
  // Errors the emulator diagnosed carry the diagnosis: "(emulated: ...)". The text lives in
  // a per-thread buffer until this thread's next call.
  const bool diagnosed = error == cudaErrorIllegalAddress || error == cudaErrorLaunchFailure ||
                         error == cudaErrorInvalidConfiguration || error == cudaErrorInvalidResourceHandle ||
                         (error == cudaErrorInitializationError && !state().config_error.empty());
  if (!diagnosed) return text;
  static thread_local std::string message;
  Lock lock(state().mutex);
  const std::string why = error == cudaErrorInitializationError ? state().config_error : state().last_fault;
  message = why.empty() ? text : std::string(text) + " (emulated: " + why + ")";
  return message.c_str();
}

cudaError_t cudaMalloc(void** ptr, size_t size) {
  State& st = state();
  Lock lock(st.mutex);
  *ptr = nullptr;
  if (const cudaError_t e = usable(t_device)) return e;
  if (size == 0) return cudaSuccess;
  DeviceState& dev = st.devices[static_cast<size_t>(t_device)];
  const size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded < size || rounded > dev.capacity - std::min(dev.capacity, dev.used)) return fail(cudaErrorMemoryAllocation);
  void* p = nullptr;
  // Exactly size bytes, so AddressSanitizer sees an overrun past the end.
  if (::posix_memalign(&p, kAlignment, size) != 0 || !p) return fail(cudaErrorMemoryAllocation);
  dev.live[reinterpret_cast<uintptr_t>(p)] = size;
  dev.used += rounded;
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  State& st = state();
  Lock lock(st.mutex);
  if (!ptr) return cudaSuccess;
  for (size_t d = 0; d < st.devices.size(); ++d) {
    DeviceState& dev = st.devices[d];
    auto it = dev.live.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == dev.live.end()) continue;
    drain_device(static_cast<int>(d));  // cudaFree waits for the device
#if defined(EMBER_EMULATION_ASAN)
    ASAN_UNPOISON_MEMORY_REGION(ptr, it->second);  // the caching allocator may have poisoned parts
#endif
    dev.used -= (it->second + kAlignment - 1) / kAlignment * kAlignment;
    dev.freed.emplace_back(it->first, it->second);
    if (dev.freed.size() > kFreedRemembered) dev.freed.pop_front();
    dev.live.erase(it);
    std::free(ptr);
    return dev.sticky == cudaSuccess ? cudaSuccess : fail(dev.sticky);
  }
  return fail(cudaErrorInvalidValue);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  State& st = state();
  Lock lock(st.mutex);
  const int d = device_of(stream);
  if (const cudaError_t e = usable(d)) return e;
  if (count == 0) return cudaSuccess;
  if (kind == cudaMemcpyDefault)
    kind = locate(src, 1).device >= 0 ? (locate(dst, 1).device >= 0 ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                                      : (locate(dst, 1).device >= 0 ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDeviceToDevice) return fail(cudaErrorInvalidMemcpyDirection);
  if (dst_device && !accessible(d, dst, count, "cudaMemcpyAsync destination")) return cudaErrorIllegalAddress;
  if (src_device && !accessible(d, src, count, "cudaMemcpyAsync source")) return cudaErrorIllegalAddress;
  if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost) {
    // From pageable memory the source is staged before the call returns, so the caller
    // may reuse it at once.
    auto staged = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char*>(src),
                                                               static_cast<const unsigned char*>(src) + count);
    submit_function(stream, d, [dst, staged] { std::memcpy(dst, staged->data(), staged->size()); });
  } else {
    submit_function(stream, d, [dst, src, count] { std::memmove(dst, src, count); });
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t count,
                                cudaStream_t stream) {
  State& st = state();
  Lock lock(st.mutex);
  const int d = device_of(stream);
  if (const cudaError_t e = usable(d)) return e;
  if (!valid_device(dst_device) || !valid_device(src_device)) return fail(cudaErrorInvalidDevice);
  if (count == 0) return cudaSuccess;
  // Staged through the host where peers cannot reach each other: each side on its device.
  if (!accessible(dst_device, dst, count, "cudaMemcpyPeerAsync destination")) return cudaErrorIllegalAddress;
  if (!accessible(src_device, src, count, "cudaMemcpyPeerAsync source")) return cudaErrorIllegalAddress;
  submit_function(stream, d, [dst, src, count] { std::memmove(dst, src, count); });
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream) {
  State& st = state();
  Lock lock(st.mutex);
  const int d = device_of(stream);
  if (const cudaError_t e = usable(d)) return e;
  if (count == 0) return cudaSuccess;
  if (!accessible(d, ptr, count, "cudaMemsetAsync")) return cudaErrorIllegalAddress;
  submit_function(stream, d, [ptr, value, count] { std::memset(ptr, value, count); });
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  State& st = state();
  Lock lock(st.mutex);
  if (const cudaError_t e = usable(t_device)) return e;
  auto s = std::make_unique<CUstream_st>();
  s->device = t_device;
  *stream = s.get();
  st.devices[static_cast<size_t>(t_device)].streams.push_back(std::move(s));
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  State& st = state();
  Lock lock(st.mutex);
  if (!stream || !valid_device(stream->device)) return fail(cudaErrorInvalidResourceHandle);
  drain(*stream);
  auto& streams = st.devices[static_cast<size_t>(stream->device)].streams;
  streams.erase(std::remove_if(streams.begin(), streams.end(), [&](const auto& s) { return s.get() == stream; }),
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
  if (!valid_device(t_device)) return usable(t_device);
  drain_device(t_device);
  return usable(t_device);
}

cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer_device) {
  Lock lock(state().mutex);
  if (!valid_device(device) || !valid_device(peer_device)) return fail(cudaErrorInvalidDevice);
  *can_access = device != peer_device;
  return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned int flags) {
  State& st = state();
  Lock lock(st.mutex);
  if (const cudaError_t e = usable(t_device)) return e;
  if (!valid_device(peer_device) || peer_device == t_device) return fail(cudaErrorInvalidDevice);
  if (flags != 0) return fail(cudaErrorInvalidValue);
  if (!st.devices[static_cast<size_t>(t_device)].peers.insert(peer_device).second)
    return fail(cudaErrorPeerAccessAlreadyEnabled);
  return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peer_device) {
  State& st = state();
  Lock lock(st.mutex);
  if (const cudaError_t e = usable(t_device)) return e;
  if (!valid_device(peer_device)) return fail(cudaErrorInvalidDevice);
  if (!st.devices[static_cast<size_t>(t_device)].peers.erase(peer_device)) return fail(cudaErrorPeerAccessNotEnabled);
  return cudaSuccess;
}
