// The MPI transport: a collective whose ranks are not known to be present is a non-blocking MPI
// call completed by MPI_Test against a deadline, so a rank whose peer failed, exited or skipped
// the collective stops with a DistributedError instead of hanging. Once they are known to be
// there (Arrival::Confirmed, after ProcessGroup's shape check), the data moves through MPI's
// blocking collectives, whose tuned algorithms are about twice as fast for large buffers. A
// started all-reduce (start_all_reduce, DistributedDataParallel's buckets during backward) is
// non-blocking, moved on by MPI_Test whenever its owner tests it, and awaited against the
// deadline of its start. Only the standard C API (MPI-3) is used: Open MPI and MPICH both
// work. Errors come back as codes (MPI_ERRORS_RETURN), never as an abort.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/nn/parallel/transport.h"

namespace ember::nn::parallel::detail {
namespace {

using Clock = std::chrono::steady_clock;

// MPI counts are ints: larger buffers go in pieces of this many elements.
constexpr int64_t kMaxChunk = int64_t{1} << 30;

std::string mpi_error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(length));
}

// Booleans and bytes reduce as unsigned char; a boolean sum is a logical or, which is max
// over 0 and 1 (MPI_SUM is not defined for MPI_C_BOOL).
MPI_Datatype mpi_type(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return MPI_FLOAT;
    case DType::Float64:
      return MPI_DOUBLE;
    case DType::Int64:
      return MPI_INT64_T;
    case DType::Int32:
      return MPI_INT32_T;
    case DType::UInt8:
      return MPI_UNSIGNED_CHAR;
    case DType::Bool:
      return MPI_UNSIGNED_CHAR;
  }
  return MPI_BYTE;
}

MPI_Op mpi_op(WireOp op, DType dtype) {
  if (dtype == DType::Bool) return MPI_MAX;
  switch (op) {
    case WireOp::Sum:
      return MPI_SUM;
    case WireOp::Max:
      return MPI_MAX;
  }
  return MPI_SUM;
}

