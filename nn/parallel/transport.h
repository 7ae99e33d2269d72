#pragma once
// The byte-level collectives a ProcessGroup runs on: a world of one process (no MPI) or MPI
// (mpi_transport.cpp, built with EMBER_WITH_MPI only). Internal to Ember::distributed; a
// NCCL transport can later sit behind the same interface.
#include <chrono>
#include <cstdint>
#include <memory>

#include "ember/core/dtype.h"

namespace ember::nn::parallel::detail {

/// The reductions a transport performs (ProcessGroup builds avg from sum).
enum class WireOp { Sum, Max };

/// Whether every rank is known to have reached this collective: the caller has just finished a
/// deadline-bounded collective with all of them for the same operation, and nothing that can
/// fail on one rank alone lies in between. A transport may then use its blocking, tuned
/// algorithms (MPI's non-blocking ones reach about half the bandwidth): no rank can be missing,
/// and one that dies meanwhile ends the job through the launcher.
enum class Arrival { Unknown, Confirmed };

/// A collective started without waiting for it (Transport::start_all_reduce), to overlap it
/// with other work. Its buffer must stay untouched until it completes.
class PendingCollective {
 public:
  virtual ~PendingCollective() = default;
  /// Lets the collective progress (MPI moves non-blocking collectives on inside its calls);
  /// true once it is complete.
  virtual bool test() = 0;
  /// Completes it; DistributedError naming the rank and the collective when the other ranks
  /// do not all take part before the deadline set when it started (the group is then broken).
  virtual void wait() = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Rank among the processes on this machine.
  virtual int local_rank() const = 0;
  /// Reduces count elements of dtype at data, in place, over every rank.
  virtual void all_reduce(void* data, int64_t count, DType dtype, WireOp op, Arrival arrival,
                          const char* collective) = 0;
  /// Copies root's bytes at data to every rank's data.
  virtual void broadcast(void* data, int64_t bytes, int root, Arrival arrival, const char* collective) = 0;
  /// out (size() * bytes) receives every rank's bytes from in, in rank order.
  virtual void all_gather(const void* in, void* out, int64_t bytes, Arrival arrival,
                          const char* collective) = 0;
  virtual void barrier(const char* collective) = 0;
  /// Starts reducing count elements at data, in place, over every rank, without waiting: every
  /// rank must start the same collectives in the same order. The deadline is now + timeout.
  virtual std::unique_ptr<PendingCollective> start_all_reduce(void* data, int64_t count, DType dtype,
                                                              WireOp op, const char* collective) = 0;

  /// How long a collective waits for the other ranks before DistributedError.
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
};

/// The world of this process alone: rank 0 of 1, every collective leaves data as it is.
std::unique_ptr<Transport> make_single_process_transport();
/// A transport over a duplicate of MPI_COMM_WORLD, initialising MPI when nobody has (and
/// finalising it when destroyed). Defined in builds with MPI only (EMBER_WITH_MPI).
std::unique_ptr<Transport> make_mpi_transport();

}  // namespace ember::nn::parallel::detail
