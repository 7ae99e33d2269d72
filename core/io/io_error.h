#pragma once
// How core/io and the readers built on it (nn's checkpoints and configs, data's IDX and text
// readers) word an IOError, in one place so that the library's file errors read alike.
// Internal: not installed.
#include <string>

#include "ember/core/error.h"

namespace ember::io {

/// IOError "<what>: <path>: <details...>": a reader's complaint about the file it reads (what
/// names the reader: "read_idx", "load_reviews").
template <class... Args>
[[noreturn]] void raise_file_error(const char* what, const std::string& path, const Args&... details) {
  raise<IOError>(what, ": ", path, ": ", details...);
}

/// IOError "<what>: <problem> \"<path>\": <why>": an operation on path failed, why being the
/// system's word for it (strerror's text, InputFile::why()).
[[noreturn]] void raise_path_error(const char* what, const char* problem, const std::string& path,
                                   const std::string& why);

/// raise_path_error with errno's text: the system call just made on path failed.
[[noreturn]] void raise_errno(const char* what, const char* problem, const std::string& path);

}  // namespace ember::io
