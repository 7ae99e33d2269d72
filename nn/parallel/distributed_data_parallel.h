#pragma once
// DistributedDataParallel: the same model on every rank, trained on each rank's shard of the
// data, with gradients averaged across ranks so that every rank takes the same optimizer step
// (torch.nn.parallel.DistributedDataParallel, Horovod). Construction checks that the ranks
// hold the same model (parameter and buffer counts, shapes, dtypes) and copies rank 0's
// parameters and buffers to every rank.
//
//   auto ddp = std::make_shared<DistributedDataParallel>(model);
//   loss = cross_entropy((*ddp)(x), y);
//   loss.backward();                // averages the gradients over the ranks
//   opt.step();
//
// Averaging is per rank, as PyTorch does: the result is the mean of the ranks' gradients, which
// equals the gradient of the whole batch when every rank's loss is a mean over equally many
// examples. The gradients are averaged in buckets of about bucket_bytes, during backward: a
// post-accumulate-grad hook on every parameter copies its gradient into its bucket's flat host
// buffer, and once a bucket is complete its non-blocking all-reduce starts, in one fixed
// order on every rank (reverse registration order; a bucket complete early waits for the
// ones before it), so that communication overlaps the rest of backward. At the end of
// backward, the last buckets start, every one is awaited (within the group's timeout) and
// the averages replace the gradients.
#include <cstddef>
#include <memory>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/parallel/process_group.h"

namespace ember::nn::parallel {

struct DistributedDataParallelOptions {
  /// Gradients are averaged in buckets of about this many bytes (PyTorch: 25 MiB).
  size_t bucket_bytes = size_t{25} << 20;
  /// A parameter without a gradient in a step is then averaged as zeros; otherwise it is a
  /// DistributedError on every rank, from the backward that skipped it (or sync_gradients()):
  /// usually a forward pass that skipped part of the model by mistake.
  bool allow_unused_parameters = false;
  /// Averages during backward (see above). false: gradients stay local until
  /// sync_gradients(), which then averages them all after backward, with nothing overlapped.
  bool overlap_with_backward = true;
};

class EMBER_API DistributedDataParallel : public Module {
 public:
  /// Wraps module (registered as child "module"). DistributedError on every rank when the
  /// ranks' models differ; ValueError for a null module or a bucket_bytes of 0.
  explicit DistributedDataParallel(std::shared_ptr<Module> module,
                                   ProcessGroup& group = ProcessGroup::world(),
                                   DistributedDataParallelOptions options = {});

  /// The wrapped module's forward. DistributedError when the previous backward threw after it
  /// had started averaging (the ranks may no longer be in step).
  Tensor forward(const Tensor& input) override;

  ~DistributedDataParallel() override;

  /// Averages the gradients, on every rank, unless no backward changed them since they were
  /// last averaged: it does the work after backward passes under no_sync() (which then
  /// ended) or without overlap_with_backward, and nothing after a backward that averaged
  /// them or inside no_sync(). Call it after backward and before the optimizer step where the
  /// overlap may be off. (Gradients set by hand in between are not noticed.)
  void sync_gradients();

  /// While the returned guard lives, backward and sync_gradients() leave the gradients local
  /// (no communication), so that several backward passes accumulate; the first backward (or
  /// sync_gradients()) after it averages the accumulated sums.
  class EMBER_API NoSync {
   public:
    explicit NoSync(DistributedDataParallel& ddp) : ddp_(&ddp) { ++ddp_->no_sync_depth_; }
    ~NoSync() { --ddp_->no_sync_depth_; }
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    DistributedDataParallel* ddp_;
  };
  [[nodiscard]] NoSync no_sync() { return NoSync(*this); }

  Module& module() { return *module_; }
  ProcessGroup& group() { return *group_; }
  /// The buckets' parameter counts, in the order they are reduced (reverse registration).
  std::vector<size_t> bucket_sizes() const;
  /// The buckets in the order the last averaging started their all-reduces: 0, 1, 2, ... on
  /// every rank, whatever order backward produced the gradients in.
  const std::vector<size_t>& launch_order() const { return launch_order_; }

 private:
  struct Reduction;
  void check_ranks_agree();
  void broadcast_state();
  void build_buckets();
  void build_reduction();
  void on_gradient_ready(size_t param);
  void begin_reduction();
  void mark_ready(size_t param);
  void launch_ready_buckets();
  void finish_reduction(bool during_backward);
  void check_all_parameters_used(int64_t missing);
  void refuse_unfinished_reduction();

  std::shared_ptr<Module> module_;
  ProcessGroup* group_;
  DistributedDataParallelOptions options_;
  std::vector<std::pair<std::string, Tensor>> params_;  // trainable ones, registration order
  std::vector<std::vector<size_t>> buckets_;            // indices into params_
  std::unique_ptr<Reduction> reduction_;                // the per-step state of averaging
  std::vector<size_t> launch_order_;
  int no_sync_depth_ = 0;
  bool averaged_ = false;  // the gradients are the ranks' average (no backward since, as the hooks tell)
};

}  // namespace ember::nn::parallel