class MpiTransport final : public Transport {
 public:
  MpiTransport() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      // Collectives may come from any one thread at a time (a training loop and its helpers);
      // the DataLoader's worker never calls MPI.
      int provided = 0;
      const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
      if (rc != MPI_SUCCESS) raise<DistributedError>("init: MPI_Init_thread failed: ", mpi_error_string(rc));
      owns_mpi_ = true;
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }
    // Ember's own communicator, so its collectives never match a user's MPI calls.
    check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "init");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    check(MPI_Comm_rank(comm_, &rank_), "init");
    check(MPI_Comm_size(comm_, &size_), "init");
    MPI_Comm node = MPI_COMM_NULL;
    check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "init");
    check(MPI_Comm_rank(node, &local_rank_), "init");
    MPI_Comm_free(&node);
  }

  ~MpiTransport() override {
    // After a timeout a request is still pending and a peer may be gone: freeing the
    // communicator or finalising could then block forever, so a broken world is left as it is
    // (the launcher reports the process as failed).
    if (broken_) return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    MPI_Comm_free(&comm_);
    if (owns_mpi_) MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }

  void all_reduce(void* data, int64_t count, DType dtype, WireOp op, Arrival arrival,
                  const char* collective) override {
    const int64_t item = static_cast<int64_t>(itemsize(dtype));
    for (int64_t done = 0; done < count; done += kMaxChunk) {
      const int n = static_cast<int>(std::min(kMaxChunk, count - done));
      void* chunk = static_cast<char*>(data) + done * item;
      refuse_if_broken(collective);
      if (arrival == Arrival::Confirmed) {
        checked(MPI_Allreduce(MPI_IN_PLACE, chunk, n, mpi_type(dtype), mpi_op(op, dtype), comm_), collective);
        continue;
      }
      MPI_Request request = MPI_REQUEST_NULL;
      checked(MPI_Iallreduce(MPI_IN_PLACE, chunk, n, mpi_type(dtype), mpi_op(op, dtype), comm_, &request),
              collective);
      wait(request, collective);
    }
  }

  void broadcast(void* data, int64_t bytes, int root, Arrival arrival, const char* collective) override {
    for (int64_t done = 0; done < bytes; done += kMaxChunk) {
      const int n = static_cast<int>(std::min(kMaxChunk, bytes - done));
      void* chunk = static_cast<char*>(data) + done;
      refuse_if_broken(collective);
      if (arrival == Arrival::Confirmed) {
        checked(MPI_Bcast(chunk, n, MPI_BYTE, root, comm_), collective);
        continue;
      }
      MPI_Request request = MPI_REQUEST_NULL;
      checked(MPI_Ibcast(chunk, n, MPI_BYTE, root, comm_, &request), collective);
      wait(request, collective);
    }
  }

  void all_gather(const void* in, void* out, int64_t bytes, Arrival arrival,
                  const char* collective) override {
    if (bytes > INT_MAX)
      raise<ValueError>(collective, ": each rank's part must be below 2 GiB, got ", bytes, " bytes");
    const int n = static_cast<int>(bytes);
    refuse_if_broken(collective);
    if (arrival == Arrival::Confirmed) {
      checked(MPI_Allgather(in, n, MPI_BYTE, out, n, MPI_BYTE, comm_), collective);
      return;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    checked(MPI_Iallgather(in, n, MPI_BYTE, out, n, MPI_BYTE, comm_, &request), collective);
    wait(request, collective);
  }

  void barrier(const char* collective) override {
    refuse_if_broken(collective);
    MPI_Request request = MPI_REQUEST_NULL;
    checked(MPI_Ibarrier(comm_, &request), collective);
    wait(request, collective);
  }

  std::unique_ptr<PendingCollective> start_all_reduce(void* data, int64_t count, DType dtype, WireOp op,
                                                      const char* collective) override;

 private:
  friend class MpiPending;

  std::string who() const { return "rank " + std::to_string(rank_) + " of " + std::to_string(size_); }

  void check(int rc, const char* collective) const {
    if (rc != MPI_SUCCESS)
      raise<DistributedError>(collective, ": MPI failed on ", who(), ": ", mpi_error_string(rc));
  }

  // Called before every MPI call: after a timeout a request is still pending, and new
  // collectives would be matched against it.
  void refuse_if_broken(const char* collective) const {
    if (broken_)
      raise<DistributedError>(collective, ": ", who(),
                              " cannot run collectives any more: an earlier one failed");
  }

  // The return code of a collective call (blocking, or the start of a non-blocking one): a
  // failure breaks the group.
  void checked(int rc, const char* collective) {
    if (rc != MPI_SUCCESS) broken_ = true;
    check(rc, collective);
  }

  // Polls rather than blocks: that is what makes the deadline possible. Spinning first keeps
  // collectives fast (for 50 ms: under CPU contention a rank that sleeps sooner gives its core
  // away to other processes; all-reduce of 25M floats, load 3.6 on 2 cores: 0.81 of bare
  // MPI's bandwidth with 1 ms of spinning, 0.88 with 50 ms); then short sleeps leave the cores
  // to ranks that share them.
  void wait(MPI_Request& request, const char* collective) {
    wait(request, collective, Clock::now() + timeout);
  }

  void wait(MPI_Request& request, const char* collective, Clock::time_point deadline) {
    const Clock::time_point begin = Clock::now();
    for (unsigned polls = 0;; ++polls) {
      int done = 0;
      const int rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      checked(rc, collective);
      if (done) return;
      if (polls % 64 != 63) continue;
      const Clock::time_point now = Clock::now();
      if (now >= deadline) {
        broken_ = true;
        raise<DistributedError>(
            collective, ": ", who(), " timed out after ", std::chrono::duration<double>(timeout).count(),
            " s waiting for the other ranks; one of them failed, exited or did not call ", collective);
      }
      if (now - begin < std::chrono::milliseconds(50)) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
    }
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  bool owns_mpi_ = false;
  bool broken_ = false;
};

// A started all-reduce: one request per chunk, all completed by the deadline of its start.
class MpiPending final : public PendingCollective {
 public:
  MpiPending(MpiTransport& transport, std::string collective)
      : transport_(transport),
        collective_(std::move(collective)),
        deadline_(Clock::now() + transport.timeout) {}

  // MPI forbids freeing a pending collective's request: one left behind (the caller gave up
  // after an error) means the ranks no longer agree on what comes next.
  ~MpiPending() override {
    for (MPI_Request r : requests_)
      if (r != MPI_REQUEST_NULL) transport_.broken_ = true;
  }

  bool test() override {
    for (MPI_Request& r : requests_) {
      if (r == MPI_REQUEST_NULL) continue;
      int done = 0;
      transport_.checked(MPI_Test(&r, &done, MPI_STATUS_IGNORE), collective_.c_str());
      if (!done) return false;
    }
    return true;
  }

  void wait() override {
    for (MPI_Request& r : requests_)
      if (r != MPI_REQUEST_NULL) transport_.wait(r, collective_.c_str(), deadline_);
  }

  std::vector<MPI_Request> requests_;

 private:
  MpiTransport& transport_;
  std::string collective_;
  Clock::time_point deadline_;
};

std::unique_ptr<PendingCollective> MpiTransport::start_all_reduce(void* data, int64_t count, DType dtype,
                                                                  WireOp op, const char* collective) {
  auto pending = std::make_unique<MpiPending>(*this, collective);
  const int64_t item = static_cast<int64_t>(itemsize(dtype));
  for (int64_t done = 0; done < count; done += kMaxChunk) {
    const int n = static_cast<int>(std::min(kMaxChunk, count - done));
    refuse_if_broken(collective);
    MPI_Request request = MPI_REQUEST_NULL;
    checked(MPI_Iallreduce(MPI_IN_PLACE, static_cast<char*>(data) + done * item, n, mpi_type(dtype),
                           mpi_op(op, dtype), comm_, &request),
            collective);
    pending->requests_.push_back(request);
  }
  return pending;
}

}  // namespace

std::unique_ptr<Transport> make_mpi_transport() { return std::make_unique<MpiTransport>(); }

}  // namespace ember::nn::parallel::detail
