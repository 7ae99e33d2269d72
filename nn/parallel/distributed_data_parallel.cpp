#include "ember/nn/parallel/distributed_data_parallel.h"

#include <string>
#include <utility>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/autograd/hooks.h"
#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/nn/parallel/digest.h"
#include "ember/nn/parallel/transport.h"

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
  build_reduction();
}

Tensor DistributedDataParallel::forward(const Tensor& input) {
  refuse_unfinished_reduction();
  return (*module_)(input);
}

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
// which is the order the buckets are launched in. A bucket holds one
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

// What averaging needs from one step to the next: where each gradient goes in its bucket's flat
// host buffer, which gradients this step has seen, and the all-reduces under way.
struct DistributedDataParallel::Reduction {
  struct Bucket {
    std::vector<int64_t> offsets;  // each parameter's first element in staging
    Tensor staging;                // contiguous, on the host; allocated on first use
    size_t waiting = 0;            // its parameters whose gradient this step has not seen
    std::unique_ptr<detail::PendingCollective> pending;
  };
  std::vector<Bucket> buckets;
  std::vector<size_t> bucket_of;  // per parameter
  std::vector<size_t> slot_of;    // per parameter: its place in its bucket
  std::vector<bool> ready;        // per parameter: its gradient is in its bucket
  size_t next_launch = 0;         // buckets before it have started their all-reduce
  bool active = false;            // begun, not finished
  std::vector<HookHandle> hooks;
};

void DistributedDataParallel::build_reduction() {
  reduction_ = std::make_unique<Reduction>();
  Reduction& r = *reduction_;
  r.buckets.resize(buckets_.size());
  r.bucket_of.resize(params_.size());
  r.slot_of.resize(params_.size());
  r.ready.assign(params_.size(), false);
  for (size_t b = 0; b < buckets_.size(); ++b) {
    int64_t offset = 0;
    for (size_t k : buckets_[b]) {
      r.bucket_of[k] = b;
      r.slot_of[k] = r.buckets[b].offsets.size();
      r.buckets[b].offsets.push_back(offset);
      offset += params_[k].second.numel();
    }
  }
  // Without overlap the hooks only note that a backward changed the gradients.
  for (size_t k = 0; k < params_.size(); ++k)
    r.hooks.push_back(params_[k].second.register_post_accumulate_grad_hook(
        [this, k](const Tensor&) { on_gradient_ready(k); }));
}

DistributedDataParallel::~DistributedDataParallel() {
  if (!reduction_) return;
  for (HookHandle& h : reduction_->hooks) h.remove();
}

void DistributedDataParallel::on_gradient_ready(size_t param) {
  if (no_sync_depth_ > 0 || !options_.overlap_with_backward) {
    averaged_ = false;
    return;
  }
  Reduction& r = *reduction_;
  if (!r.active) {
    refuse_unfinished_reduction();
    begin_reduction();
    autograd::queue_callback([this] { finish_reduction(/*during_backward=*/true); });
  }
  if (r.ready[param]) return;
  mark_ready(param);
  launch_ready_buckets();
  // MPI moves non-blocking collectives on only inside its calls: each gradient that arrives
  // gives the buckets under way a push.
  for (size_t b = 0; b < r.next_launch; ++b)
    if (r.buckets[b].pending) r.buckets[b].pending->test();
}

void DistributedDataParallel::begin_reduction() {
  Reduction& r = *reduction_;
  r.active = true;
  averaged_ = false;
  r.ready.assign(params_.size(), false);
  for (size_t b = 0; b < buckets_.size(); ++b) r.buckets[b].waiting = buckets_[b].size();
  r.next_launch = 0;
  launch_order_.clear();
}

// Stages the parameter's gradient (zeros for one without) in its bucket.
void DistributedDataParallel::mark_ready(size_t param) {
  Reduction& r = *reduction_;
  r.ready[param] = true;
  Reduction::Bucket& bucket = r.buckets[r.bucket_of[param]];
  if (group_->world_size() > 1) {
    NoGradGuard no_grad;
    const Tensor& p = params_[param].second;
    if (!bucket.staging.defined()) {
      int64_t numel = 0;
      for (size_t k : buckets_[r.bucket_of[param]]) numel += params_[k].second.numel();
      bucket.staging = empty({numel}, TensorOptions().dtype(p.dtype()));
    }
    Tensor dst = bucket.staging.narrow(0, bucket.offsets[r.slot_of[param]], p.numel()).view(p.shape());
    const Tensor g = p.grad();
    if (g.defined()) {
      dst.copy_(g);
    } else {
      dst.zero_();
    }
  }
  --bucket.waiting;
}

