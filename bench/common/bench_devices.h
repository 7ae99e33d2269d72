// What every Ember benchmark row shares: the devices present (cpu, then cuda:0 when a GPU
// is usable), a wait for queued device work before a clock is read, and a wall-clock rate.
// Rows are named <workload>/<device>[/<sizes>][/threads:<n>] so that compare_torch.py can
// rebuild the same workload in PyTorch from the name alone.
#pragma once

#include <sys/resource.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::bench {

inline std::vector<Device> devices() {
  std::vector<Device> d{Device::cpu()};
  if (cuda::is_available()) d.push_back(Device::cuda(0));
  return d;
}

// An emulated GPU's rows (EMBER_CUDA=EMULATE) carry the label "(emulated)", so that no one
// reads them as GPU figures.
inline void label_device(benchmark::State& state, Device d) {
  if (d.is_cuda() && cuda::is_emulated()) state.SetLabel("(emulated)");
}

// CPU rows are measured at 1 and 2 threads; a GPU row once, at one host thread.
inline std::vector<int> thread_counts(Device d) {
  return d.is_cpu() ? std::vector<int>{1, 2} : std::vector<int>{1};
}

inline void sync(Device d) {
  if (d.is_cuda()) cuda::synchronize();
}

inline std::string threads_suffix(int threads) { return "/threads:" + std::to_string(threads); }

// Runs `body` under a thread count, warmed up once (per-thread buffers, cuDNN's algorithm
// search, the caching allocator) and synchronised before the clock stops; returns the wall
// seconds of the timed iterations. Wall time, because Google Benchmark's own rates use the
// main thread's CPU time, which leaves out Ember's other compute threads, and its real-time
// switch would rename the row.
template <class Body>
double timed_loop(benchmark::State& state, Device d, int threads, Body&& body) {
  label_device(state, d);
  set_num_threads(threads);
  body();
  sync(d);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) body();
  sync(d);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  set_num_threads(1);
  return seconds;
}

// Sets counter `name` to amount_per_iteration * iterations / seconds.
inline void report_rate(benchmark::State& state, const char* name, double amount_per_iteration,
                        double seconds) {
  state.counters[name] = amount_per_iteration * static_cast<double>(state.iterations()) / seconds;
}

// The process's peak resident memory so far, in MiB: a row's own figure when the row runs alone
// in its process (--benchmark_filter), its model loaded, packed and run. VmHWM, the peak of this
// program's own memory map: getrusage's ru_maxrss keeps the peak from before exec, so a row
// started by a large process (a Python twin) would report that process's size.
inline double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

}  // namespace ember::bench
