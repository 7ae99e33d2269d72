// Bert::from_pretrained's peak memory: about twice the weights (bounded at 2.5x; the process's
// own allocations add a few MiB). Decoding a safetensors file holds its bytes and its tensors at
// once; the model, made after the file is decoded, is the second copy at its moment. Made
// first, it was a third copy beside the other two: 3.1x here, and 268 MiB for
// all-MiniLM-L6-v2's 87 MiB, where ONNX Runtime peaks at 187 MiB. Measured in a forked child as
// the growth of VmHWM, the peak of its resident memory; skipped under sanitizers, whose shadow
// memory and quarantine of freed blocks change what the process holds.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "ember/ember.h"
#include "support/sanitized.h"
#include "support/temp_dir.h"

using namespace ember;
using nn::models::Bert;
using nn::models::BertConfig;

#ifndef EMBER_TEST_SANITIZED
namespace {

// VmHWM or VmRSS of this process, in bytes.
double status_bytes(const char* key) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(key, 0) == 0) return std::stod(line.substr(6)) * 1024;
  return -1;
}

}  // namespace
#endif

TEST(BertLoadMemory, FromPretrainedPeaksAtTwiceTheWeights) {
#ifdef EMBER_TEST_SANITIZED
  GTEST_SKIP() << "sanitizers change what the process holds";
#else
  test::TempDir root;
  const std::string dir = root.path("model");
  BertConfig c;  // 64 MiB of float32 weights: large beside what the process holds otherwise
  c.vocab_size = 30000, c.hidden_size = 256, c.num_hidden_layers = 4, c.num_attention_heads = 4;
  c.intermediate_size = 1024, c.max_position_embeddings = 128;
  double weights = 0;
  {
    const Bert model(c);
    for (const auto& [name, p] : model.named_parameters()) weights += 4.0 * static_cast<double>(p.numel());
    model.save_pretrained(dir);
  }
  ASSERT_GT(weights, 40e6);
  set_num_threads(1);  // a forked child has no pool workers to hand work to
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child's own peak: its resident memory now (inherited pages count once touched, and
    // the parent's are not touched here), then the load.
    const double before = status_bytes("VmRSS:");
    const auto model = Bert::from_pretrained(dir);
    const double growth = status_bytes("VmHWM:") - before;
    std::printf("from_pretrained: peak growth %.1f MiB for %.1f MiB of weights\n", growth / 1048576,
                weights / 1048576);
    std::fflush(stdout);
    ::_exit(model && growth > 0 && growth < 2.5 * weights ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "from_pretrained's peak exceeded 2.5x the weights (printed above)";
#endif
}
