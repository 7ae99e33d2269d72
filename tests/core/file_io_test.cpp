// core/io/file_io.h, the public file helpers that nn's checkpoints and data's IDX reader share:
// what InputFile reports for each kind of path, and read_file / atomic_write round trips.
// Their callers' messages are tested with them (tests/nn/safetensors_test.cpp,
// tests/data/idx_errors_test.cpp).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ember/core/io/file_io.h"
#include "support/expect.h"

using namespace ember;
namespace fs = std::filesystem;

namespace {

class FileIo : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ember-io-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
};

TEST_F(FileIo, InputFileReadsARegularFile) {
  std::ofstream(file("a"), std::ios::binary) << "hello";
  io::InputFile f(file("a"));
  ASSERT_TRUE(f.is_open());
  EXPECT_EQ(f.problem(), io::InputFile::Problem::None);
  EXPECT_EQ(f.size(), 5u);
  char buf[3];
  EXPECT_EQ(f.read(buf, sizeof buf), 3);
  std::string rest;
  EXPECT_TRUE(f.read_all(rest));
  EXPECT_EQ(rest, "lo");
  EXPECT_EQ(f.read(buf, sizeof buf), 0);  // the end of the file
}

TEST_F(FileIo, InputFileSaysWhyItDidNotOpen) {
  using Problem = io::InputFile::Problem;
  io::InputFile missing(file("missing"));
  EXPECT_FALSE(missing.is_open());
  EXPECT_EQ(missing.problem(), Problem::Open);
  EXPECT_EQ(missing.why(), "No such file or directory");
  io::InputFile dir(dir_);
  EXPECT_EQ(dir.problem(), Problem::Directory);
  EXPECT_EQ(dir.why(), "is a directory");
  const std::string fifo = file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  io::InputFile pipe(fifo);  // refused at once, not waited on
  EXPECT_EQ(pipe.problem(), Problem::NotRegular);
  EXPECT_EQ(pipe.why(), "is not a regular file (a FIFO, socket or device)");
}

TEST_F(FileIo, AtomicWriteThenReadFile) {
  const std::string path = file("b");
  io::check_writable(path, "test");
  io::atomic_write(path, std::string("one\0two", 7), "test");
  EXPECT_EQ(io::read_file(path, "test"), std::string("one\0two", 7));
  io::atomic_write(path, "three", "test");  // replaces it
  EXPECT_EQ(io::read_file(path, "test"), "three");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);  // no temporary
  EXPECT_THROW_LINE(io::read_file(file("missing"), "test"), IOError,
                    "test: cannot open \"" + file("missing") + "\": No such file or directory");
  EXPECT_THROW_LINE(io::atomic_write(dir_, "x", "test"), IOError,
                    "test: \"" + dir_ + "\" exists and is not a regular file; refusing to replace it");
}

}  // namespace
