#pragma once
// ProcessGroup: the processes of one data-parallel job and the collectives between them
// (torch.distributed's process group, on MPI). Started by mpirun / mpiexec / srun, a program
// joins the world of all its ranks; started alone it is a world of one (rank 0 of 1, MPI
// untouched) in which every collective leaves its tensors as they are.
//
// Tensors of any dtype and device: CPU tensors go to MPI directly (contiguous ones in place),
// CUDA tensors are staged through host memory. Every rank must call the same collectives in
// the same order with tensors of the same shape and dtype (ShapeError otherwise, on every
// rank). A collective that waits longer than timeout() for the others throws DistributedError
// naming this rank and the collective, after which the group refuses further collectives.
#include <chrono>
#include <memory>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn::parallel {

namespace detail {
class Transport;
}
class DistributedDataParallel;

/// How all_reduce combines the ranks' values (torch.distributed.ReduceOp; ember::ReduceOp is
/// the reduction ops' kind). Avg needs a floating dtype.
enum class AllReduceOp { Sum, Avg, Max };

class EMBER_API ProcessGroup {
 public:
  /// The world of this process, joined on first use from the launcher's environment.
  /// NotCompiledError when a launcher started several processes but Ember was built without MPI.
  static ProcessGroup& world();

  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  /// This process's number, 0 .. world_size() - 1.
  int rank() const;
  int world_size() const;
  /// The rank among the processes on this machine (to pick a GPU: cuda:local_rank()).
  int local_rank() const;

  /// How long a collective waits for the other ranks: 300 s by default, or
  /// EMBER_DISTRIBUTED_TIMEOUT seconds when that variable is set.
  std::chrono::milliseconds timeout() const;
  void set_timeout(std::chrono::milliseconds timeout);

  /// Replaces t's values, in place, by their reduction over all ranks.
  void all_reduce(const Tensor& t, AllReduceOp op = AllReduceOp::Sum);
  /// The same for several tensors of one device and dtype (DeviceMismatchError /
  /// DTypeError naming tensors[i]), reduced together in one collective.
  void all_reduce(const std::vector<Tensor>& tensors, AllReduceOp op = AllReduceOp::Sum);
  /// Overwrites t on every rank with root's t. ValueError for a root outside the world.
  void broadcast(const Tensor& t, int root = 0);
  /// Every rank's t, in rank order, as new tensors on t's device.
  std::vector<Tensor> all_gather(const Tensor& t);
  /// Returns once every rank has called it.
  void barrier();

  /// A group over the given transport (tests; world() picks the transport itself).
  explicit ProcessGroup(std::unique_ptr<detail::Transport> transport);

 private:
  friend class DistributedDataParallel;  // starts its buckets' all-reduces on the transport
  void check_same_signature(const char* collective, const Tensor& t);
  std::unique_ptr<detail::Transport> transport_;
};

}  // namespace ember::nn::parallel
