// The emulated CUDA runtime's state and devices: N devices (EMBER_EMULATED_CUDA_DEVICES)
// with 4 multiprocessors each and an optional capacity, the settings of control.h read
// from the environment once, and peer access. Errors, memory and streams have their own
// files (internal.h says which).
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "cuda_emulator/internal.h"

namespace ember::emulation {
namespace {

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

// forward, reverse, shuffle or shuffle:SEED as 0, 1, 2 (BlockOrder's and ThreadOrder's
// values) and the seed (0 without one).
bool parse_order(const std::string& text, int* order, uint64_t* seed) {
  *seed = 0;
  if (text == "forward" || text == "reverse") {
    *order = text == "forward" ? 0 : 1;
    return true;
  }
  if (text.rfind("shuffle", 0) != 0) return false;
  *order = 2;
  size_t n = 0;
  if (text.size() > 7 && !(text[7] == ':' && parse_size(text.c_str() + 8, &n))) return false;
  *seed = n;
  return true;
}

thread_local int t_device = 0;
thread_local cudaError_t t_last = cudaSuccess;

}  // namespace

State& state() {
  static State* s = [] {
    auto* st = new State;  // never destroyed: tensors may outlive static destructors
    int count = 2;
    if (const char* v = std::getenv("EMBER_EMULATED_CUDA_DEVICES")) {
      size_t n = 0;
      if (parse_size(v, &n) && n <= 64)
        count = static_cast<int>(n);
      else
        st->config_error =
            std::string("EMBER_EMULATED_CUDA_DEVICES=") + v + " is not a device count (0 to 64)";
    }
    if (const char* v = std::getenv("EMBER_EMULATED_CUDA_DRIVER")) {
      if (std::string(v) == "none")
        st->no_driver = true;
      else
        st->config_error = std::string("EMBER_EMULATED_CUDA_DRIVER=") + v + ": expected none";
    }
    if (!st->config_error.empty() || st->no_driver) count = 0;
    st->devices.resize(static_cast<size_t>(count));
    for (size_t d = 0; d < st->devices.size(); ++d) st->devices[d].null_stream->device = static_cast<int>(d);
    if (const char* v = std::getenv("EMBER_EMULATED_CUDA_MEMORY")) {
      size_t cap = 0;
      if (parse_size(v, &cap) && cap > 0)
        for (auto& d : st->devices) d.capacity = cap;
      else
        st->config_error =
            std::string("EMBER_EMULATED_CUDA_MEMORY=") + v + " is not a size (bytes, or with K, M or G)";
    }
    if (const char* v = std::getenv("EMBER_EMULATED_CUDA_BLOCK_ORDER")) {
      int order = 0;
      if (parse_order(v, &order, &st->shuffle_seed))
        st->order = static_cast<BlockOrder>(order);
      else
        st->config_error = std::string("EMBER_EMULATED_CUDA_BLOCK_ORDER=") + v +
                           ": expected forward, reverse or shuffle[:SEED]";
    }
    if (const char* v = std::getenv("EMBER_EMULATED_CUDA_THREAD_ORDER")) {
      int order = 0;
      if (parse_order(v, &order, &st->thread_seed))
        st->thread_order = static_cast<ThreadOrder>(order);
      else
        st->config_error = std::string("EMBER_EMULATED_CUDA_THREAD_ORDER=") + v +
                           ": expected forward, reverse or shuffle[:SEED]";
    }
    if (const char* v = std::getenv("EMBER_EMULATED_CUDA_STREAMS")) {
      const std::string m = v;
      if (m == "deferred")
        st->deferred = true;
      else if (m != "immediate")
        st->config_error = "EMBER_EMULATED_CUDA_STREAMS=" + m + ": expected immediate or deferred";
    }
    if (const char* v = std::getenv("EMBER_EMULATED_CUDA_STRICT_DEVICES")) {
      const std::string m = v;
      if (m == "1" || m == "0")
        st->strict_devices = m == "1";
      else
        st->config_error = "EMBER_EMULATED_CUDA_STRICT_DEVICES=" + m + ": expected 0 or 1";
    }
    if (!st->config_error.empty()) st->devices.clear();
    return st;
  }();
  return *s;
}

int& current_device() { return t_device; }
cudaError_t& last_error() { return t_last; }

cudaError_t fail(cudaError_t e) {
  last_error() = e;
  return e;
}

bool valid_device(int d) { return d >= 0 && d < static_cast<int>(state().devices.size()); }

// The device a call works on, or an error: none configured, or the device is broken.
cudaError_t usable(int d) {
  if (state().devices.empty())
    return fail(!state().config_error.empty() ? cudaErrorInitializationError
                : state().no_driver           ? cudaErrorInsufficientDriver
                                              : cudaErrorNoDevice);
  if (!valid_device(d)) return fail(cudaErrorInvalidDevice);
  const cudaError_t sticky = state().devices[static_cast<size_t>(d)].sticky;
  return sticky == cudaSuccess ? cudaSuccess : fail(sticky);
}

CUstream_st& stream_or_null(cudaStream_t s, int device) {
  return s ? *s : *state().devices[static_cast<size_t>(device)].null_stream;
}

int device_of(cudaStream_t s) { return s ? s->device : current_device(); }

void set_sticky_error(int device, cudaError_t error, const std::string& why) {
  State& st = state();
  Lock lock(st.mutex);
  if (valid_device(device) && st.devices[static_cast<size_t>(device)].sticky == cudaSuccess)
    st.devices[static_cast<size_t>(device)].sticky = error;
  st.last_fault = "cuda:" + std::to_string(device) + ": " + why;
  last_error() = error;
}

void set_launch_error(cudaError_t error, const std::string& why) {
  Lock lock(state().mutex);
  state().last_fault = why;
  last_error() = error;
}

uint64_t next_shuffle_seed() {
  State& st = state();
  Lock lock(st.mutex);
  return st.shuffle_seed * 0x9E3779B97F4A7C15ull + ++st.shuffles;
}

uint64_t next_thread_shuffle_seed() {
  State& st = state();
  Lock lock(st.mutex);
  return st.thread_seed * 0xBF58476D1CE4E5B9ull + ++st.thread_shuffles;
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
void set_thread_order(ThreadOrder order, uint64_t seed) {
  Lock lock(state().mutex);
  state().thread_order = order;
  state().thread_seed = seed;
  state().thread_shuffles = 0;
}
ThreadOrder thread_order() {
  Lock lock(state().mutex);
  return state().thread_order;
}
void set_memory_limit(int device, size_t bytes) {
  Lock lock(state().mutex);
  if (valid_device(device))
    state().devices[static_cast<size_t>(device)].capacity = bytes ? bytes : kDefaultCapacity;
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
bool strict_devices() {
  Lock lock(state().mutex);
  return state().strict_devices;
}
void set_strict_devices(bool strict) {
  Lock lock(state().mutex);
  state().strict_devices = strict;
}
std::string last_fault() {
  Lock lock(state().mutex);
  return state().last_fault;
}
void clear_errors() {
  Lock lock(state().mutex);
  for (auto& d : state().devices) d.sticky = cudaSuccess;
  state().last_fault.clear();
  last_error() = cudaSuccess;
}
std::string describe() {
  State& st = state();
  Lock lock(st.mutex);
  if (!st.config_error.empty()) return "emulated CUDA: " + st.config_error;
  const char* const orders[] = {"forward", "reverse", "shuffled"};
  const char* order = orders[static_cast<int>(st.order)];
  const char* threads = orders[static_cast<int>(st.thread_order)];
  return "CUDA runtime 13.0 (emulated: " + std::string(st.no_driver ? "no driver, " : "") +
         std::to_string(st.devices.size()) + " device(s), " + std::to_string(kMultiprocessors) +
         " SMs each, blocks " + order + ", threads " + threads + ", " +
         (st.deferred ? "deferred" : "immediate") + " streams" +
         (st.strict_devices ? ", strict devices" : "") + "), cuBLAS and cuDNN modelled on the host";
}

}  // namespace ember::emulation

// ---- runtime.h: devices ------------------------------------------------------------------

using namespace ember::emulation;

cudaError_t cudaGetDeviceCount(int* count) {
  State& st = state();
  Lock lock(st.mutex);
  *count = static_cast<int>(st.devices.size());
  if (!st.config_error.empty()) return fail(cudaErrorInitializationError);
  if (st.no_driver) return fail(cudaErrorInsufficientDriver);
  return st.devices.empty() ? fail(cudaErrorNoDevice) : cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  *device = current_device();
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  Lock lock(state().mutex);
  if (!valid_device(device)) return fail(cudaErrorInvalidDevice);
  current_device() = device;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  Lock lock(state().mutex);
  if (!valid_device(device)) return fail(cudaErrorInvalidDevice);
  switch (attr) {
    case cudaDevAttrMultiProcessorCount:
      *value = kMultiprocessors;
      return cudaSuccess;
    case cudaDevAttrMaxThreadsPerBlock:
      *value = 1024;
      return cudaSuccess;
    case cudaDevAttrWarpSize:
      *value = 32;
      return cudaSuccess;
    case cudaDevAttrMaxGridDimX:
      *value = 2147483647;
      return cudaSuccess;
    case cudaDevAttrMaxGridDimY:
    case cudaDevAttrMaxGridDimZ:
      *value = 65535;
      return cudaSuccess;
  }
  return fail(cudaErrorInvalidValue);
}

cudaError_t cudaDriverGetVersion(int* version) {
  *version = state().no_driver ? 0 : CUDART_VERSION;  // as the real one: 0 without a driver
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
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
  if (const cudaError_t e = usable(current_device())) return e;
  if (!valid_device(peer_device) || peer_device == current_device()) return fail(cudaErrorInvalidDevice);
  if (flags != 0) return fail(cudaErrorInvalidValue);
  if (!st.devices[static_cast<size_t>(current_device())].peers.insert(peer_device).second)
    return fail(cudaErrorPeerAccessAlreadyEnabled);
  return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peer_device) {
  State& st = state();
  Lock lock(st.mutex);
  if (const cudaError_t e = usable(current_device())) return e;
  if (!valid_device(peer_device)) return fail(cudaErrorInvalidDevice);
  if (!st.devices[static_cast<size_t>(current_device())].peers.erase(peer_device))
    return fail(cudaErrorPeerAccessNotEnabled);
  return cudaSuccess;
}
