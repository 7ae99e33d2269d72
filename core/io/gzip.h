#pragma once
// A named file's bytes, raw or gzip-compressed, told apart by content (gzip's magic 1f 8b),
// read on demand: data's IDX and text readers use it. Nothing is inflated beyond what read()
// asks for, so a small file that inflates to gigabytes costs only what its reader takes.
// Internal: not installed (zlib is a private dependency of libember).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "ember/core/export.h"

namespace ember::io {

class EMBER_API GzipOrRawFile {
 public:
  /// Opens the regular file at path (io::InputFile: never blocks on a FIFO) and looks at its
  /// first bytes. Errors are IOError "<what>: <path>: ..." (io::raise_file_error): "is a
  /// directory, not a file", "is not a regular file (a FIFO, socket or device)", "cannot stat
  /// (<why>)", "cannot open (<why>)"; and from read(), "read error (<why>)", "truncated gzip
  /// data (the compressed stream ends early)", "corrupt gzip data (<zlib's word>)", "corrupt
  /// gzip data (N bytes of garbage after the compressed stream)", "out of memory while
  /// decompressing".
  GzipOrRawFile(const std::string& path, const char* what);
  ~GzipOrRawFile();
  GzipOrRawFile(const GzipOrRawFile&) = delete;
  GzipOrRawFile& operator=(const GzipOrRawFile&) = delete;

  /// Whether the file is gzip (every member is read, one after the other).
  bool gzip() const;
  /// The file's size in bytes (compressed, for gzip).
  uint64_t file_size() const;
  /// Reads up to n bytes (inflated, for gzip) into dst; fewer only at the end of the data.
  size_t read(void* dst, size_t n);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace ember::io
