// The IOError wording of core/io/io_error.h.
#include "ember/core/io/io_error.h"

#include <cerrno>
#include <cstring>

namespace ember::io {

void raise_path_error(const char* what, const char* problem, const std::string& path,
                      const std::string& why) {
  raise<IOError>(what, ": ", problem, " \"", path, "\": ", why);
}

void raise_errno(const char* what, const char* problem, const std::string& path) {
  raise_path_error(what, problem, path, std::strerror(errno));
}

}  // namespace ember::io
