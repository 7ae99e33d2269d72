#pragma once
// A fresh directory under the system's temporary folder, removed with everything in it when the
// object goes; for tests that write files.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace ember::test {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "ember-test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// The directory, or name inside it.
  std::string path(const std::string& name = "") const {
    return name.empty() ? path_.string() : (path_ / name).string();
  }
  /// Writes bytes to name inside the directory (its folders created); returns the path.
  std::string write(const std::string& name, const std::string& bytes) const {
    const std::filesystem::path p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p.string();
  }
  /// Copies the folder from (its files and subfolders) into the directory.
  void copy_from(const std::string& from) const {
    std::filesystem::copy(
        from, path_,
        std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
  }

 private:
  std::filesystem::path path_;
};

}  // namespace ember::test
