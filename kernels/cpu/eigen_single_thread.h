#pragma once
// Eigen's GEMM runs on the calling thread only: Ember's pool splits the work itself, and
// Eigen's own OpenMP threads inside a pool task would oversubscribe the cores.
#include <Eigen/Core>

namespace ember::cpu {

/// Sets Eigen to one thread, once per process: setNbThreads writes a global that every GEMM
/// reads, so calling it at each call site from several threads would be a data race.
inline void keep_eigen_single_threaded() {
  static const bool done = [] {
    Eigen::setNbThreads(1);
    return true;
  }();
  (void)done;
}

}  // namespace ember::cpu
