// IDX reading: the header is read first and checked, then exactly the bytes it implies are
// read (or inflated, for gzip) straight into the tensor. Nothing beyond the header's size
// plus one byte (to tell trailing data) is ever produced, so a small file that inflates to
// gigabytes costs no more than its header asks for, and a header asking for more than the
// file can hold fails before allocating when the file is not compressed.
#include "ember/data/idx.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "ember/core/error.h"
#include "ember/core/io/file_io.h"
#include "ember/core/ops/factory.h"

namespace ember::data {
namespace {

constexpr uint8_t kUnsignedByte = 0x08;
constexpr uint32_t kMaxDims = 8;
// No real IDX file comes near this; a header beyond it is garbage, not a truncated file.
constexpr uint64_t kMaxPayload = uint64_t{1} << 40;
constexpr size_t kChunk = size_t{1} << 16;

template <class... Args>
[[noreturn]] void fail(const std::string& path, const Args&... args) {
  raise<IOError>("read_idx: ", path, ": ", args...);
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

uint32_t big_endian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// The bytes of an IDX file, raw or inflated, read on demand.
class Source {
 public:
  explicit Source(const std::string& path) : path_(path), file_(path) {
    // A FIFO or a device would block or never end: only regular files are read (io::InputFile
    // never blocks on opening one).
    using Problem = io::InputFile::Problem;
    switch (file_.problem()) {
      case Problem::None:
        break;
      case Problem::Directory:
        fail(path, "is a directory, not a file");
      case Problem::NotRegular:
        fail(path, file_.why());
      case Problem::Stat:
        fail(path, "cannot stat (", file_.why(), ")");
      case Problem::Open:
      case Problem::Read:
        fail(path, "cannot open (", file_.why(), ")");
    }
    fill_input();
    gzip_ = in_.size() >= 2 && in_[0] == 0x1f && in_[1] == 0x8b;
    if (gzip_ && inflateInit2(&zs_, 15 + 16) != Z_OK) fail(path, "cannot start zlib");
  }
  ~Source() {
    if (gzip_) inflateEnd(&zs_);
  }
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;

  bool gzip() const { return gzip_; }
  uint64_t file_size() const { return file_.size(); }

  /// Reads up to n bytes into dst; fewer only at the end of the data.
  size_t read(uint8_t* dst, size_t n) { return gzip_ ? inflate_into(dst, n) : copy_into(dst, n); }

 private:
  // Refills in_ from the file when it is used up; false at the end of the file.
  bool fill_input() {
    if (in_pos_ < in_.size()) return true;
    in_.resize(kChunk);
    in_pos_ = 0;
    const int64_t n = file_.read(in_.data(), in_.size());
    if (n < 0) fail(path_, "read error (", file_.why(), ")");
    in_.resize(static_cast<size_t>(n));
    return n > 0;
  }

  size_t copy_into(uint8_t* dst, size_t n) {
    size_t done = 0;
    while (done < n && fill_input()) {
      const size_t k = std::min(n - done, in_.size() - in_pos_);
      std::memcpy(dst + done, in_.data() + in_pos_, k);
      in_pos_ += k;
      done += k;
    }
    return done;
  }

  size_t inflate_into(uint8_t* dst, size_t n) {
    size_t done = 0;
    while (done < n) {
      if (!fill_input()) {
        if (member_ended_) break;  // the last member ended with the file: all read
        fail(path_, "truncated gzip data (the compressed stream ends early)");
      }
      if (member_ended_) {  // more bytes after a member: another member, or garbage
        if (in_[in_pos_] != 0x1f) garbage();
        inflateReset(&zs_);
        member_ended_ = false;
      }
      zs_.next_in = in_.data() + in_pos_;
      zs_.avail_in = static_cast<uInt>(in_.size() - in_pos_);
      // avail_out is 32-bit: ask for at most 1 GiB per call.
      const size_t want = std::min(n - done, size_t{1} << 30);
      zs_.next_out = dst + done;
      zs_.avail_out = static_cast<uInt>(want);
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      const size_t used = in_.size() - in_pos_ - zs_.avail_in;
      in_pos_ += used;
      done += want - zs_.avail_out;
      if (rc == Z_STREAM_END) {
        member_ended_ = true;
        continue;
      }
      if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR)
        fail(path_, "corrupt gzip data (", zs_.msg ? zs_.msg : "invalid stream", ")");
      if (rc == Z_MEM_ERROR) fail(path_, "out of memory while decompressing");
      if (rc != Z_OK && rc != Z_BUF_ERROR) fail(path_, "zlib error ", rc);
      if (used == 0 && zs_.avail_out == want) fail(path_, "corrupt gzip data (no progress)");
    }
    return done;
  }

  [[noreturn]] void garbage() {
    uint64_t left = in_.size() - in_pos_;
    uint8_t scratch[4096];
    for (;;) {  // count what is left of the file, for the message
      const int64_t n = file_.read(scratch, sizeof scratch);
      if (n <= 0) break;
      left += static_cast<uint64_t>(n);
    }
    fail(path_, "corrupt gzip data (", left, " bytes of garbage after the compressed stream)");
  }

  std::string path_;
  io::InputFile file_;
  std::vector<uint8_t> in_;
  size_t in_pos_ = 0;
  bool gzip_ = false, member_ended_ = false;
  z_stream zs_{};
};

}  // namespace

namespace detail {

IdxFile read_idx_file(const std::string& path, uint32_t expected_magic) {
  Source src(path);
  uint8_t header[4 + 4 * kMaxDims];
  const size_t got = src.read(header, 4);
  if (got < 4) fail(path, "too short for an IDX header (", got, " bytes)");
  const uint32_t magic = big_endian32(header);
  const uint32_t ndim = magic & 0xFF;
  if (expected_magic != 0 && magic != expected_magic)
    fail(path, "wrong magic number ", hex32(magic), " (expected ", hex32(expected_magic), ")");
  if ((magic >> 16) != 0 || ((magic >> 8) & 0xFF) != kUnsignedByte || ndim < 1 || ndim > kMaxDims)
    fail(path, "wrong magic number ", hex32(magic), " (expected 0x000008NN: unsigned bytes in NN = 1..",
         kMaxDims, " dims)");
  const size_t header_size = 4 + 4 * size_t{ndim};
  const size_t dims_got = src.read(header + 4, header_size - 4);
  if (dims_got < header_size - 4)
    fail(path, "truncated header (", ndim, " dims need ", header_size, " bytes, the file has ", 4 + dims_got,
         ")");
  IdxFile f;
  // Only the first dim (the item count) may be 0; the product of all dims, zeros left out,
  // must stay below kMaxPayload so that no stride of the tensor can overflow either.
  uint64_t count = 1, extent = 1;
  bool absurd = false;
  for (uint32_t d = 0; d < ndim; ++d) {
    const uint32_t size = big_endian32(header + 4 + 4 * d);
    f.shape.push_back(size);
    if (d > 0 && size == 0) absurd = true;
    if (size != 0 && extent > kMaxPayload / size) absurd = true;
    if (size != 0) extent *= size;
    count *= size;  // <= extent
  }
  if (absurd || extent > kMaxPayload) fail(path, "absurd dimensions ", shape_str(f.shape), " in the header");
  // A raw file's size is known: a header that asks for more fails before allocating.
  const uint64_t raw_have = src.file_size() - std::min<uint64_t>(src.file_size(), header_size);
  auto length_error = [&](uint64_t have, const char* more) {
    fail(path, have < count ? "truncated data" : "trailing data", ": the header's ", shape_str(f.shape),
         " needs ", count, " bytes of values, the file has ", more, have);
  };
  if (!src.gzip() && raw_have != count) length_error(raw_have, "");
  f.values = empty(f.shape, TensorOptions(kUInt8));
  uint8_t* dst = f.values.numel() ? static_cast<uint8_t*>(f.values.raw_data()) : nullptr;
  const size_t have = dst ? src.read(dst, static_cast<size_t>(count)) : 0;
  if (have < count) length_error(have, "");
  uint8_t extra = 0;
  if (src.read(&extra, 1) != 0) length_error(count + 1, "at least ");
  return f;
}

}  // namespace detail

Tensor read_idx(const std::string& path) { return detail::read_idx_file(path).values; }

}  // namespace ember::data
