#pragma once
// The process's umask, read without changing it (core/io/file_io.cpp). umask() can only be read
// by setting it: between umask(0) and restoring it, a file another thread creates gets mode
// 0666, so the value comes from /proc/self/status ("Umask:", Linux 4.7 and later) and only
// where that is missing from the two calls. Internal: not installed.
#include <sys/types.h>

namespace ember::io {

mode_t current_umask();

}  // namespace ember::io
