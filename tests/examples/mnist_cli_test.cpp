// The mnist example checks its outputs before training, reports every write error
// with a non-zero exit, and refuses a test split of no images instead of printing "-nan %";
// it finds the bundled sample from its own folder, and a copy elsewhere asks for --data.
// Runs the built binary; skipped in builds without examples.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ember/core/cuda.h"
#include "support/run_example.h"

namespace fs = std::filesystem;

namespace {

using ember::test::Outcome;

// Runs the mnist binary on the CPU with args (prefix: shell commands before exec).
Outcome mnist(const std::string& args, const std::string& prefix = "") {
  return ember::test::run_example("mnist", "--device cpu " + args, prefix);
}

void write_idx(const std::string& path, uint32_t magic, const std::vector<uint32_t>& dims) {
  std::vector<uint8_t> b;
  auto put = [&](uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<uint8_t>(v >> s));
  };
  put(magic);
  size_t count = 1;
  for (uint32_t d : dims) put(d), count *= d;
  for (size_t i = 0; i < count; ++i) b.push_back(static_cast<uint8_t>(i % 10));
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(b.data()), static_cast<long>(b.size()));
}

class MnistCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(ember::test::example_path("mnist")))
      GTEST_SKIP() << "the mnist example is not built (EMBER_BUILD_EXAMPLES=OFF)";
    std::string tmpl = (fs::temp_directory_path() / "ember_mnist_cli_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  std::string dir_;
};

}  // namespace

TEST_F(MnistCli, SaveIntoAMissingDirectoryFailsBeforeTraining) {
  const std::string path = dir_ + "/missing/model.safetensors";
  const Outcome r = mnist("--epochs 1 --save " + path);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output,
            "mnist: save_file: cannot create a file next to \"" + path + "\": No such file or directory\n");
}

TEST_F(MnistCli, SaveOntoAFifoOrReadOnlyFileFailsBeforeTraining) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Outcome r = mnist("--epochs 1 --save " + fifo);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output,
            "mnist: save_file: \"" + fifo + "\" exists and is not a regular file; refusing to replace it\n");
  const std::string frozen = dir_ + "/frozen.safetensors";
  std::ofstream(frozen) << "old";
  ASSERT_EQ(::chmod(frozen.c_str(), 0444), 0);
  r = mnist("--epochs 1 --save " + frozen);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output.rfind("mnist: save_file: \"" + frozen + "\" is read-only", 0), 0u) << r.output;
}

TEST_F(MnistCli, MetricsThatCannotBeWrittenFailBeforeTraining) {
  const std::string path = dir_ + "/missing/metrics.csv";
  const Outcome r = mnist("--epochs 1 --metrics " + path);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output, "mnist: cannot write metrics file " + path + ": No such file or directory\n");
}

TEST_F(MnistCli, MetricsLostToAFailingDeviceAreAnError) {
  // A file size limit of 512 bytes makes a write fail (EFBIG) after a few metrics lines, as
  // a full disk would; SIGXFSZ is ignored so that write() returns the error.
  const std::string path = dir_ + "/metrics.csv";
  const Outcome r = mnist("--epochs 1 --log-interval 1 --metrics " + path, "trap '' XFSZ; ulimit -f 1; ");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("mnist: cannot write metrics file " + path + ": File too large\n"),
            std::string::npos)
      << r.output;
}

TEST_F(MnistCli, NoTestImagesIsAClearError) {
  write_idx(dir_ + "/train-images-idx3-ubyte", 0x803, {4, 28, 28});
  write_idx(dir_ + "/train-labels-idx1-ubyte", 0x801, {4});
  write_idx(dir_ + "/t10k-images-idx3-ubyte", 0x803, {0, 28, 28});
  write_idx(dir_ + "/t10k-labels-idx1-ubyte", 0x801, {0});
  const Outcome r = mnist("--epochs 1 --data " + dir_);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output, "mnist: the test split in " + dir_ +
                          " holds no images; there is nothing to measure accuracy on\n");
  EXPECT_EQ(r.output.find("nan"), std::string::npos);
}

TEST_F(MnistCli, ASuccessfulRunWritesItsOutputs) {
  write_idx(dir_ + "/train-images-idx3-ubyte", 0x803, {8, 28, 28});
  write_idx(dir_ + "/train-labels-idx1-ubyte", 0x801, {8});
  write_idx(dir_ + "/t10k-images-idx3-ubyte", 0x803, {4, 28, 28});
  write_idx(dir_ + "/t10k-labels-idx1-ubyte", 0x801, {4});
  const Outcome r = mnist("--epochs 1 --batch-size 4 --log-interval 1 --data " + dir_ + " --save " + dir_ +
                          "/m.safetensors --metrics " + dir_ + "/m.csv");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::is_regular_file(dir_ + "/m.safetensors"));
  std::ifstream csv(dir_ + "/m.csv");
  std::string header, line1, line2, line3;
  std::getline(csv, header);
  std::getline(csv, line1);
  std::getline(csv, line2);
  std::getline(csv, line3);
  EXPECT_EQ(header, "epoch,batch,loss,test_accuracy");
  EXPECT_EQ(line1.rfind("1,1,", 0), 0u) << line1;
  EXPECT_EQ(line2.rfind("1,2,", 0), 0u) << line2;
  EXPECT_EQ(line3.rfind("1,,,", 0), 0u) << line3;
}

