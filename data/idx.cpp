// IDX reading: the header is read first and checked, then exactly the bytes it implies are
// read (or inflated, for gzip) straight into the tensor. Nothing beyond the header's size
// plus one byte (to tell trailing data) is ever produced, so a small file that inflates to
// gigabytes costs no more than its header asks for, and a header asking for more than the
// file can hold fails before allocating when the file is not compressed.
#include "ember/data/idx.h"

#include <algorithm>
#include <cstdio>

#include "ember/core/error.h"
#include "ember/core/io/gzip.h"
#include "ember/core/io/io_error.h"
#include "ember/core/ops/factory.h"

namespace ember::data {
namespace {

constexpr uint8_t kUnsignedByte = 0x08;
constexpr uint32_t kMaxDims = 8;
// No real IDX file comes near this; a header beyond it is garbage, not a truncated file.
constexpr uint64_t kMaxPayload = uint64_t{1} << 40;

constexpr const char* kWhat = "read_idx";  // the name its errors start with

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

uint32_t big_endian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

}  // namespace

namespace detail {

IdxFile read_idx_file(const std::string& path, uint32_t expected_magic) {
  io::GzipOrRawFile src(path, kWhat);
  uint8_t header[4 + 4 * kMaxDims];
  const size_t got = src.read(header, 4);
  if (got < 4) io::raise_file_error(kWhat, path, "too short for an IDX header (", got, " bytes)");
  const uint32_t magic = big_endian32(header);
  const uint32_t ndim = magic & 0xFF;
  if (expected_magic != 0 && magic != expected_magic)
    io::raise_file_error(kWhat, path, "wrong magic number ", hex32(magic), " (expected ",
                         hex32(expected_magic), ")");
  if ((magic >> 16) != 0 || ((magic >> 8) & 0xFF) != kUnsignedByte || ndim < 1 || ndim > kMaxDims)
    io::raise_file_error(kWhat, path, "wrong magic number ", hex32(magic),
                         " (expected 0x000008NN: unsigned bytes in NN = 1..", kMaxDims, " dims)");
  const size_t header_size = 4 + 4 * size_t{ndim};
  const size_t dims_got = src.read(header + 4, header_size - 4);
  if (dims_got < header_size - 4)
    io::raise_file_error(kWhat, path, "truncated header (", ndim, " dims need ", header_size,
                         " bytes, the file has ", 4 + dims_got, ")");
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
  if (absurd || extent > kMaxPayload)
    io::raise_file_error(kWhat, path, "absurd dimensions ", shape_str(f.shape), " in the header");
  // A raw file's size is known: a header that asks for more fails before allocating.
  const uint64_t raw_have = src.file_size() - std::min<uint64_t>(src.file_size(), header_size);
  auto length_error = [&](uint64_t have, const char* more) {
    io::raise_file_error(kWhat, path, have < count ? "truncated data" : "trailing data", ": the header's ",
                         shape_str(f.shape), " needs ", count, " bytes of values, the file has ", more, have);
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
