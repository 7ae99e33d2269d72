// Files mapped copy-on-write, and the giving back of their pages (core/io/file_io.h).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <set>
#include <utility>

#include "ember/core/error.h"
#include "ember/core/io/file_io.h"
#include "ember/core/io/io_error.h"

namespace ember::io {
namespace {

// The live mappings' address ranges: release_pages gives back pages only inside one of them,
// so an address that is not a mapping's (an ordinary tensor's) is never advised.
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::set<std::pair<uintptr_t, uintptr_t>>& registry() {
  static std::set<std::pair<uintptr_t, uintptr_t>> ranges;
  return ranges;
}

uintptr_t page_size() {
  static const uintptr_t size = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path, const char* what) {
  InputFile file(path);
  if (!file.is_open()) raise_path_error(what, "cannot open", path, file.why());
  if (file.size() > static_cast<uint64_t>(SIZE_MAX))
    raise<IOError>(what, ": \"", path, "\" is too large to map (", file.size(), " bytes)");
  const size_t size = static_cast<size_t>(file.size());
  if (size == 0) return std::shared_ptr<MappedFile>(new MappedFile(nullptr, 0));
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, file.fd(), 0);
  if (p == MAP_FAILED) raise_errno(what, "cannot map", path);
  std::shared_ptr<MappedFile> mapped(new MappedFile(static_cast<char*>(p), size));
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().emplace(reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + size);
  return mapped;  // the descriptor closes; the mapping keeps the file
}

MappedFile::~MappedFile() {
  if (!data_) return;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry().erase({reinterpret_cast<uintptr_t>(data_), reinterpret_cast<uintptr_t>(data_) + size_});
  }
  ::munmap(data_, size_);
}

bool MappedFile::release_pages(const void* p, size_t n) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p), end = begin + n;
  if (n == 0 || end < begin) return false;
  // Whole pages only: the pages at either end may hold a neighbour's values, which stay.
  const uintptr_t first = (begin + page_size() - 1) / page_size() * page_size();
  const uintptr_t last = end / page_size() * page_size();
  if (first >= last) return false;
  // Advised under the lock, so that the mapping cannot be unmapped (and the range reused by
  // another allocation, whose pages MADV_PAGEOUT would push to swap) in between.
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().upper_bound({begin, UINTPTR_MAX});
  if (it == registry().begin()) return false;
  --it;
  if (begin < it->first || end > it->second) return false;
#ifdef MADV_PAGEOUT
  return ::madvise(reinterpret_cast<void*>(first), last - first, MADV_PAGEOUT) == 0;
#else
  return false;  // a C library without MADV_PAGEOUT (Linux before 5.4): the pages stay
#endif
}

}  // namespace ember::io
