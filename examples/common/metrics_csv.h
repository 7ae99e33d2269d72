#pragma once
// The examples' --metrics CSV (epoch,batch,loss,test_accuracy): the per-step losses at full
// precision, which compare_devices.py reads to check that a CUDA device follows the CPU.
#include <cstdio>
#include <string>

namespace ember::examples {

/// Opened (and its header flushed) on construction, so a path that cannot be written fails
/// before any work; every later write is checked too, so metrics lost to a failing device (a
/// full disk, /dev/full) end the run with an IOError, not exit 0. An empty path writes nothing.
class MetricsCsv {
 public:
  explicit MetricsCsv(const std::string& path);
  ~MetricsCsv();
  MetricsCsv(const MetricsCsv&) = delete;
  MetricsCsv& operator=(const MetricsCsv&) = delete;

  void loss(int epoch, size_t batch, double value);
  void accuracy(int epoch, double value);
  /// Closes the file, reporting a failure of its last writes.
  void close();

 private:
  void write(const char* text);
  [[noreturn]] void fail() const;

  std::string path_;
  std::FILE* out_ = nullptr;
};

}  // namespace ember::examples
