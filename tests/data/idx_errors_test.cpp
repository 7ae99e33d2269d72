// Malformed IDX files, written into a temporary folder: each must give an IOError that
// names the file and the problem, never a crash, a hang or a huge allocation.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/gzip.h"
#include "support/temp_dir.h"

using namespace ember;
using namespace ember::data;
using ember::test::gzip;
using ember::test::values_near;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<uint8_t>;

void put32(Bytes& b, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<uint8_t>(v >> s));
}

Bytes idx(uint32_t magic, const std::vector<uint32_t>& dims, size_t values, uint8_t first = 0) {
  Bytes b;
  put32(b, magic);
  for (uint32_t d : dims) put32(b, d);
  for (size_t i = 0; i < values; ++i) b.push_back(static_cast<uint8_t>((first + i) % 10));
  return b;
}

Bytes slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), {});
}

class IdxFiles : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const Bytes& bytes) {
    return tmp_.write(name, std::string(bytes.begin(), bytes.end()));
  }
  // A valid test split of n images of rows x cols and n labels.
  void write_split(uint32_t n, uint32_t labels, uint32_t rows = 4, uint32_t cols = 3) {
    write("t10k-images-idx3-ubyte", idx(0x803, {n, rows, cols}, size_t{n} * rows * cols));
    write("t10k-labels-idx1-ubyte", idx(0x801, {labels}, labels));
  }

  test::TempDir tmp_{"ember_idx"};
  const std::string dir_ = tmp_.path();
};

}  // namespace

TEST_F(IdxFiles, ValidFilesLoadRawOrGzipUnderEitherNaming) {
  write("train-images.idx3-ubyte.gz", gzip(idx(0x803, {2, 4, 3}, 24, 5)));
  write("train-labels.idx1-ubyte", idx(0x801, {2}, 2, 7));
  const MNIST d(dir_, true);
  EXPECT_EQ(d.images().shape(), (Shape{2, 1, 4, 3}));  // sizes from the header
  EXPECT_EQ(d.labels().to_vector<int64_t>(), (std::vector<int64_t>{7, 8}));
  std::vector<double> expected;
  for (int i = 0; i < 24; ++i) expected.push_back(((5 + i) % 10) / 255.0);
  EXPECT_TRUE(values_near(d.images(), expected, {2, 1, 4, 3}, 1e-7));
  // Two gzip members read as one stream, as gunzip does.
  const Bytes whole = idx(0x801, {3}, 3);
  Bytes two = gzip(Bytes(whole.begin(), whole.begin() + 6));
  const Bytes rest = gzip(Bytes(whole.begin() + 6, whole.end()));
  two.insert(two.end(), rest.begin(), rest.end());
  EXPECT_EQ(read_idx(write("two.gz", two)).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2}));
}

TEST_F(IdxFiles, MissingFilesNameThePath) {
  const std::string path = dir_ + "/nothing-here";
  EXPECT_THROW_LINE(read_idx(path), IOError,
                    "read_idx: " + path + ": cannot open (No such file or directory)");
  EXPECT_THROW_LINE(read_idx(dir_), IOError, "read_idx: " + dir_ + ": is a directory, not a file");
  write("t10k-images-idx3-ubyte", idx(0x803, {1, 2, 2}, 4));
  EXPECT_THROW_MSG(MNIST(dir_, false), IOError,
                   "MNIST: no t10k-labels file in " + dir_ + " (looked for t10k-labels-idx1-ubyte, ");
}

TEST_F(IdxFiles, WrongMagicNumbers) {
  const std::string swapped = write("t10k-labels-idx1-ubyte", idx(0x803, {2, 1, 1}, 2));
  write("t10k-images-idx3-ubyte", idx(0x803, {2, 1, 1}, 2));
  EXPECT_THROW_LINE(MNIST(dir_, false), IOError,
                    "read_idx: " + swapped + ": wrong magic number 0x00000803 (expected 0x00000801)");
  const std::string text = write("text", {'h', 'e', 'l', 'l', 'o', '\n'});
  EXPECT_THROW_LINE(read_idx(text), IOError,
                    "read_idx: " + text +
                        ": wrong magic number 0x68656C6C (expected 0x000008NN: "
                        "unsigned bytes in NN = 1..8 dims)");
  const std::string floats = write("floats", idx(0xD01, {1}, 4));  // IDX float32: not supported
  EXPECT_THROW_MSG(read_idx(floats), IOError, "read_idx: " + floats + ": wrong magic number 0x00000D01");
  const std::string no_dims = write("no_dims", idx(0x800, {}, 1));
  EXPECT_THROW_MSG(read_idx(no_dims), IOError, "read_idx: " + no_dims + ": wrong magic number 0x00000800");
}

