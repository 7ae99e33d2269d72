#pragma once
// Files named by callers, who may name anything: readers open only regular files and never
// block on a FIFO; writers replace a regular file atomically (a temporary file beside it,
// fsync, rename) and refuse everything else. Used by safetensors (nn's own header: not
// installed).
#include <string>

#include "ember/core/export.h"

namespace ember::detail {

/// Opens path read-only when it names a regular file (symlinks followed), without ever
/// blocking: returns the descriptor, or -1 with why set to "is a directory", "is not a
/// regular file (a FIFO, socket or device)" or strerror's text.
EMBER_API int open_regular_file(const std::string& path, std::string& why);

/// The file an atomic save of path replaces: path, or the regular file its symlinks lead
/// to (the link stays a link). IOError "<what>: \"<path>\" ..." when that exists and is not a
/// regular file, has no write bit in its mode (refused even for root, whom access() lets
/// write anything), or is a dangling symlink.
EMBER_API std::string save_target(const std::string& path, const char* what);

/// Removes our own stale temporaries beside target: files named "<target>.tmp-<pid>-XXXXXX"
/// whose process is gone and that are more than an hour old (what a killed save leaves).
EMBER_API void remove_stale_temporaries(const std::string& target);

/// Writes bytes to path atomically; a failure (IOError "<what>: ...") leaves any previous
/// file untouched and no temporary behind. A new file gets 0666 less the umask.
EMBER_API void atomic_write(const std::string& path, const std::string& bytes, const char* what);

/// Checks, before any long work, that atomic_write(path, ...) can succeed as far as can be
/// known: the target rules, and a temporary file created and removed beside it.
EMBER_API void check_writable(const std::string& path, const char* what);

}  // namespace ember::detail
