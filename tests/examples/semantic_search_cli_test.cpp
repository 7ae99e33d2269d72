// The semantic_search example end to end on the tiny sentence-transformers directory of
// tests/parity/fixtures (random weights: the scores mean nothing, but a query equal to a
// document finds it at cosine 1): flag errors, building and reusing the index, queries from
// arguments and standard input. Runs the built binary; skipped in builds without examples.
#include <gtest/gtest.h>

#include <filesystem>

#include "ember/kernels/cpu/bf16_gemm.h"
#include "support/expect.h"
#include "support/run_example.h"
#include "support/temp_dir.h"

using ember::test::Outcome;
using ember::test::TempDir;

namespace {

class SemanticSearchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(ember::test::example_path("semantic_search")))
      GTEST_SKIP() << "the semantic_search example is not built (EMBER_BUILD_EXAMPLES=OFF)";
    docs_ = dir_.write("docs.txt",
                       "The cat sleeps in the sun.\n\nA chef slices vegetables.\r\nRain is expected.\n");
  }
  Outcome search(const std::string& args) {
    return ember::test::run_example(
        "semantic_search", "--device cpu --model " + ember::test::fixture_path("sentence_tiny") + " " + args);
  }
  TempDir dir_{"ember-search"};
  std::string docs_;
};

}  // namespace

TEST_F(SemanticSearchCli, BadFlagsAreOneLine) {
  Outcome r = ember::test::run_example("semantic_search", "--docs x");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "semantic_search: --model DIR is required (a sentence-transformers directory)\n");
  r = search("");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "semantic_search: give --docs FILE, --index FILE, or both\n");
  r = search("--docs " + docs_ + " --top-k 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "semantic_search: --top-k must be at least 1\n");
  r = search("--docs " + docs_ + " --colour red");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "semantic_search: unknown flag \"--colour\" (see --help)\n");
}

TEST_F(SemanticSearchCli, BuildsTheIndexThenAnswersFromItAlone) {
  const std::string index = dir_.path("index.safetensors");
  Outcome r = search("--docs " + docs_ + " --index " + index + " --top-k 2 'A chef slices vegetables.'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("32-dimensional embeddings, up to 24 tokens, on cpu"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("Embedded 3 documents in "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Saved the index to " + index), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("query: A chef slices vegetables.\n  1. 1.0000  A chef slices vegetables.\n  2. "),
            std::string::npos)
      << r.output;
  // The index alone, queries on standard input (empty lines skipped): no embedding of documents.
  r = search("--index " + index + " --top-k 1 < " +
             dir_.write("queries.txt", "Rain is expected.\n\nThe cat sleeps in the sun.\n"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Loaded the index of 3 documents from " + index), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Embedded"), std::string::npos) << r.output;
  EXPECT_NE(
      r.output.find(
          "query: Rain is expected.\n  1. 1.0000  Rain is expected.\n\nquery: The cat sleeps in the sun.\n"
          "  1. 1.0000  The cat sleeps in the sun.\n"),
      std::string::npos)
      << r.output;
  // The same documents again: the index is reused; other documents: rebuilt.
  r = search("--docs " + docs_ + " --index " + index + " 'Rain'");
  EXPECT_NE(r.output.find("Loaded the index of 3 documents"), std::string::npos) << r.output;
  r = search("--docs " + dir_.write("more.txt", "One.\nTwo.\nThree.\nFour.\n") + " --index " + index +
             " 'Four.'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("was made from other documents or by another model: rebuilding it"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("Embedded 4 documents"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  1. 1.0000  Four.\n"), std::string::npos) << r.output;
}

TEST_F(SemanticSearchCli, MissingOrForeignIndexIsOneLine) {
  Outcome r = search("--index " + dir_.path("none.safetensors") + " q");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, "semantic_search: the index \"" + dir_.path("none.safetensors") +
                          "\" does not exist; give --docs FILE to build it\n");
  const std::string other = dir_.write("other.safetensors", "not a safetensors file at all");
  r = search("--index " + other + " q");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("semantic_search: "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("terminate"), std::string::npos) << r.output;
  r = search("--docs " + dir_.write("empty.txt", "\n \n") + " q");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("semantic_search: \"" + dir_.path("empty.txt") +
                          "\" holds no document (no non-empty line)"),
            std::string::npos)
      << r.output;
}

// --mmap: the weights mapped from the model's file; the same answers as read ones.
TEST_F(SemanticSearchCli, MmapFlagGivesTheSameAnswers) {
  const Outcome read = search("--docs " + docs_ + " --top-k 3 'Rain is expected.'");
  const Outcome mapped = search("--mmap --docs " + docs_ + " --top-k 3 'Rain is expected.'");
  ASSERT_EQ(mapped.status, 0) << mapped.output;
  EXPECT_NE(mapped.output.find(", weights mapped\n"), std::string::npos) << mapped.output;
  const auto answers = [](const std::string& out) { return out.substr(out.find("query: ")); };
  EXPECT_EQ(answers(mapped.output), answers(read.output));
}

// --bf16: the products in bfloat16, a query equal to a document still its own best match (at a
// cosine that rounds to 1.0000 within bfloat16's error); a one-line error where no kernel runs.
TEST_F(SemanticSearchCli, Bf16FlagSearchesWithBfloat16Products) {
  const Outcome r = search("--bf16 --docs " + docs_ + " --top-k 1 'Rain is expected.'");
  if (!ember::cpu::bf16_kernel_available(ember::cpu::Bf16Kernel::Best)) {
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("pack_linear_weight: bfloat16 weights need"), std::string::npos) << r.output;
    return;
  }
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("on cpu, bfloat16 products\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("query: Rain is expected.\n  1. 1.0000  Rain is expected.\n"), std::string::npos)
      << r.output;
}
