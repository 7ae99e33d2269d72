#include "ember/nn/parallel/process_group.h"

#include <cstdint>
#include <cstdlib>
#include <string>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/index.h"
#include "ember/core/ops/transfer.h"
#include "ember/extend/check.h"
#include "ember/nn/parallel/digest.h"
#include "ember/nn/parallel/launcher.h"
#include "ember/nn/parallel/transport.h"

namespace ember::nn::parallel {
namespace {

std::unique_ptr<detail::Transport> world_transport() {
  const detail::LaunchInfo launch = detail::detect_launcher();
  if (!launch.launched) return detail::make_single_process_transport();
#ifdef EMBER_WITH_MPI
  return detail::make_mpi_transport();
#else
  // Running each of several launched processes alone would train them apart, silently.
  if (launch.world_size && *launch.world_size > 1)
    raise<NotCompiledError>("ProcessGroup: started by an MPI launcher as one of ", *launch.world_size,
                            " processes (", launch.variable,
                            "), but this Ember was built without MPI (configure with -DEMBER_MPI=ON)");
  return detail::make_single_process_transport();
#endif
}

std::chrono::milliseconds timeout_from_environment() {
  const char* value = std::getenv("EMBER_DISTRIBUTED_TIMEOUT");
  if (!value || !*value) return std::chrono::minutes(5);
  char* end = nullptr;
  const double seconds = std::strtod(value, &end);
  if (*end != '\0' || !(seconds > 0) || seconds > 1e9)
    raise<ValueError>("EMBER_DISTRIBUTED_TIMEOUT must be a positive number of seconds, got \"", value, "\"");
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000.0 + 0.5));
}

// The host memory a collective works on: t itself when it is a contiguous CPU tensor (MPI
// reads and writes it in place), otherwise a contiguous CPU copy to be written back.
Tensor host_buffer(const Tensor& t) {
  NoGradGuard no_grad;
  if (t.device() == Device::cpu() && t.is_contiguous()) return t;
  return contiguous(to(t, Device::cpu()));
}

// Puts the collective's result back into t (a no-op for a buffer that is t itself, apart
// from the version bump that tells autograd t changed).
void write_back(const Tensor& t, const Tensor& host) {
  if (host.is_same(t)) {
    mark_modified(t);
    return;
  }
  NoGradGuard no_grad;
  Tensor dst = t;
  copy_(dst, host);
}

}  // namespace

ProcessGroup& ProcessGroup::world() {
  static ProcessGroup group(world_transport());
  return group;
}

ProcessGroup::ProcessGroup(std::unique_ptr<detail::Transport> transport) : transport_(std::move(transport)) {
  transport_->timeout = timeout_from_environment();
}

ProcessGroup::~ProcessGroup() = default;

int ProcessGroup::rank() const { return transport_->rank(); }
int ProcessGroup::world_size() const { return transport_->size(); }
int ProcessGroup::local_rank() const { return transport_->local_rank(); }
std::chrono::milliseconds ProcessGroup::timeout() const { return transport_->timeout; }

void ProcessGroup::set_timeout(std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0)
    raise<ValueError>("ProcessGroup::set_timeout: the timeout must be positive, got ", timeout.count(),
                      " ms");
  transport_->timeout = timeout;
}

void ProcessGroup::check_same_signature(const char* collective, const Tensor& t) {
  if (world_size() == 1) return;
  // max(s) and max(-s) in one reduction: the ranks agree when max(s) == -max(-s).
  const int64_t s = detail::shape_digest({t});
  int64_t pair[2] = {s, -s};
  transport_->all_reduce(pair, 2, DType::Int64, detail::WireOp::Max, detail::Arrival::Unknown, collective);
  if (pair[0] != -pair[1])
    raise<ShapeError>("shape mismatch in ", collective,
                      ": the ranks passed different shapes or dtypes (rank ", rank(), " of ", world_size(),
                      " has ", shape_str(t.shape()), " ", dtype_name(t.dtype()), ")");
}

