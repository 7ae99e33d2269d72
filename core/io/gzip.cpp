// Reading raw or gzip files on demand (core/io/gzip.h).
#include "ember/core/io/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "ember/core/io/file_io.h"
#include "ember/core/io/io_error.h"

namespace ember::io {
namespace {

constexpr size_t kChunk = size_t{1} << 16;

}  // namespace

struct GzipOrRawFile::State {
  State(const std::string& path_in, const char* what_in) : path(path_in), what(what_in), file(path_in) {}
  ~State() {
    if (gzip) inflateEnd(&zs);
  }
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  // Refills in from the file when it is used up; false at the end of the file.
  bool fill_input() {
    if (in_pos < in.size()) return true;
    in.resize(kChunk);
    in_pos = 0;
    const int64_t n = file.read(in.data(), in.size());
    if (n < 0) raise_file_error(what, path, "read error (", file.why(), ")");
    in.resize(static_cast<size_t>(n));
    return n > 0;
  }

  size_t copy_into(uint8_t* dst, size_t n) {
    size_t done = 0;
    while (done < n && fill_input()) {
      const size_t k = std::min(n - done, in.size() - in_pos);
      std::memcpy(dst + done, in.data() + in_pos, k);
      in_pos += k;
      done += k;
    }
    return done;
  }

  size_t inflate_into(uint8_t* dst, size_t n) {
    size_t done = 0;
    while (done < n) {
      if (!fill_input()) {
        if (member_ended) break;  // the last member ended with the file: all read
        raise_file_error(what, path, "truncated gzip data (the compressed stream ends early)");
      }
      if (member_ended) {  // more bytes after a member: another member, or garbage
        if (in[in_pos] != 0x1f) garbage();
        inflateReset(&zs);
        member_ended = false;
      }
      zs.next_in = in.data() + in_pos;
      zs.avail_in = static_cast<uInt>(in.size() - in_pos);
      // avail_out is 32-bit: ask for at most 1 GiB per call.
      const size_t want = std::min(n - done, size_t{1} << 30);
      zs.next_out = dst + done;
      zs.avail_out = static_cast<uInt>(want);
      const int rc = inflate(&zs, Z_NO_FLUSH);
      const size_t used = in.size() - in_pos - zs.avail_in;
      in_pos += used;
      done += want - zs.avail_out;
      if (rc == Z_STREAM_END) {
        member_ended = true;
        continue;
      }
      if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR)
        raise_file_error(what, path, "corrupt gzip data (", zs.msg ? zs.msg : "invalid stream", ")");
      if (rc == Z_MEM_ERROR) raise_file_error(what, path, "out of memory while decompressing");
      if (rc != Z_OK && rc != Z_BUF_ERROR) raise_file_error(what, path, "zlib error ", rc);
      if (used == 0 && zs.avail_out == want) raise_file_error(what, path, "corrupt gzip data (no progress)");
    }
    return done;
  }

  [[noreturn]] void garbage() {
    uint64_t left = in.size() - in_pos;
    uint8_t scratch[4096];
    for (;;) {  // count what is left of the file, for the message
      const int64_t n = file.read(scratch, sizeof scratch);
      if (n <= 0) break;
      left += static_cast<uint64_t>(n);
    }
    raise_file_error(what, path, "corrupt gzip data (", left,
                     " bytes of garbage after the compressed stream)");
  }

  std::string path;
  const char* what;
  InputFile file;
  std::vector<uint8_t> in;
  size_t in_pos = 0;
  bool gzip = false, member_ended = false;
  z_stream zs{};
};

GzipOrRawFile::GzipOrRawFile(const std::string& path, const char* what) : s_(new State(path, what)) {
  using Problem = InputFile::Problem;
  switch (s_->file.problem()) {
    case Problem::None:
      break;
    case Problem::Directory:
      raise_file_error(what, path, "is a directory, not a file");
    case Problem::NotRegular:
      raise_file_error(what, path, s_->file.why());
    case Problem::Stat:
      raise_file_error(what, path, "cannot stat (", s_->file.why(), ")");
    case Problem::Open:
    case Problem::Read:
      raise_file_error(what, path, "cannot open (", s_->file.why(), ")");
  }
  s_->fill_input();
  s_->gzip = s_->in.size() >= 2 && s_->in[0] == 0x1f && s_->in[1] == 0x8b;
  if (s_->gzip && inflateInit2(&s_->zs, 15 + 16) != Z_OK) {
    s_->gzip = false;  // nothing for ~State to end
    raise_file_error(what, path, "cannot start zlib");
  }
}

GzipOrRawFile::~GzipOrRawFile() = default;

bool GzipOrRawFile::gzip() const { return s_->gzip; }

uint64_t GzipOrRawFile::file_size() const { return s_->file.size(); }

size_t GzipOrRawFile::read(void* dst, size_t n) {
  auto* out = static_cast<uint8_t*>(dst);
  return s_->gzip ? s_->inflate_into(out, n) : s_->copy_into(out, n);
}

}  // namespace ember::io
