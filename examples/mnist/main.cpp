// The tutorial CNN on MNIST, in C++: `mnist --device auto` trains on the GPU when there is
// one and on the CPU otherwise, and prints the loss, the test accuracy after each epoch and
// the throughput. See flags.cpp for the options.
//
// Data-parallel under an MPI launcher: `mpirun -np 2 mnist` trains one model on two ranks, each
// on its shard of every epoch (DistributedSampler) with --batch-size split among them, so the
// global batch stays the same; gradients are averaged by DistributedDataParallel. Only rank 0
// prints, writes metrics and plots and saves the checkpoint. A rank that fails exits non-zero,
// and the launcher stops the others.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>

#include "../common/bundled_data.h"
#include "../common/console.h"
#include "../common/metrics_csv.h"
#include "../common/svg_plot.h"
#include "ember/ember.h"
#include "ember/nn/parallel/parallel.h"
#include "flags.h"

namespace {
using namespace ember;
using examples::first_line;
using examples::MnistFlags;
using examples::ProgressBar;
using examples::resolve_device;

int run(const MnistFlags& f) {
  nn::parallel::ProcessGroup& world = nn::parallel::ProcessGroup::world();
  const int ranks = world.world_size();
  const bool lead = world.rank() == 0;  // the rank that reports
  set_num_threads(f.threads);
  const Device device = resolve_device(f.device);
  manual_seed(f.seed);
  const std::string root = f.data.empty() ? examples::mnist_sample_dir() : f.data;
  const data::Normalize normalize(data::MNIST::kMean, data::MNIST::kStd);
  // Outputs are checked before training: a checkpoint that cannot be written after an hour
  // of training is an hour lost.
  if (lead && !f.save.empty()) nn::check_writable(f.save);
  examples::MetricsCsv metrics(lead ? f.metrics : std::string());
  examples::Points loss_curve, accuracy_curve;
  const std::string plot = lead ? f.plot : std::string();
  // Written now (empty) so an unwritable path fails before training, then after each epoch.
  if (!plot.empty()) examples::write_training_svg(plot, loss_curve, accuracy_curve);
  auto train_set = std::make_shared<data::MNIST>(root, true, normalize);
  auto test_set = std::make_shared<data::MNIST>(root, false, normalize);
  // An accuracy over no images would be 0 / 0.
  if (test_set->size() == 0)
    throw IOError("the test split in " + root + " holds no images; there is nothing to measure accuracy on");

  data::DataLoaderOptions train_opts;
  // The global batch is --batch-size: each rank takes its share of it.
  train_opts.batch_size = static_cast<size_t>(std::max(1, f.batch_size / ranks));
  if (f.limit > 0 && ranks > 1)
    throw ValueError("--limit trains one process (the ranks would shard a subset)");
  if (f.limit > 0) {
    // The first images (the files are in no class order), shuffled each epoch like the rest.
    std::vector<int64_t> first(std::min<size_t>(static_cast<size_t>(f.limit), train_set->size()));
    std::iota(first.begin(), first.end(), int64_t{0});
    train_opts.sampler = std::make_shared<data::SubsetRandomSampler>(std::move(first), f.seed);
  } else if (ranks == 1) {
    train_opts.shuffle = true;
    train_opts.seed = f.seed;
  } else {
    train_opts.sampler = std::make_shared<data::DistributedSampler>(ranks, world.rank(), true, f.seed);
  }
  train_opts.device = device;
  data::DataLoader train_loader(train_set, train_opts);
  // Images an epoch trains on, over all ranks.
  const size_t train_images = f.limit > 0 ? train_opts.sampler->size(train_set->size()) : train_set->size();
  data::DataLoaderOptions test_opts;
  test_opts.batch_size = 1000;
  test_opts.device = device;
  data::DataLoader test_loader(test_set, test_opts);

  auto model = std::make_shared<nn::models::TutorialNet>();
  model->to(device);
  // Alone, a world of one: DistributedDataParallel then changes nothing.
  nn::parallel::DistributedDataParallel ddp(model, world);
  nn::SGDOptions sgd;
  sgd.lr = f.lr;
  sgd.momentum = f.momentum;
  nn::SGD optimizer(model->parameters(), sgd);
  nn::CrossEntropyLoss criterion;
  // Open MPI hands rank 0 a terminal even when mpirun's own output goes to a log.
  ProgressBar bar(ranks == 1 && isatty(STDOUT_FILENO));

  // An emulated or rehearsed GPU says so: its speed says nothing about a GPU's.
  const char* note = cuda::device_note(device);
  if (lead)
    std::printf("Training the tutorial CNN on %s%s: %zu train / %zu test images from %s, %d thread%s\n",
                device.str().c_str(), note, train_images, test_set->size(), root.c_str(), f.threads,
                f.threads == 1 ? "" : "s");
  if (lead && ranks > 1)
    std::printf("Data-parallel on %d ranks: %zu images per rank per step (global batch %zu)\n", ranks,
                train_opts.batch_size, train_opts.batch_size * static_cast<size_t>(ranks));
  double accuracy = 0;
  for (int epoch = 1; epoch <= f.epochs; ++epoch) {
    model->train();
    const auto t0 = std::chrono::steady_clock::now();
    Tensor running;  // summed on the device; read only at log intervals
    size_t batch_index = 0, in_interval = 0;
    for (data::Batch& batch : train_loader) {
      optimizer.zero_grad();
      Tensor loss = criterion(ddp(batch.data), batch.target);
      loss.backward();
      ddp.sync_gradients();
      optimizer.step();
      {
        NoGradGuard no_grad;
        running = running.defined() ? running + loss.detach() : loss.detach();
      }
      ++batch_index;
      ++in_interval;
      if (batch_index % static_cast<size_t>(f.log_interval) == 0) {
        const double mean_loss =
            nn::parallel::mean_over_ranks(running.item<double>() / static_cast<double>(in_interval), world);
        bar.clear();
        if (lead) std::printf("[%d, %5zu] loss: %.3f\n", epoch, batch_index, mean_loss);
        metrics.loss(epoch, batch_index, mean_loss);
        loss_curve.emplace_back(
            epoch - 1 + static_cast<double>(batch_index) / static_cast<double>(train_loader.size()),
            mean_loss);
        running = Tensor();
        in_interval = 0;
      }
      bar.show(epoch, batch_index, train_loader.size());
    }
    if (running.defined()) running.item<double>();  // finish the epoch's device work
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bar.clear();

    model->eval();
    int64_t correct = 0;
    {
      NoGradGuard no_grad;
      for (data::Batch& batch : test_loader)
        correct += (argmax(model->forward(batch.data), 1) == batch.target).sum().item<int64_t>();
    }
    const auto total = static_cast<int64_t>(test_set->size());
    accuracy = 100.0 * static_cast<double>(correct) / static_cast<double>(total);
    if (lead)
      std::printf("Accuracy on test set: %.0f %% [%lld/%lld]\n", accuracy, static_cast<long long>(correct),
                  static_cast<long long>(total));
    if (lead)
      std::printf("Epoch %d: %.2f s, %.0f images/s\n", epoch, seconds,
                  static_cast<double>(train_images) / seconds);
    metrics.accuracy(epoch, accuracy);
    accuracy_curve.emplace_back(epoch, accuracy);
    if (!plot.empty()) examples::write_training_svg(plot, loss_curve, accuracy_curve);
  }
  metrics.close();
  if (lead && !f.save.empty()) {
    nn::save(*model, f.save);
    std::printf("Saved the model to %s\n", f.save.c_str());
  }
  if (lead && f.require_accuracy >= 0 && accuracy < f.require_accuracy) {
    std::fprintf(stderr, "mnist: accuracy %.2f %% is below the required %.2f %%\n", accuracy,
                 f.require_accuracy);
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MnistFlags flags;
  try {
    flags = ember::examples::parse_flags(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "mnist: %s\n", e.what());
    return 2;
  }
  if (flags.help) {
    std::fputs(ember::examples::usage(), stdout);
    return 0;
  }
  int rc = 0;
  try {
    rc = run(flags);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "mnist: %s\n", first_line(e.what()).c_str());
    return 1;
  }
  // The report itself is an output: a failed write to stdout is an error, not exit 0.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "mnist: writing the report to stdout failed: %s\n", std::strerror(errno));
    return 1;
  }
  return rc;
}