TEST_F(IdxFiles, ShortHeaders) {
  const std::string tiny = write("tiny", {0, 0, 8});
  EXPECT_THROW_LINE(read_idx(tiny), IOError, "read_idx: " + tiny + ": too short for an IDX header (3 bytes)");
  const std::string empty_file = write("empty", {});
  EXPECT_THROW_LINE(read_idx(empty_file), IOError,
                    "read_idx: " + empty_file + ": too short for an IDX header (0 bytes)");
  const std::string cut = write("cut", {0, 0, 8, 3, 0, 0, 0, 5, 0, 0});
  EXPECT_THROW_LINE(read_idx(cut), IOError,
                    "read_idx: " + cut + ": truncated header (3 dims need 16 bytes, the file has 10)");
}

TEST_F(IdxFiles, AbsurdDimensionsAreRejectedBeforeAllocating) {
  const std::string huge = write("huge", idx(0x803, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, 100));
  EXPECT_THROW_LINE(
      read_idx(huge), IOError,
      "read_idx: " + huge + ": absurd dimensions [4294967295, 4294967295, 4294967295] in the header");
  const std::string big = write("big", idx(0x803, {0xFFFFFFFF, 28, 28}, 784));
  EXPECT_THROW_LINE(read_idx(big), IOError,
                    "read_idx: " + big + ": absurd dimensions [4294967295, 28, 28] in the header");
  const std::string zero = write("zero", idx(0x803, {5, 0, 28}, 0));
  EXPECT_THROW_LINE(read_idx(zero), IOError,
                    "read_idx: " + zero + ": absurd dimensions [5, 0, 28] in the header");
}

TEST_F(IdxFiles, DataLengthMustMatchTheHeader) {
  const std::string images = write("images", idx(0x803, {3, 28, 28}, 2 * 784 + 10));
  EXPECT_THROW_LINE(read_idx(images), IOError,
                    "read_idx: " + images +
                        ": truncated data: the header's [3, 28, 28] needs 2352 bytes of values, "
                        "the file has 1578");
  // The header counts more labels than the file holds.
  const std::string labels = write("labels", idx(0x801, {10}, 8));
  EXPECT_THROW_LINE(
      read_idx(labels), IOError,
      "read_idx: " + labels + ": truncated data: the header's [10] needs 10 bytes of values, the file has 8");
  const std::string longer = write("longer", idx(0x801, {10}, 12));
  EXPECT_THROW_LINE(
      read_idx(longer), IOError,
      "read_idx: " + longer + ": trailing data: the header's [10] needs 10 bytes of values, the file has 12");
  // The same checks run on decompressed data.
  const std::string gz = write("labels.gz", gzip(idx(0x801, {10}, 8)));
  EXPECT_THROW_LINE(
      read_idx(gz), IOError,
      "read_idx: " + gz + ": truncated data: the header's [10] needs 10 bytes of values, the file has 8");
}

TEST_F(IdxFiles, ImageAndLabelCountsMustAgree) {
  write_split(3, 4);
  EXPECT_THROW_LINE(MNIST(dir_, false), IOError,
                    "MNIST: " + dir_ + "/t10k-images-idx3-ubyte holds 3 images but " + dir_ +
                        "/t10k-labels-idx1-ubyte holds 4 labels");
}

TEST_F(IdxFiles, LabelsAboveNineAreRejected) {
  write("t10k-images-idx3-ubyte", idx(0x803, {3, 1, 1}, 3));
  Bytes labels = idx(0x801, {3}, 3);
  labels.back() = 200;
  const std::string path = write("t10k-labels-idx1-ubyte", labels);
  EXPECT_THROW_LINE(MNIST(dir_, false), IOError, "MNIST: " + path + ": label 200 at index 2 is outside 0..9");
}

