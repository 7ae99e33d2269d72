#pragma once
// DistributedDataParallel: the same model on every rank, trained on each rank's shard of the
// data, with gradients averaged across ranks so that every rank takes the same optimizer step
// (torch.nn.parallel.DistributedDataParallel, Horovod). Construction checks that the ranks
// hold the same model (parameter and buffer counts, shapes, dtypes) and copies rank 0's
// parameters and buffers to every rank.
//
//   auto ddp = std::make_shared<DistributedDataParallel>(model);
//   loss = cross_entropy((*ddp)(x), y); loss.backward();
//   ddp->sync_gradients();          // averages the gradients over the ranks
//   opt.step();
//
// Averaging is per rank, as PyTorch does: the result is the mean of the ranks' gradients, which
// equals the gradient of the whole batch when every rank's loss is a mean over equally many
// examples. This first version all-reduces in buckets when sync_gradients() is called, after
// backward; overlapping the buckets with backward through a post-accumulate-grad hook is to
// follow behind the same call.
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
  /// DistributedError (usually a forward pass that skipped part of the model by mistake).
  bool allow_unused_parameters = false;
};

class EMBER_API DistributedDataParallel : public Module {
 public:
  /// Wraps module (registered as child "module"). DistributedError on every rank when the
  /// ranks' models differ; ValueError for a null module or a bucket_bytes of 0.
  explicit DistributedDataParallel(std::shared_ptr<Module> module,
                                   ProcessGroup& group = ProcessGroup::world(),
                                   DistributedDataParallelOptions options = {});

  /// The wrapped module's forward.
  Tensor forward(const Tensor& input) override;

  /// Replaces every parameter's gradient by its average over the ranks. Call it after
  /// backward and before the optimizer step, on every rank. Inside no_sync() it does nothing.
  void sync_gradients();

  /// While the returned guard lives, sync_gradients() leaves the gradients local, so that
  /// several backward passes accumulate; the first sync_gradients() after it averages the
  /// accumulated sums.
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

 private:
  void check_ranks_agree();
  void broadcast_state();
  void build_buckets();

  std::shared_ptr<Module> module_;
  ProcessGroup* group_;
  DistributedDataParallelOptions options_;
  std::vector<std::pair<std::string, Tensor>> params_;  // trainable ones, registration order
  std::vector<std::vector<size_t>> buckets_;            // indices into params_
  int no_sync_depth_ = 0;
};

}  // namespace ember::nn::parallel
