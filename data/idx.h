#pragma once
// The IDX format of MNIST and Fashion-MNIST: a big-endian header (magic 0x000008NN for
// unsigned bytes in NN dims, then NN 32-bit sizes) followed by the bytes, row-major.
#include <cstdint>
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::data {

/// Reads an IDX file of unsigned bytes, raw or gzip-compressed (told apart by content, not
/// by name), into a uint8 CPU tensor shaped by its header. IOError "read_idx: <path>:
/// <problem>" for a missing, unreadable or non-regular file (a FIFO is refused, not
/// waited on), corrupt or truncated gzip data, a wrong magic number, absurd dimensions, or
/// data shorter or longer than the header says. Reads no more than the header implies.
EMBER_API Tensor read_idx(const std::string& path);

namespace detail {
/// A validated IDX file: the header's shape and the values, a uint8 CPU tensor of it.
struct IdxFile {
  Shape shape;
  Tensor values;
  const uint8_t* payload() const { return static_cast<const uint8_t*>(values.raw_data()); }
};
/// Reads and validates path as read_idx does; with expected_magic != 0 the magic number
/// must equal it (0x00000803 for images, 0x00000801 for labels).
EMBER_API IdxFile read_idx_file(const std::string& path, uint32_t expected_magic = 0);
}  // namespace detail

}  // namespace ember::data
