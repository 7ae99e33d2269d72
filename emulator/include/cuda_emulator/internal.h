#pragma once
// What the emulator's files share: the runtime's state (runtime.cpp; one lock serialises
// it, kernels included), errors (errors.cpp: a call's error is this thread's last error,
// cleared by cudaGetLastError; an illegal address or a kernel fault is sticky for its
// device until clear_errors(), as a fault breaks a real context), the streams' queues
// (streams.cpp), the pointer checks (memory.cpp) and the stream-order checks of deferred
// streams (pending_reads.cpp).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cuda_emulator/control.h"
#include "cuda_emulator/launch.h"
#include "cuda_emulator/runtime.h"

// A number per stream for the life of the process (a destroyed stream's address may be reused).
inline uint64_t ember_emulated_stream_id() {
  static std::atomic<uint64_t> next{0};
  return ++next;
}

struct CUstream_st {
  int device = 0;
  uint64_t id = ember_emulated_stream_id();
  // How far this stream's queue is ordered after other streams' work, by stream id: a
  // cudaStreamWaitEvent queued here waits for that stream's queue up to the position (and
  // for what that stream had waited for then).
  std::map<uint64_t, uint64_t> waited;
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

inline constexpr int kMultiprocessors = 4;
inline constexpr size_t kDefaultCapacity = size_t(80) << 30;  // an H100's, as a notional size
inline constexpr size_t kAlignment = 256;                     // cudaMalloc's guarantee
inline constexpr size_t kFreedRemembered = 4096;

struct DeviceState {
  std::map<uintptr_t, size_t> live;                // base -> size
  std::deque<std::pair<uintptr_t, size_t>> freed;  // recent frees, for the diagnosis
  size_t used = 0, capacity = kDefaultCapacity;
  std::set<int> peers;  // devices whose memory it may use
  cudaError_t sticky = cudaSuccess;
  std::unique_ptr<CUstream_st> null_stream = std::make_unique<CUstream_st>();
  std::vector<std::unique_ptr<CUstream_st>> streams;
};

struct State {
  std::recursive_mutex mutex;
  std::string config_error;  // a malformed environment variable: no devices
  bool no_driver = false;    // EMBER_EMULATED_CUDA_DRIVER=none: no devices either
  std::vector<DeviceState> devices;
  BlockOrder order = BlockOrder::Forward;
  uint64_t shuffle_seed = 0, shuffles = 0;
  ThreadOrder thread_order = ThreadOrder::Forward;
  uint64_t thread_seed = 0, thread_shuffles = 0;
  bool deferred = false;
  bool strict_devices = false;
  std::string last_fault;
  // Deferred streams: copies queued but not yet run, with the device memory they read.
  struct PendingRead {
    uintptr_t begin, end;
    CUstream_st* stream;
    uint64_t position;  // the copy's place in its stream (done once executed reaches it)
    std::string copy;   // what it is, for the diagnosis
  };
  std::map<uint64_t, PendingRead> pending_reads;
  uint64_t pending_serial = 0;
};

/// The runtime's state, made from the environment on first use and never destroyed.
State& state();
using Lock = std::lock_guard<std::recursive_mutex>;

/// This thread's current device and last error.
int& current_device();
cudaError_t& last_error();
/// Records e as this thread's last error and returns it.
cudaError_t fail(cudaError_t e);
bool valid_device(int d);
/// cudaSuccess when device d can take work, else the error to return (no devices, out of
/// range, or broken by a sticky error), recorded as the last error.
cudaError_t usable(int d);
/// The stream a call names, or the device's own default stream for null.
CUstream_st& stream_or_null(cudaStream_t s, int device);
/// The device of a stream (the current one for null).
int device_of(cudaStream_t s);

/// Makes error sticky on device and keeps why for cudaGetErrorString.
void set_sticky_error(int device, cudaError_t error, const std::string& why);
/// Sets this thread's last error (launch errors) and keeps why.
void set_launch_error(cudaError_t error, const std::string& why);
/// The seed of the next launch's block shuffle (a sequence drawn from the configured seed).
uint64_t next_shuffle_seed();
/// The seed of the next launch's thread shuffles (likewise, from the thread order's seed).
uint64_t next_thread_shuffle_seed();

/// Runs a stream's queued work up to position, all of it, or all of a device's.
void run_until(CUstream_st& s, uint64_t position);
void drain(CUstream_st& s);
void drain_device(int d);
/// Runs f on the stream: now, or at its next synchronisation with deferred streams.
template <class F>
void submit_function(cudaStream_t s, int device, F f) {
  auto holder = std::make_shared<F>(std::move(f));
  submit(
      s, device, [](void* c) { (*static_cast<F*>(c))(); }, std::move(holder));
}

/// "stream 3 of cuda:1" or "the default stream of cuda:0", for diagnoses.
std::string stream_name(const CUstream_st& s);

/// Deferred streams (pending_reads.cpp): a copy queued on stream s that reads n device bytes
/// at src is a pending read until it runs; returns the id that run_pending_read() retires.
uint64_t add_pending_read(CUstream_st& s, const void* src, size_t n, const std::string& copy);
void retire_pending_read(uint64_t id);
/// Whether work queued on stream s (what) may write n bytes at p: not while a copy queued on
/// another stream that s has not waited for still reads them. If it may not, the device
/// gets the sticky cudaErrorIllegalAddress, the diagnosis naming both streams and the copy.
bool may_write(CUstream_st& s, const void* p, size_t n, const std::string& what);
/// Whether n bytes at p, freed on device, are free of copies still queued to read them
/// (sticky cudaErrorIllegalAddress if not).
bool may_free(int device, const void* p, size_t n);

/// Where n bytes at p lie: the owning device, or -1 and why they are not device memory.
struct Where {
  int device = -1;
  std::string problem;
};
Where locate(const void* p, size_t n);
/// Whether device may use n bytes at p; if not, the device gets the sticky illegal
/// address, the diagnosis naming what used them.
bool accessible(int device, const void* p, size_t n, const std::string& what);
/// accessible() for an argument of work that runs on device (a kernel, cuBLAS, cuDNN): in
/// strict-devices mode memory of another device is refused even with peer access.
bool argument_accessible(int device, const void* p, size_t n, const std::string& what);

}  // namespace ember::emulation
