// Reading and atomic writing of files that callers name (core/io/file_io.h).
#include "ember/core/io/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>

#include "ember/core/error.h"
#include "ember/core/io/file_mode.h"
#include "ember/core/io/io_error.h"

namespace ember::io {
namespace {

constexpr time_t kStaleAfterSeconds = 3600;

std::string dir_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}
std::string base_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "<target>.tmp-<pid>-": the prefix of our temporaries for target, by this process.
std::string temp_prefix(const std::string& target) {
  return target + ".tmp-" + std::to_string(::getpid()) + "-";
}

// A temporary created next to target (mkstemp: O_EXCL, mode 0600); its name in tmp.
int make_temporary(const std::string& target, std::string& tmp) {
  tmp = temp_prefix(target) + "XXXXXX";
  return ::mkstemp(tmp.data());
}

bool write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// The pid in "<base>.tmp-<pid>-XXXXXX", or -1 when name has another form.
long temp_pid(const std::string& name, const std::string& base) {
  const std::string head = base + ".tmp-";
  if (name.compare(0, head.size(), head) != 0) return -1;
  size_t i = head.size();
  long pid = 0;
  const size_t digits = i;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && i - digits < 9)
    pid = pid * 10 + (name[i++] - '0');
  if (i == digits || i >= name.size() || name[i] != '-' || name.size() - i - 1 != 6) return -1;
  return pid;
}

// The file an atomic write of path replaces: path, or the regular file its symlinks lead to
// (the link stays a link). IOError when that exists and is not a regular file, has no write
// bit in its mode, or is a dangling symlink.
std::string save_target(const std::string& path, const char* what) {
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) != 0) {
    if (errno == ENOENT) return path;  // a new file
    raise_errno(what, "cannot inspect", path);
  }
  std::string target = path;
  struct stat st = lst;
  if (S_ISLNK(lst.st_mode)) {
    // Replace the file the link leads to, and keep the link.
    struct Freer {
      void operator()(char* p) const { std::free(p); }
    };
    std::unique_ptr<char, Freer> real(::realpath(path.c_str(), nullptr));
    if (!real) {
      if (errno == ENOENT) raise<IOError>(what, ": \"", path, "\" is a dangling symlink");
      raise_errno(what, "cannot resolve", path);
    }
    target = real.get();
    if (::stat(target.c_str(), &st) != 0) raise_errno(what, "cannot inspect", target);
  }
  if (!S_ISREG(st.st_mode))
    raise<IOError>(what, ": \"", path, "\" exists and is not a regular file; refusing to replace it");
  if ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0)
    raise<IOError>(what, ": \"", path, "\" is read-only (its mode has no write bit); refusing to replace it");
  return target;
}

// Removes our own stale temporaries beside target: files named "<target>.tmp-<pid>-XXXXXX"
// whose process is gone and that are more than an hour old (what a killed write leaves).
void remove_stale_temporaries(const std::string& target) {
  const std::string dir = dir_of(target), base = base_of(target);
  struct DirCloser {
    void operator()(DIR* d) const { ::closedir(d); }
  };
  std::unique_ptr<DIR, DirCloser> d(::opendir(dir.c_str()));
  if (!d) return;  // clean-up is best effort: the save itself reports real problems
  const time_t now = ::time(nullptr);
  while (const dirent* e = ::readdir(d.get())) {
    const std::string name = e->d_name;
    const long pid = temp_pid(name, base);
    if (pid <= 0) continue;
    // A live process (or one we may not signal, EPERM) may still be writing it.
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    const std::string full = dir + "/" + name;
    struct stat st {};
    if (::lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (now - st.st_mtime < kStaleAfterSeconds) continue;
    ::unlink(full.c_str());
  }
}

using Problem = InputFile::Problem;

// Opens path as InputFile describes: the descriptor and the file's size, or -1 with problem
// and why set.
int open_regular(const std::string& path, Problem& problem, std::string& why, uint64_t& size) {
  auto fail = [&](Problem p) {
    problem = p;
    why = std::strerror(errno);
    return -1;
  };
  auto irregular = [&](const struct stat& st) {
    if (S_ISREG(st.st_mode)) return false;
    problem = S_ISDIR(st.st_mode) ? Problem::Directory : Problem::NotRegular;
    why = S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file (a FIFO, socket or device)";
    return true;
  };
  // open() of a FIFO waits for a writer: look first, then open without blocking and look
  // again at what was opened, in case the path changed in between.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return fail(Problem::Open);
  if (irregular(st)) return -1;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(Problem::Open);
  if (::fstat(fd, &st) != 0 || irregular(st)) {
    if (problem == Problem::None) fail(Problem::Stat);
    ::close(fd);
    return -1;
  }
  size = static_cast<uint64_t>(st.st_size);
  return fd;
}

}  // namespace

mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

InputFile::InputFile(const std::string& path) { fd_ = open_regular(path, problem_, why_, size_); }

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

int64_t InputFile::read(void* dst, size_t n) {
  for (;;) {
    const ssize_t got = ::read(fd_, dst, n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      problem_ = Problem::Read;
      why_ = std::strerror(errno);
      return -1;
    }
    return static_cast<int64_t>(got);
  }
}

bool InputFile::read_all(std::string& out) {
  char chunk[1 << 16];
  for (;;) {
    const int64_t n = read(chunk, sizeof chunk);
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(chunk, static_cast<size_t>(n));
  }
}

std::string read_file(const std::string& path, const char* what) {
  InputFile file(path);
  if (!file.is_open()) raise_path_error(what, "cannot open", path, file.why());
  std::string bytes;
  if (!file.read_all(bytes)) raise_path_error(what, "reading failed for", path, file.why());
  return bytes;
}

void atomic_write(const std::string& path, const std::string& bytes, const char* what) {
  const std::string target = save_target(path, what);
  remove_stale_temporaries(target);
  std::string tmp;
  const int fd = make_temporary(target, tmp);
  if (fd < 0) raise_errno(what, "cannot create a temporary file next to", path);
  // mkstemp creates the file 0600; the file gets the mode any new file would (0666 less
  // the umask), as it would without the temporary file.
  (void)::fchmod(fd, static_cast<mode_t>(0666) & ~current_umask());
  auto abandon = [&](const char* problem, bool close_fd) {
    const int saved = errno;
    if (close_fd) ::close(fd);
    ::unlink(tmp.c_str());
    errno = saved;
    raise_errno(what, problem, path);
  };
  if (!write_all(fd, bytes)) abandon("writing failed for", true);
  if (::fsync(fd) != 0) abandon("fsync failed for", true);
  if (::close(fd) != 0) abandon("closing failed for", false);
  if (::rename(tmp.c_str(), target.c_str()) != 0) abandon("cannot replace", false);
  // Make the rename itself durable; a directory that cannot be synced is not an error.
  const int dfd = ::open(dir_of(target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

void check_replaceable(const std::string& path, const char* what) { (void)save_target(path, what); }

void check_writable(const std::string& path, const char* what) {
  const std::string target = save_target(path, what);
  std::string tmp;
  const int fd = make_temporary(target, tmp);
  if (fd < 0) raise_errno(what, "cannot create a file next to", path);
  ::close(fd);
  ::unlink(tmp.c_str());
}

}  // namespace ember::io