TEST_F(MnistCli, LimitTrainsOnTheFirstImagesOnly) {
  write_idx(dir_ + "/train-images-idx3-ubyte", 0x803, {8, 28, 28});
  write_idx(dir_ + "/train-labels-idx1-ubyte", 0x801, {8});
  write_idx(dir_ + "/t10k-images-idx3-ubyte", 0x803, {4, 28, 28});
  write_idx(dir_ + "/t10k-labels-idx1-ubyte", 0x801, {4});
  const Outcome r = mnist("--epochs 1 --batch-size 2 --log-interval 1 --limit 3 --data " + dir_ +
                          " --metrics " + dir_ + "/m.csv");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(": 3 train / 4 test images"), std::string::npos) << r.output;
  std::ifstream csv(dir_ + "/m.csv");
  std::vector<std::string> lines;
  for (std::string line; std::getline(csv, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u);  // header, two steps (2 + 1 images), the accuracy
  EXPECT_EQ(lines[2].rfind("1,2,", 0), 0u) << lines[2];
  EXPECT_EQ(lines[3].rfind("1,,,", 0), 0u) << lines[3];

  const Outcome bad = mnist("--limit -1");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.output, "mnist: --limit expects a number, got \"-1\"\n");
}

// EMBER_REHEARSE_CUDA=1: `--device cuda:0` runs on a machine without a GPU, says it is
// rehearsed, and trains to the CPU run's losses (the CPU kernels, the same draws).
TEST_F(MnistCli, ARehearsedCudaRunGivesTheCpuRunsLosses) {
  if (ember::cuda::device_count() > 0) GTEST_SKIP() << "CUDA devices exist in this build: no rehearsal";
  write_idx(dir_ + "/train-images-idx3-ubyte", 0x803, {8, 28, 28});
  write_idx(dir_ + "/train-labels-idx1-ubyte", 0x801, {8});
  write_idx(dir_ + "/t10k-images-idx3-ubyte", 0x803, {4, 28, 28});
  write_idx(dir_ + "/t10k-labels-idx1-ubyte", 0x801, {4});
  const std::string args = "--epochs 1 --batch-size 4 --log-interval 1 --data " + dir_;
  const Outcome cpu = mnist(args + " --metrics " + dir_ + "/cpu.csv");
  ASSERT_EQ(cpu.status, 0) << cpu.output;
  const Outcome rehearsed = ember::test::run_example(
      "mnist", args + " --device cuda:0 --metrics " + dir_ + "/rehearsed.csv", "EMBER_REHEARSE_CUDA=1 ");
  ASSERT_EQ(rehearsed.status, 0) << rehearsed.output;
  EXPECT_NE(rehearsed.output.find("on cuda:0 (rehearsed on the CPU)"), std::string::npos) << rehearsed.output;
  const auto lines = [](const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  };
  EXPECT_EQ(lines(dir_ + "/rehearsed.csv"), lines(dir_ + "/cpu.csv"));
  EXPECT_EQ(lines(dir_ + "/cpu.csv").size(), 4u);
  // Without the rehearsal the same command has no device to run on.
  const Outcome none = ember::test::run_example("mnist", args + " --device cuda:0");
  EXPECT_NE(none.status, 0) << none.output;
}

// The sample is found from the binary's own folder, not from a path compiled in: a copy of the
// binary elsewhere finds data/mnist-sample beside it, and without one says what to pass.
TEST_F(MnistCli, ACopyFindsTheSampleBesideItOrAsksForData) {
  const std::string bin = fs::canonical(dir_).string() + "/bin";
  fs::create_directories(bin);
  fs::copy_file(ember::test::example_path("mnist"), bin + "/mnist");
  const Outcome lost = ember::test::run_binary(bin + "/mnist", "--device cpu --epochs 1");
  EXPECT_EQ(lost.status, 1) << lost.output;
  EXPECT_EQ(lost.output,
            "mnist: the bundled mnist-sample (examples/data/mnist-sample) was not found: neither "
            "data/mnist-sample beside the executable in " +
                bin +
                " nor examples/data/mnist-sample in that folder or one above it holds "
                "train-labels-idx1-ubyte.gz; name a folder with --data DIR\n");
  fs::create_directories(bin + "/data");
  fs::create_directory_symlink(std::string(EMBER_SOURCE_DIR) + "/examples/data/mnist-sample",
                               bin + "/data/mnist-sample");
  const Outcome found =
      ember::test::run_binary(bin + "/mnist", "--device cpu --epochs 1 --limit 64 --log-interval 100");
  EXPECT_EQ(found.status, 0) << found.output;
  EXPECT_NE(found.output.find(": 64 train / 2000 test images from " + bin + "/data/mnist-sample"),
            std::string::npos)
      << found.output;
}
