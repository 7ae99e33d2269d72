#include "ember/nn/parallel/distributed_data_parallel.h"

#include <string>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/nn/parallel/digest.h"

namespace ember::nn::parallel {

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<Module> module, ProcessGroup& group,
                                                 DistributedDataParallelOptions options)
    : Module("DistributedDataParallel"), module_(std::move(module)), group_(&group), options_(options) {
  if (!module_) raise<ValueError>("DistributedDataParallel: module is null");
  if (options_.bucket_bytes == 0)
    raise<ValueError>("DistributedDataParallel: bucket_bytes must be at least 1");
  register_module("module", module_);
  for (auto& [name, p] : module_->named_parameters())
    if (p.requires_grad()) params_.emplace_back(name, p);
  check_ranks_agree();
  broadcast_state();
  build_buckets();
}

Tensor DistributedDataParallel::forward(const Tensor& input) { return (*module_)(input); }

// Every rank gathers every rank's (parameter count, buffer count, shape digest) and compares
// with rank 0, so all of them raise the same error rather than some hanging in a broadcast.
void DistributedDataParallel::check_ranks_agree() {
  const std::vector<Tensor> params = module_->parameters();
  const std::vector<Tensor> buffers = module_->buffers();
  std::vector<Tensor> all = params;
  all.insert(all.end(), buffers.begin(), buffers.end());
  const Tensor mine = from_vector(std::vector<int64_t>{
      static_cast<int64_t>(params.size()), static_cast<int64_t>(buffers.size()), detail::shape_digest(all)});
  const std::vector<Tensor> every = group_->all_gather(mine);
  const std::vector<int64_t> first = every[0].to_vector<int64_t>();
  for (size_t r = 1; r < every.size(); ++r) {
    const std::vector<int64_t> other = every[r].to_vector<int64_t>();
    if (other == first) continue;
    if (other[0] != first[0] || other[1] != first[1])
      raise<DistributedError>("DistributedDataParallel: the ranks hold different models: rank 0 has ",
                              first[0], " parameters and ", first[1], " buffers, rank ", r, " has ", other[0],
                              " parameters and ", other[1], " buffers (seen on rank ", group_->rank(), ")");
    raise<DistributedError>("DistributedDataParallel: the ranks hold different models: rank ", r,
                            "'s parameter or buffer shapes or dtypes differ from rank 0's (seen on rank ",
                            group_->rank(), ")");
  }
}

void DistributedDataParallel::broadcast_state() {
  NoGradGuard no_grad;
  for (const Tensor& p : module_->parameters()) group_->broadcast(p, 0);
  for (const Tensor& b : module_->buffers()) group_->broadcast(b, 0);
}

// Reverse registration order, as PyTorch: backward produces the last layers' gradients first,
// which is the order an overlapped version will launch the buckets in. A bucket holds one
// device and dtype, since it is reduced as one flat buffer.
void DistributedDataParallel::build_buckets() {
  size_t bytes = 0;
  for (size_t k = params_.size(); k-- > 0;) {
    const Tensor& p = params_[k].second;
    const size_t size = static_cast<size_t>(p.numel()) * itemsize(p.dtype());
    bool fresh = buckets_.empty() || bytes + size > options_.bucket_bytes;
    if (!fresh) {
      const Tensor& head = params_[buckets_.back().front()].second;
      fresh = head.device() != p.device() || head.dtype() != p.dtype();
    }
    if (fresh && !(buckets_.empty() || buckets_.back().empty())) {
      buckets_.emplace_back();
      bytes = 0;
    }
    if (buckets_.empty()) buckets_.emplace_back();
    buckets_.back().push_back(k);
    bytes += size;
  }
}

std::vector<size_t> DistributedDataParallel::bucket_sizes() const {
  std::vector<size_t> sizes;
  for (const auto& b : buckets_) sizes.push_back(b.size());
  return sizes;
}

void DistributedDataParallel::sync_gradients() {
  if (no_sync_depth_ > 0) return;
  // The ranks agree first on whether a parameter went without a gradient (the first such, by
  // number), so that all of them raise together instead of some waiting in a bucket.
  int64_t missing = 0;
  for (size_t k = 0; k < params_.size() && missing == 0; ++k)
    if (!params_[k].second.grad().defined()) missing = static_cast<int64_t>(k) + 1;
  if (!options_.allow_unused_parameters) {
    const Tensor flag = from_vector(std::vector<int64_t>{missing});
    group_->all_reduce(flag, AllReduceOp::Max);
    const int64_t first = flag.item<int64_t>();
    if (first > 0)
      raise<DistributedError>(
          "DistributedDataParallel: parameter ", params_[static_cast<size_t>(first - 1)].first,
          " got no gradient in this step on ", missing == first ? "this rank" : "another rank", " (rank ",
          group_->rank(), " of ", group_->world_size(),
          "); every rank must use every parameter, or set allow_unused_parameters");
  }
  NoGradGuard no_grad;
  for (const auto& bucket : buckets_) {
    std::vector<Tensor> grads;
    grads.reserve(bucket.size());
    for (size_t k : bucket) {
      const Tensor& p = params_[k].second;
      if (!p.grad().defined()) p.set_grad(zeros_like(p));
      grads.push_back(p.grad());
    }
    group_->all_reduce(grads, AllReduceOp::Avg);
  }
}

}  // namespace ember::nn::parallel
