// ember_bench_distributed: run under mpirun (`mpirun -np 2 build/bench/ember_bench_distributed`;
// alone it is a world of one). Rows:
//   all_reduce/ember/<floats>, all_reduce/mpi/<floats>: a sum over the ranks of a float32
//     buffer through ProcessGroup::all_reduce and through a bare MPI_Allreduce of the same
//     bytes; 8,490 floats (the tutorial net's gradients: latency) and 25M floats (bandwidth,
//     bytes_per_second = buffer bytes / time);
//   ddp_step/ranks:<n>: one SGD step of the tutorial net with DistributedDataParallel, the
//     global batch of 64 split among the ranks; items_per_second is global images per second.
//   ddp_mlp/<mode>/ranks:<n>: one SGD step of a 784-2048-2048-2048-2048-10 MLP (14.2M floats
//     of gradients, 3 buckets of the default 25 MiB), global batch 64: mode overlap averages
//     during backward (the default), after_backward averages after it (overlap off,
//     sync_gradients), local communicates nothing (no_sync). Of the communication that
//     after_backward exposes (after_backward - local), overlap hides
//     (after_backward - overlap) / (after_backward - local).
// Every rank must run the same iterations of the same collectives, so each row has a fixed
// iteration count (Google Benchmark would otherwise pick one per rank) and only rank 0 reports.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <memory>
#include <string>
#include <utility>

#include "ember/ember.h"
#include "ember/nn/parallel/parallel.h"

namespace {
using namespace ember;
using nn::parallel::ProcessGroup;

void BM_AllReduceEmber(benchmark::State& state, int64_t floats) {
  ProcessGroup& world = ProcessGroup::world();
  Tensor buffer = ones({floats});
  world.barrier();
  for (auto _ : state) world.all_reduce(buffer, nn::parallel::AllReduceOp::Sum);
  state.SetBytesProcessed(state.iterations() * floats * 4);
}

void BM_AllReduceMpi(benchmark::State& state, int64_t floats) {
  ProcessGroup& world = ProcessGroup::world();  // initialises MPI when launched
  Tensor buffer = ones({floats});
  world.barrier();
  for (auto _ : state) {
    if (world.world_size() > 1)
      MPI_Allreduce(MPI_IN_PLACE, buffer.raw_data(), static_cast<int>(floats), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
  }
  state.SetBytesProcessed(state.iterations() * floats * 4);
}

void BM_DdpStep(benchmark::State& state) {
  ProcessGroup& world = ProcessGroup::world();
  manual_seed(0);
  auto model = std::make_shared<nn::models::TutorialNet>();
  nn::parallel::DistributedDataParallel ddp(model, world);
  nn::SGDOptions o;
  o.lr = 0.01;
  o.momentum = 0.5;
  nn::SGD optimizer(model->parameters(), o);
  const int64_t batch = 64 / world.world_size();
  Tensor x = randn({batch, 1, 28, 28});
  Tensor y = randint(0, 10, {batch});
  world.barrier();
  for (auto _ : state) {
    optimizer.zero_grad();
    cross_entropy(ddp(x), y).backward();
    ddp.sync_gradients();
    optimizer.step();
  }
  state.counters["items_per_second"] =
      benchmark::Counter(static_cast<double>(64 * state.iterations()), benchmark::Counter::kIsRate);
}

enum class Averaging { Overlap, AfterBackward, Local };

void BM_DdpMlp(benchmark::State& state, Averaging averaging) {
  ProcessGroup& world = ProcessGroup::world();
  manual_seed(0);
  auto model = std::make_shared<nn::Sequential>();
  int64_t width = 784;
  for (int i = 0; i < 4; ++i) {
    model->push_back(std::make_shared<nn::Linear>(width, 2048));
    model->push_back(std::make_shared<nn::ReLU>());
    width = 2048;
  }
  model->push_back(std::make_shared<nn::Linear>(width, 10));
  nn::parallel::DistributedDataParallelOptions options;
  options.overlap_with_backward = averaging == Averaging::Overlap;
  nn::parallel::DistributedDataParallel ddp(model, world, options);
  nn::SGDOptions o;
  o.lr = 0.001;
  nn::SGD optimizer(model->parameters(), o);
  const int64_t batch = 64 / world.world_size();
  Tensor x = randn({batch, 784});
  Tensor y = randint(0, 10, {batch});
  world.barrier();
  for (auto _ : state) {
    optimizer.zero_grad();
    if (averaging == Averaging::Local) {
      auto local = ddp.no_sync();
      cross_entropy(ddp(x), y).backward();
    } else {
      cross_entropy(ddp(x), y).backward();
      ddp.sync_gradients();  // nothing left to do after an overlapped backward
    }
    optimizer.step();
  }
  world.barrier();  // the ranks leave together: the next row starts on all of them at once
  state.counters["items_per_second"] =
      benchmark::Counter(static_cast<double>(64 * state.iterations()), benchmark::Counter::kIsRate);
}

// Ranks other than 0 run every row but print nothing.
class SilentReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

int main(int argc, char** argv) {
  ProcessGroup& world = ProcessGroup::world();
  for (int64_t floats : {int64_t{8490}, int64_t{25000000}}) {
    const int64_t iterations = floats < 100000 ? 2000 : 10;
    const std::string n = std::to_string(floats);
    benchmark::RegisterBenchmark(("all_reduce/ember/" + n).c_str(), BM_AllReduceEmber, floats)
        ->Iterations(iterations)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("all_reduce/mpi/" + n).c_str(), BM_AllReduceMpi, floats)
        ->Iterations(iterations)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark(("ddp_step/ranks:" + std::to_string(world.world_size())).c_str(), BM_DdpStep)
      ->Iterations(50)
      ->Unit(benchmark::kMillisecond);
  const std::string ranks = "/ranks:" + std::to_string(world.world_size());
  for (auto [name, mode] : {std::pair<const char*, Averaging>{"overlap", Averaging::Overlap},
                            {"after_backward", Averaging::AfterBackward},
                            {"local", Averaging::Local}})
    benchmark::RegisterBenchmark((std::string("ddp_mlp/") + name + ranks).c_str(), BM_DdpMlp, mode)
        ->Iterations(10)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (world.rank() == 0) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    SilentReporter silent;
    benchmark::RunSpecifiedBenchmarks(&silent);
  }
  benchmark::Shutdown();
  return 0;
}
