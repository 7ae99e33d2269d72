#pragma once
// Files named by callers, who may name anything (a directory, a FIFO, a device, a dangling
// symlink): readers open only regular files and never block on a FIFO; writers replace a
// regular file atomically (a temporary file beside it, fsync, rename) and refuse everything
// else. Used by nn's checkpoints (safetensors) and data's IDX reader; POSIX only.
//
// read_file, atomic_write and check_writable throw IOError "<what>: ...", naming the path (what
// names the caller: "load_file", "save_file"). InputFile reports instead of throwing, so that a
// reader words its own errors.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "ember/core/export.h"

namespace ember::io {

/// A regular file open for reading (read-only, close-on-exec), closed by the destructor.
class EMBER_API InputFile {
 public:
  /// Why the file is not open, or why the last read failed.
  enum class Problem {
    None,
    Open,        // the path could not be looked at or opened: why() is strerror's text
    Stat,        // the opened file could not be looked at: why() is strerror's text
    Directory,   // why() is "is a directory"
    NotRegular,  // why() is "is not a regular file (a FIFO, socket or device)"
    Read,        // read() failed: why() is strerror's text
  };

  /// Opens path when it names a regular file (symlinks followed), without ever blocking: the
  /// path is looked at first (open() of a FIFO waits for a writer), then opened without
  /// blocking, and the opened file is looked at again in case the path changed in between.
  /// On failure is_open() is false, and problem() and why() say what failed.
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  bool is_open() const { return fd_ >= 0; }
  Problem problem() const { return problem_; }
  const std::string& why() const { return why_; }
  /// The file's size in bytes when it was opened.
  uint64_t size() const { return size_; }
  /// The open file descriptor (-1 when not open), still owned by this object.
  int fd() const { return fd_; }

  /// Reads up to n bytes into dst (retrying when a signal interrupts): how many were read, 0 at
  /// the end of the file, or -1 with problem() Read and why() set.
  int64_t read(void* dst, size_t n);
  /// Appends the rest of the file to out: true, or false with problem() Read and why() set.
  bool read_all(std::string& out);

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
  Problem problem_ = Problem::None;
  std::string why_;
};

/// The whole of the regular file at path. IOError "<what>: cannot open \"<path>\": <why>" with
/// InputFile's why(), or "<what>: reading failed for \"<path>\": <strerror>".
EMBER_API std::string read_file(const std::string& path, const char* what);

/// A regular file's bytes mapped into memory copy-on-write (MAP_PRIVATE, readable and
/// writable): pages are read from the file when first touched, a write copies the page it
/// touches, and the file never changes. Tensors that read it in place share it (nn::map_file).
/// The file must not be changed in place while it is mapped: a read would see the change, or
/// get SIGBUS past a new end; replacing it by rename (atomic_write) is safe, the mapping keeping
/// the old file.
class EMBER_API MappedFile {
 public:
  /// Maps the regular file at path (read_file's checks and IOError messages; an empty file maps
  /// to no bytes).
  static std::shared_ptr<MappedFile> open(const std::string& path, const char* what);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  char* data() const { return data_; }
  size_t size() const { return size_; }

  /// Gives back to the system the pages wholly inside [p, p + n), when that range lies in a live
  /// mapping: pages no write has copied are dropped and read from the file again if touched
  /// (MADV_PAGEOUT); copied ones keep their values (the system may move them to swap). For
  /// values that live elsewhere too (a packed weight).
  /// Whether the range was in a mapping and the system took the advice.
  static bool release_pages(const void* p, size_t n);

 private:
  MappedFile(char* data, size_t size) : data_(data), size_(size) {}
  char* data_;
  size_t size_;
};

/// Writes bytes to path atomically: a temporary file "<target>.tmp-<pid>-XXXXXX" beside the
/// target, fsync, rename. The target is path, or the regular file its symlinks lead to (the
/// link stays a link). A failure (IOError "<what>: ...") leaves any previous file untouched and
/// no temporary behind. Refused with IOError "<what>: \"<path>\" ...": a path that exists and is
/// not a regular file, has no write bit in its mode (even for root, whom access() lets write
/// anything), or is a dangling symlink. A new file gets 0666 less the umask. Temporaries of the
/// same target that a killed write left (their process gone, over an hour old) are removed.
EMBER_API void atomic_write(const std::string& path, const std::string& bytes, const char* what);

/// Checks, before any long work, that atomic_write(path, ...) can succeed as far as can be
/// known: the target rules, and a temporary file created and removed beside it.
EMBER_API void check_writable(const std::string& path, const char* what);

/// The target rules of atomic_write alone, creating nothing: for a file of a directory that
/// atomic_write_dir replaces as a whole, where a probe file could land in a directory another
/// save is swapping out and keep it from being removed.
EMBER_API void check_replaceable(const std::string& path, const char* what);

// A directory of files replaced as a whole (a pretrained model's config.json and weights,
// core/io/atomic_dir.cpp): readers, and other writers on any thread or process, see the old
// complete directory or the new complete one, never a mix of the two. The swap is one step
// where the file system has renameat2's RENAME_EXCHANGE (Linux: ext4, xfs, btrfs, tmpfs,
// overlayfs), else two renames, between which the directory is briefly absent (never mixed).
/// Makes dir anew: write(tmp) fills a fresh sibling "<dir>.tmp-<pid>-XXXXXX"; the files of the
/// old dir that write did not make are then hard-linked (else copied) into it, so that a
/// vocab.txt beside the weights stays; then the sibling takes dir's place in one step and the
/// old one is removed. dir may be missing (it is created; its parent must exist or is made).
/// A failure of write (its exception is rethrown) or of the swap (IOError "<what>: ...") leaves
/// dir as it was and no temporary behind; a process killed meanwhile leaves dir complete (old
/// or new) and at most a temporary sibling. A dir that is a symlink is replaced where it points.
/// The new dir gets the old one's mode (a first one 0777 less the umask, as mkdir gives).
EMBER_API void atomic_write_dir(const std::string& dir,
                                const std::function<void(const std::string& tmp)>& write, const char* what);

}  // namespace ember::io
