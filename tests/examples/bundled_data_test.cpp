// examples/common/bundled_data.h: the examples, benchmarks and tests find the data bundled in
// examples/data from their own executable's folder (no path compiled in): data/NAME beside the
// binary first, then examples/data/NAME in its folder or one above it.
#include "../../examples/common/bundled_data.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/expect.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using namespace ember::examples;

namespace {

const std::string kSourceData = std::string(EMBER_SOURCE_DIR) + "/examples/data";

}  // namespace

TEST(BundledData, TheTestBinaryFindsTheSourceTreesFolders) {
  // build/tests/ember_tests: the build tree's link build/examples/data, or the source tree
  // above the build folder; either is examples/data itself.
  EXPECT_EQ(fs::canonical(reviews_dir()), fs::canonical(kSourceData + "/reviews"));
  EXPECT_EQ(fs::canonical(reviews_path()), fs::canonical(kSourceData + "/reviews/reviews.tsv.gz"));
  EXPECT_EQ(fs::canonical(reviews_vocab_path()), fs::canonical(kSourceData + "/reviews/vocab.txt"));
  EXPECT_EQ(fs::canonical(mnist_sample_dir()), fs::canonical(kSourceData + "/mnist-sample"));
}

TEST(BundledData, BesideTheBinaryFirstThenTheSourceTreeAbove) {
  const ember::test::TempDir tmp("ember-bundled");
  const std::string bin = tmp.path("tree/build/bin");
  fs::create_directories(bin);
  EXPECT_EQ(find_bundled_data("corpus", "probe.txt", bin), "");
  EXPECT_EQ(find_bundled_data("corpus", "probe.txt", ""), "");
  // A folder without the probe file does not count.
  fs::create_directories(tmp.path("tree/examples/data/corpus"));
  EXPECT_EQ(find_bundled_data("corpus", "probe.txt", bin), "");
  tmp.write("tree/examples/data/corpus/probe.txt", "x");
  EXPECT_EQ(find_bundled_data("corpus", "probe.txt", bin), tmp.path("tree/examples/data/corpus"));
  // examples/data nearer the binary wins over one further up.
  tmp.write("tree/build/examples/data/corpus/probe.txt", "x");
  EXPECT_EQ(find_bundled_data("corpus", "probe.txt", bin), tmp.path("tree/build/examples/data/corpus"));
  // data/NAME beside the binary wins over both.
  tmp.write("tree/build/bin/data/corpus/probe.txt", "x");
  EXPECT_EQ(find_bundled_data("corpus", "probe.txt", bin), bin + "/data/corpus");
  // Only beside the binary: data/NAME in a folder above it is not looked at.
  EXPECT_EQ(find_bundled_data("corpus", "probe.txt", tmp.path("tree/build/bin/sub")),
            tmp.path("tree/build/examples/data/corpus"));
}

TEST(BundledData, NotFoundSaysWhereItLookedAndWhatToPass) {
  const std::string expected =
      "the bundled no-such-corpus (examples/data/no-such-corpus) was not found: neither "
      "data/no-such-corpus beside the executable in " +
      executable_dir() +
      " nor examples/data/no-such-corpus in that folder or one above it holds probe.txt; name it with "
      "--data PATH";
  EXPECT_THROW_MSG(bundled_data_dir("no-such-corpus", "probe.txt", "name it with --data PATH"),
                   ember::IOError, expected);
}