// In bucket order only: every rank must start the same collectives in the same order.
void DistributedDataParallel::launch_ready_buckets() {
  Reduction& r = *reduction_;
  while (r.next_launch < r.buckets.size() && r.buckets[r.next_launch].waiting == 0) {
    const size_t b = r.next_launch++;
    launch_order_.push_back(b);
    if (group_->world_size() == 1) continue;
    Reduction::Bucket& bucket = r.buckets[b];
    const std::string name = "all_reduce of gradient bucket " + std::to_string(b);
    bucket.pending =
        group_->transport_->start_all_reduce(bucket.staging.raw_data(), bucket.staging.numel(),
                                             bucket.staging.dtype(), detail::WireOp::Sum, name.c_str());
  }
}

// During backward the hooks started the buckets' non-blocking all-reduces; the rest start here,
// every bucket on every rank, gradients or not, so that the ranks stay in step even when the
// unused-parameter error ends this step. Otherwise (sync_gradients) nothing has moved yet: the
// ranks first agree on unused parameters, which is the deadline-bounded meeting after which
// MPI's blocking tuned all-reduce may carry the buckets (about twice as fast for large ones).
void DistributedDataParallel::finish_reduction(bool during_backward) {
  Reduction& r = *reduction_;
  r.active = false;  // whatever happens below, the next step begins afresh
  // The first parameter (by number, from 1) that went without a gradient in this step.
  int64_t missing = 0;
  for (size_t k = 0; k < params_.size(); ++k)
    if (!r.ready[k]) {
      if (missing == 0) missing = static_cast<int64_t>(k) + 1;
      mark_ready(k);
    }
  if (during_backward) {
    launch_ready_buckets();
    std::vector<std::unique_ptr<detail::PendingCollective>> pending;
    for (auto& bucket : r.buckets)
      if (bucket.pending) pending.push_back(std::move(bucket.pending));
    for (auto& p : pending) p->wait();
    if (!options_.allow_unused_parameters) check_all_parameters_used(missing);
  } else {
    check_all_parameters_used(missing);
    for (size_t b = 0; b < r.buckets.size(); ++b) {
      launch_order_.push_back(b);
      if (group_->world_size() == 1) continue;
      const Tensor& staging = r.buckets[b].staging;
      const std::string name = "all_reduce of gradient bucket " + std::to_string(b);
      group_->transport_->all_reduce(staging.raw_data(), staging.numel(), staging.dtype(),
                                     detail::WireOp::Sum, detail::Arrival::Confirmed, name.c_str());
    }
  }
  NoGradGuard no_grad;
  const bool alone = group_->world_size() == 1;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    Reduction::Bucket& bucket = r.buckets[b];
    if (!alone) bucket.staging.mul_(1.0 / static_cast<double>(group_->world_size()));
    for (size_t slot = 0; slot < buckets_[b].size(); ++slot) {
      const Tensor& p = params_[buckets_[b][slot]].second;
      Tensor g = p.grad();
      if (!g.defined()) {
        g = zeros_like(p);
        p.set_grad(g);
      }
      if (!alone) g.copy_(bucket.staging.narrow(0, bucket.offsets[slot], p.numel()).view(p.shape()));
    }
  }
  averaged_ = true;
}

// The ranks agree on the first parameter without a gradient, so that all of them raise
// together (unless allow_unused_parameters).
void DistributedDataParallel::check_all_parameters_used(int64_t missing) {
  const Tensor flag = from_vector(std::vector<int64_t>{missing});
  group_->all_reduce(flag, AllReduceOp::Max);
  const int64_t first = flag.item<int64_t>();
  if (first > 0 && !options_.allow_unused_parameters)
    raise<DistributedError>(
        "DistributedDataParallel: parameter ", params_[static_cast<size_t>(first - 1)].first,
        " got no gradient in this step on ", missing == first ? "this rank" : "another rank", " (rank ",
        group_->rank(), " of ", group_->world_size(),
        "); every rank must use every parameter, or set allow_unused_parameters");
}

// A backward that threw after some buckets started leaves them behind: the ranks may no longer
// agree on what comes next.
void DistributedDataParallel::refuse_unfinished_reduction() {
  Reduction& r = *reduction_;
  if (!r.active) return;
  r.active = false;
  for (auto& bucket : r.buckets) bucket.pending.reset();
  raise<DistributedError>(
      "DistributedDataParallel: the previous backward ended with an error before its "
      "gradients were averaged (rank ",
      group_->rank(), " of ", group_->world_size(),
      "); the ranks may no longer agree, so start again from a new process group");
}

void DistributedDataParallel::sync_gradients() {
  if (no_sync_depth_ > 0 || averaged_) return;
  refuse_unfinished_reduction();
  begin_reduction();
  for (size_t k = 0; k < params_.size(); ++k)
    if (params_[k].second.grad().defined()) mark_ready(k);
  finish_reduction(/*during_backward=*/false);
}

}  // namespace ember::nn::parallel
