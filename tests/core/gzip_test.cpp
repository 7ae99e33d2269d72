// core/io/gzip.h: a file's bytes, raw or gzip, read on demand in pieces of any size (data's IDX
// and text readers test their own messages through it).
#include "ember/core/io/gzip.h"

#include <gtest/gtest.h>

#include <string>

#include "support/expect.h"
#include "support/gzip.h"
#include "support/temp_dir.h"

using namespace ember;
using ember::test::gzip;

namespace {

// Everything read through f, in pieces of `piece` bytes.
std::string read_in_pieces(io::GzipOrRawFile& f, size_t piece) {
  std::string out, buf(piece, '\0');
  while (const size_t n = f.read(buf.data(), piece)) out.append(buf, 0, n);
  return out;
}

}  // namespace

TEST(GzipOrRawFile, RawAndGzipMembersReadAlikeInAnyPieces) {
  test::TempDir dir("ember-gzip");
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "line " + std::to_string(i) + "\n";
  const std::string raw = dir.write("raw", text);
  // Three members, the middle one empty: their texts one after the other.
  const std::string members =
      dir.write("members.gz", gzip(text.substr(0, 7)) + gzip(std::string()) + gzip(text.substr(7)));
  for (size_t piece : {size_t{1}, size_t{7}, size_t{4096}, size_t{1} << 20}) {
    io::GzipOrRawFile r(raw, "test");
    EXPECT_FALSE(r.gzip());
    EXPECT_EQ(r.file_size(), text.size());
    EXPECT_EQ(read_in_pieces(r, piece), text) << piece;
    io::GzipOrRawFile g(members, "test");
    EXPECT_TRUE(g.gzip());
    EXPECT_EQ(read_in_pieces(g, piece), text) << piece;
  }
  io::GzipOrRawFile empty(dir.write("empty", ""), "test");
  EXPECT_EQ(read_in_pieces(empty, 16), "");
}

TEST(GzipOrRawFile, ErrorsNameTheReaderAndTheFile) {
  test::TempDir dir("ember-gzip");
  EXPECT_THROW_LINE(io::GzipOrRawFile(dir.path(), "reader"), IOError,
                    "reader: " + dir.path() + ": is a directory, not a file");
  EXPECT_THROW_MSG(io::GzipOrRawFile(dir.path("missing"), "reader"), IOError,
                   "reader: " + dir.path("missing") + ": cannot open (");
  const std::string gz = gzip(std::string(1000, 'x'));
  // A file cut inside the stream: an error at the read that needs the missing bytes.
  io::GzipOrRawFile cut(dir.write("cut.gz", gz.substr(0, gz.size() - 5)), "reader");
  std::string buf(2000, '\0');
  EXPECT_THROW_LINE(
      cut.read(buf.data(), buf.size()), IOError,
      "reader: " + dir.path("cut.gz") + ": truncated gzip data (the compressed stream ends early)");
  io::GzipOrRawFile tail(dir.write("tail.gz", gz + "xyz"), "reader");
  EXPECT_EQ(tail.read(buf.data(), 1000), 1000u);  // the data itself reads: garbage shows past it
  EXPECT_THROW_LINE(tail.read(buf.data(), 1), IOError,
                    "reader: " + dir.path("tail.gz") +
                        ": corrupt gzip data (3 bytes of garbage after the compressed stream)");
}
