#pragma once
// EMBER_LAUNCH's emulated form (see kernels/cuda/launch.cuh): the launch is checked as a
// GPU checks it (configuration, stream of the current device), every pointer argument is
// checked against the device's live allocations, and the grid runs on its stream (at once,
// or at the next synchronisation with deferred streams). The parameters are copied at the
// launch, as a GPU copies them into its parameter block.
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda_emulator/kernel_language.h"
#include "cuda_emulator/runtime.h"

namespace ember::emulation {

struct LaunchConfig {
  const char* kernel;
  dim3 grid, block;
  size_t shared_bytes;
  cudaStream_t stream;
};

/// Checks the configuration; on success returns true with the launch's device, else
/// records the error cudaGetLastError reports and returns false.
EMBER_API bool begin_launch(const LaunchConfig& config, int* device);
/// Whether p (non-null) lies in memory that device may access (and, with deferred streams,
/// that no copy queued on another stream still reads: the kernel may write it); if not,
/// the device gets the sticky cudaErrorIllegalAddress naming the kernel and argument.
EMBER_API bool check_kernel_pointer(const LaunchConfig& config, int device, const void* p, int argument);
/// Runs every thread of the grid through thread(context), recording a fault as sticky.
EMBER_API void run_grid(const LaunchConfig& config, int device, void (*thread)(void*), void* context);
/// Runs work on the stream: now, or at its next synchronisation with deferred streams.
EMBER_API void submit(cudaStream_t stream, int device, void (*work)(void*), std::shared_ptr<void> context);

// A parameter struct that carries pointers (multi-tensor lists) lists them through a
// function emulated_pointers(const S&) found next to it (argument-dependent lookup).
template <class T, class = void>
struct CarriesPointers : std::false_type {};
template <class T>
struct CarriesPointers<T, std::void_t<decltype(emulated_pointers(std::declval<const T&>()))>>
    : std::true_type {};

template <class T>
bool check_argument(const LaunchConfig& config, int device, const T& value, int argument) {
  if constexpr (std::is_pointer<T>::value) {
    return value == nullptr || check_kernel_pointer(config, device, value, argument);
  } else if constexpr (CarriesPointers<T>::value) {
    for (const void* p : emulated_pointers(value))
      if (p && !check_kernel_pointer(config, device, p, argument)) return false;
    return true;
  } else {
    return true;
  }
}

template <class Kernel, class... Args>
struct Launch {
  LaunchConfig config;
  int device;
  Kernel kernel;
  std::tuple<Args...> args;

  static void thread(void* self) {
    auto* l = static_cast<Launch*>(self);
    std::apply(l->kernel, l->args);
  }
  static void run(void* self) {
    auto* l = static_cast<Launch*>(self);
    run_grid(l->config, l->device, &Launch::thread, l);
  }
};

template <class Kernel, class... Args>
void launch(const LaunchConfig& config, Kernel kernel, Args&&... args) {
  int device = -1;
  if (!begin_launch(config, &device)) return;
  using L = Launch<Kernel, std::decay_t<Args>...>;
  auto l = std::make_shared<L>(
      L{config, device, kernel, std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...)});
  bool ok = true;
  int i = 0;
  std::apply([&](const auto&... a) { ((ok = ok && check_argument(config, device, a, i++)), ...); }, l->args);
  if (ok) submit(config.stream, device, &L::run, std::move(l));
}

}  // namespace ember::emulation
