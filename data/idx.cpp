// IDX reading: the whole file is read (and, when gzip, decompressed) once into memory, the
// header is checked against the real data length, and only then is a tensor allocated, so a
// corrupt header can never ask for a huge allocation.
#include "ember/data/idx.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"

namespace ember::data {
namespace {

constexpr uint8_t kUnsignedByte = 0x08;
constexpr uint32_t kMaxDims = 8;
// No real IDX file comes near this; a header beyond it is garbage, not a truncated file.
constexpr uint64_t kMaxPayload = uint64_t{1} << 40;

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

std::vector<uint8_t> read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open (", std::strerror(errno), ")");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(path, "cannot stat (", std::strerror(errno), ")");
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory, not a file");
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "read error (", std::strerror(errno), ")");
    if (n == 0) break;  // the file shrank while we read it
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

bool is_gzip(const std::vector<uint8_t>& bytes) {
  return bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

}  // namespace

namespace detail {

std::vector<uint8_t> gunzip(const std::vector<uint8_t>& in, const std::string& path) {
  // The trailer's ISIZE (size mod 2^32 of the last member) sizes the output in one go for
  // files like ours. A corrupt trailer must not make us reserve much more than the data can
  // hold: IDX images compress about 5:1, so cap the hint at 64:1 and grow past it if need be.
  uint64_t hint = 0;
  if (in.size() >= 18) {
    const uint8_t* t = in.data() + in.size() - 4;
    hint = uint64_t{t[0]} | (uint64_t{t[1]} << 8) | (uint64_t{t[2]} << 16) | (uint64_t{t[3]} << 24);
  }
  hint = std::min<uint64_t>(hint, uint64_t{in.size()} * 64 + 65536);
  std::vector<uint8_t> out(std::max<uint64_t>(hint, 4096));

  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK)
    fail(path, "cannot start zlib (", zs.msg ? zs.msg : "", ")");
  struct Ender {
    z_stream* zs;
    ~Ender() { inflateEnd(zs); }
  } ender{&zs};
  zs.next_in = const_cast<Bytef*>(in.data());
  size_t in_left = in.size();
  size_t produced = 0;
  for (;;) {
    if (produced == out.size()) out.resize(out.size() * 2);
    // avail_in/avail_out are 32-bit: feed at most 1 GiB per call.
    const size_t chunk_in = std::min<size_t>(in_left, size_t{1} << 30);
    const size_t chunk_out = std::min<size_t>(out.size() - produced, size_t{1} << 30);
    zs.avail_in = static_cast<uInt>(chunk_in);
    zs.next_out = out.data() + produced;
    zs.avail_out = static_cast<uInt>(chunk_out);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    in_left -= chunk_in - zs.avail_in;
    produced += chunk_out - zs.avail_out;
    if (rc == Z_STREAM_END) {
      if (in_left == 0) break;
      if (in_left >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {  // another member
        inflateReset(&zs);
        continue;
      }
      fail(path, "corrupt gzip data (", in_left, " bytes of garbage after the compressed stream)");
    }
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR)
      fail(path, "corrupt gzip data (", zs.msg ? zs.msg : "invalid stream", ")");
    if (rc == Z_MEM_ERROR) fail(path, "out of memory while decompressing");
    if (rc == Z_BUF_ERROR && in_left == 0)
      fail(path, "truncated gzip data (the compressed stream ends early)");
    if (rc != Z_OK && rc != Z_BUF_ERROR) fail(path, "zlib error ", rc);
  }
  out.resize(produced);
  return out;
}

IdxFile read_idx_file(const std::string& path, uint32_t expected_magic) {
  IdxFile f;
  f.bytes = read_file(path);
  if (is_gzip(f.bytes)) f.bytes = gunzip(f.bytes, path);
  const std::vector<uint8_t>& b = f.bytes;
  if (b.size() < 4) fail(path, "too short for an IDX header (", b.size(), " bytes)");
  const uint32_t magic = big_endian32(b.data());
  const uint32_t ndim = magic & 0xFF;
  if (expected_magic != 0 && magic != expected_magic)
    fail(path, "wrong magic number ", hex32(magic), " (expected ", hex32(expected_magic), ")");
  if ((magic >> 16) != 0 || ((magic >> 8) & 0xFF) != kUnsignedByte || ndim < 1 || ndim > kMaxDims)
    fail(path, "wrong magic number ", hex32(magic),
         " (expected 0x000008NN: unsigned bytes in NN = 1..", kMaxDims, " dims)");
  f.payload_offset = 4 + 4 * size_t{ndim};
  if (b.size() < f.payload_offset)
    fail(path, "truncated header (", ndim, " dims need ", f.payload_offset, " bytes, the file has ",
         b.size(), ")");
  uint64_t count = 1;
  bool absurd = false;
  for (uint32_t d = 0; d < ndim; ++d) {
    const uint32_t size = big_endian32(b.data() + 4 + 4 * d);
    f.shape.push_back(size);
    if (d > 0 && size == 0) absurd = true;
    if (size != 0 && count > kMaxPayload / size) absurd = true;
    count *= size;
  }
  if (absurd || count > kMaxPayload)
    fail(path, "absurd dimensions ", shape_str(f.shape), " in the header");
  const uint64_t have = b.size() - f.payload_offset;
  if (have != count)
    fail(path, have < count ? "truncated data" : "trailing data", ": the header's ",
         shape_str(f.shape), " needs ", count, " bytes of values, the file has ", have);
  return f;
}

}  // namespace detail

Tensor read_idx(const std::string& path) {
  const detail::IdxFile f = detail::read_idx_file(path);
  Tensor out = empty(f.shape, TensorOptions(kUInt8));
  if (out.numel()) std::memcpy(out.raw_data(), f.payload(), static_cast<size_t>(out.numel()));
  return out;
}

}  // namespace ember::data
