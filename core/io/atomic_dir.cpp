#include "ember/core/io/file_io.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/io/file_mode.h"
#include "ember/core/io/io_error.h"

namespace ember::io {
namespace fs = std::filesystem;
namespace {

// Exchanges the two paths in one step; false where the file system or kernel cannot.
bool exchange(const std::string& a, const std::string& b) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
  if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0) return true;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return false;
#else
  (void)a, (void)b;
#endif
  errno = ENOTSUP;
  return false;
}

// Links (else copies) into tmp the entries of dir that tmp does not have, but temporaries
// (".tmp-" names: another save's, or a check's, which vanish), so that a vocab.txt beside
// the weights stays. Another save may swap dir meanwhile and remove the old one's entries: an
// entry that vanishes starts the carry again from the directory then in place.
void carry_other_files(const fs::path& dir, const std::string& tmp, const char* what) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::error_code ec;
    bool vanished = false;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      const fs::path into = fs::path(tmp) / name;
      if (name.find(".tmp-") != std::string::npos || fs::exists(fs::symlink_status(into))) continue;
      std::error_code copy_ec;
      fs::copy(it->path(), into, fs::copy_options::recursive | fs::copy_options::create_hard_links, copy_ec);
      if (copy_ec && copy_ec != std::errc::no_such_file_or_directory) {  // another device: copies
        fs::remove_all(into, copy_ec);
        fs::copy(it->path(), into, fs::copy_options::recursive, copy_ec);
      }
      if (copy_ec == std::errc::no_such_file_or_directory) {
        vanished = true;
        break;
      }
      if (copy_ec)
        raise<IOError>(what, ": cannot keep \"", it->path().string(),
                       "\" in the new directory: ", copy_ec.message());
    }
    if (!vanished && (!ec || ec == std::errc::no_such_file_or_directory)) return;
    if (ec && ec != std::errc::no_such_file_or_directory)
      raise<IOError>(what, ": cannot read the directory \"", dir.string(), "\": ", ec.message());
  }
  raise<IOError>(what, ": \"", dir.string(), "\" kept changing while its files were carried over");
}

// The mode the new directory gets: the old one's, else 0777 less the umask (as mkdir makes it).
mode_t directory_mode(const fs::path& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) return st.st_mode & 07777;
  return static_cast<mode_t>(0777) & ~current_umask();
}

// Removes a temporary, ignoring errors (it may hold what a failed write left).
void discard(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

}  // namespace

void atomic_write_dir(const std::string& dir_in, const std::function<void(const std::string& tmp)>& write,
                      const char* what) {
  std::error_code ec;
  // A symlinked dir is replaced where it points (the link stays a link).
  std::string dir = dir_in;
  if (fs::is_symlink(fs::symlink_status(dir_in, ec))) {
    dir = fs::canonical(dir_in, ec).string();
    if (ec) raise<IOError>(what, ": cannot follow the link \"", dir_in, "\": ", ec.message());
  }
  fs::path target = fs::path(dir).lexically_normal();
  if (!target.has_filename() && target.has_parent_path()) target = target.parent_path();  // "a/b/"
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec) raise<IOError>(what, ": cannot create the directory \"", parent.string(), "\": ", ec.message());
  if (fs::exists(target, ec) && !fs::is_directory(target, ec))
    raise<IOError>(what, ": \"", dir_in, "\" exists and is not a directory");

  std::string tmp = target.string() + ".tmp-" + std::to_string(::getpid()) + "-XXXXXX";
  if (!::mkdtemp(tmp.data())) raise_errno(what, "cannot create a directory beside", dir_in);
  // mkdtemp makes it 0700: it gets the old directory's mode, or the one mkdir gives.
  ::chmod(tmp.c_str(), directory_mode(target));
  try {
    write(tmp);
    carry_other_files(target, tmp, what);
    // Into place: a new dir by rename (another writer may make it first: then an exchange).
    for (int attempt = 0;; ++attempt) {
      if (!fs::exists(target)) {
        if (::rename(tmp.c_str(), target.c_str()) == 0) return;
        if (errno != EEXIST && errno != ENOTEMPTY)
          raise_errno(what, "cannot move the new directory to", dir_in);
        continue;
      }
      if (exchange(tmp, target.string())) break;  // tmp now holds the old directory
      if (errno != ENOTSUP || attempt > 8) raise_errno(what, "cannot replace", dir_in);
      // No exchange here: the old one aside, then the new one in (absent in between, never mixed).
      const std::string aside = tmp + ".old";
      if (::rename(target.c_str(), aside.c_str()) != 0) continue;  // another writer moved it
      if (::rename(tmp.c_str(), target.c_str()) != 0) {
        const int err = errno;
        ::rename(aside.c_str(), target.c_str());
        raise_path_error(what, "cannot move the new directory to", dir_in, std::strerror(err));
      }
      discard(aside);
      return;
    }
  } catch (...) {
    discard(tmp);
    throw;
  }
  discard(tmp);
}

}  // namespace ember::io