TEST_F(IdxFiles, CorruptOrTruncatedGzip) {
  const Bytes good =
      slurp(std::string(EMBER_SOURCE_DIR) + "/examples/data/mnist-sample/t10k-images-idx3-ubyte.gz");
  ASSERT_GT(good.size(), 1000u);
  Bytes flipped = good;
  for (size_t i = 100; i < 140; ++i) flipped[i] ^= 0x5A;
  const std::string corrupt = write("corrupt.gz", flipped);
  EXPECT_THROW_MSG(read_idx(corrupt), IOError, "read_idx: " + corrupt + ": corrupt gzip data (");
  const std::string cut =
      write("cut.gz", Bytes(good.begin(), good.begin() + static_cast<long>(good.size() / 2)));
  EXPECT_THROW_LINE(read_idx(cut), IOError,
                    "read_idx: " + cut + ": truncated gzip data (the compressed stream ends early)");
  Bytes garbage = good;
  garbage.insert(garbage.end(), {1, 2, 3});
  const std::string tail = write("tail.gz", garbage);
  EXPECT_THROW_LINE(
      read_idx(tail), IOError,
      "read_idx: " + tail + ": corrupt gzip data (3 bytes of garbage after the compressed stream)");
  // A bad trailer (wrong CRC) is corruption too.
  Bytes crc = good;
  crc[crc.size() - 6] ^= 0xFF;
  const std::string bad_crc = write("crc.gz", crc);
  EXPECT_THROW_LINE(read_idx(bad_crc), IOError,
                    "read_idx: " + bad_crc + ": corrupt gzip data (incorrect data check)");
}

// Hostile IDX files found by the fuzzer and an outside tester.
TEST_F(IdxFiles, ZeroItemsWithHugeRowsIsAbsurd) {
  // 16 bytes: [0, 0xFFFFFFFF, 0xFFFFFFFF]; its strides overflowed int64.
  const std::string path = write("zero-items", idx(0x803, {0, 0xFFFFFFFF, 0xFFFFFFFF}, 0));
  EXPECT_THROW_LINE(read_idx(path), IOError,
                    "read_idx: " + path + ": absurd dimensions [0, 4294967295, 4294967295] in the header");
  const Tensor none = read_idx(write("no-items", idx(0x803, {0, 28, 28}, 0)));
  EXPECT_EQ(none.shape(), (Shape{0, 28, 28}));
  EXPECT_EQ(none.stride(0), 784);
}

TEST_F(IdxFiles, FifosAreRefusedNotWaitedOn) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW_LINE(read_idx(fifo), IOError,
                    "read_idx: " + fifo + ": is not a regular file (a FIFO, socket or device)");
  // Through a symlink too.
  const std::string link = dir_ + "/link";
  fs::create_symlink(fifo, link);
  EXPECT_THROW_MSG(read_idx(link), IOError, "read_idx: " + link + ": is not a regular file");
}

TEST_F(IdxFiles, GzipIsInflatedOnlyAsFarAsTheHeaderSays) {
  // 10 labels, then 64 MiB of zeros that compress to about 64 KiB: the reader stops one
  // byte past the 10 it needs instead of inflating everything first.
  Bytes bomb = idx(0x801, {10}, 10);
  bomb.resize(bomb.size() + (size_t{64} << 20), 0);
  const std::string path = write("bomb.gz", gzip(bomb));
  EXPECT_LT(fs::file_size(path), size_t{1} << 20);
  EXPECT_THROW_LINE(read_idx(path), IOError,
                    "read_idx: " + path +
                        ": trailing data: the header's [10] needs 10 bytes of values, the file has "
                        "at least 11");
  // A header that asks for more than the allocation limit fails before inflating anything.
  const std::string big = write("big.gz", gzip(idx(0x803, {1024, 1024, 1024}, 16)));
  set_allocation_limit(size_t{64} << 20);
  EXPECT_THROW_MSG(read_idx(big), OutOfMemoryError,
                   "allocation of 1073741824 bytes on cpu exceeds the limit of 67108864 bytes");
  set_allocation_limit(0);
  // A raw file that is too short fails before allocating what its header asks for.
  const std::string raw = write("raw", idx(0x803, {1024, 1024, 1024}, 16));
  EXPECT_THROW_LINE(read_idx(raw), IOError,
                    "read_idx: " + raw +
                        ": truncated data: the header's [1024, 1024, 1024] needs 1073741824 bytes "
                        "of values, the file has 16");
}

TEST_F(IdxFiles, GzipMembersAfterTheDataAreChecked) {
  // The data ends with the first member; a second member holding more bytes is trailing data.
  const Bytes whole = idx(0x801, {3}, 3);
  Bytes two = gzip(whole);
  const Bytes more = gzip(Bytes{1, 2});
  two.insert(two.end(), more.begin(), more.end());
  const std::string path = write("more.gz", two);
  EXPECT_THROW_MSG(read_idx(path), IOError,
                   "read_idx: " + path + ": trailing data: the header's [3] needs 3 bytes");
  // An empty member after the data is harmless.
  Bytes empty_member = gzip(whole);
  const Bytes nothing = gzip(Bytes{});
  empty_member.insert(empty_member.end(), nothing.begin(), nothing.end());
  EXPECT_EQ(read_idx(write("empty-member.gz", empty_member)).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2}));
}
