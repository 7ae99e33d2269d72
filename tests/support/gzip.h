#pragma once
// gzip-compressed bytes (one member, zlib's default level) for tests of the readers that
// inflate them. Bytes is std::string or std::vector<uint8_t>.
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace ember::test {

template <class Bytes>
Bytes gzip(const Bytes& raw) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  Bytes out(deflateBound(&zs, raw.size()), 0);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<typename Bytes::value_type*>(raw.data()));
  zs.avail_in = static_cast<uInt>(raw.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}
inline std::string gzip(const char* raw) { return gzip(std::string(raw)); }

}  // namespace ember::test