void ProcessGroup::all_reduce(const Tensor& t, AllReduceOp op) {
  check_defined("all_reduce", {{"tensor", t}});
  if (op == AllReduceOp::Avg) check_floating("all_reduce", {"tensor", t});
  if (world_size() == 1) return;
  // Staged before the shape check, which is also the ranks' deadline-bounded meeting: after it
  // nothing that can fail on one rank alone precedes the data's collective.
  Tensor host = host_buffer(t);
  check_same_signature("all_reduce", t);
  if (host.numel() > 0) {
    const detail::WireOp wire = op == AllReduceOp::Max ? detail::WireOp::Max : detail::WireOp::Sum;
    transport_->all_reduce(host.raw_data(), host.numel(), host.dtype(), wire, detail::Arrival::Confirmed,
                           "all_reduce");
    if (op == AllReduceOp::Avg) {
      NoGradGuard no_grad;
      host /= static_cast<double>(world_size());
    }
  }
  write_back(t, host);
}

void ProcessGroup::all_reduce(const std::vector<Tensor>& tensors, AllReduceOp op) {
  if (tensors.empty()) return;
  // The op front-ends' checks and messages (cat's): undefined tensors, then devices, then dtypes.
  check_defined("all_reduce", "tensors", tensors);
  check_same_device("all_reduce", "tensors", tensors);
  check_same_dtype("all_reduce", "tensors", tensors);
  if (op == AllReduceOp::Avg) check_floating("all_reduce", {"tensors[0]", tensors[0]});
  // Alone there is nothing to reduce, nor a reason to copy into a flat buffer and back.
  if (world_size() == 1) return;
  if (tensors.size() == 1) return all_reduce(tensors[0], op);
  // One flat buffer, one collective: fewer, larger messages are what MPI is fast at.
  std::vector<Tensor> flat;
  flat.reserve(tensors.size());
  for (const Tensor& t : tensors) flat.push_back(t.reshape({t.numel()}));
  Tensor buffer;
  {
    NoGradGuard no_grad;
    buffer = cat(flat, 0);
  }
  all_reduce(buffer, op);
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    Tensor dst = t;
    copy_(dst, buffer.narrow(0, offset, t.numel()).view(t.shape()));
    offset += t.numel();
  }
}

void ProcessGroup::broadcast(const Tensor& t, int root) {
  check_defined("broadcast", {{"tensor", t}});
  if (root < 0 || root >= world_size())
    raise<ValueError>("broadcast: root must be a rank of the world (0 to ", world_size() - 1, "), got ",
                      root);
  if (world_size() == 1) return;
  Tensor host = host_buffer(t);  // before the meeting, as in all_reduce
  check_same_signature("broadcast", t);
  const int64_t bytes = host.numel() * static_cast<int64_t>(itemsize(host.dtype()));
  if (bytes > 0) transport_->broadcast(host.raw_data(), bytes, root, detail::Arrival::Confirmed, "broadcast");
  if (rank() != root) write_back(t, host);
}

std::vector<Tensor> ProcessGroup::all_gather(const Tensor& t) {
  check_defined("all_gather", {{"tensor", t}});
  Tensor host = host_buffer(t);  // before the meeting, as in all_reduce, and so is out
  Shape shape = t.shape();
  shape.insert(shape.begin(), world_size());
  NoGradGuard no_grad;
  Tensor out = empty(shape, TensorOptions().dtype(t.dtype()));
  check_same_signature("all_gather", t);
  const int64_t bytes = host.numel() * static_cast<int64_t>(itemsize(host.dtype()));
  transport_->all_gather(host.raw_data(), out.raw_data(), bytes, detail::Arrival::Confirmed, "all_gather");
  std::vector<Tensor> parts;
  parts.reserve(static_cast<size_t>(world_size()));
  for (int r = 0; r < world_size(); ++r) parts.push_back(to(out.select(0, r), t.device()));
  return parts;
}

void ProcessGroup::barrier() { transport_->barrier("barrier"); }

}  // namespace ember::nn::parallel
