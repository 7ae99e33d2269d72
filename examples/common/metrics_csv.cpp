#include "metrics_csv.h"

#include <cerrno>
#include <cstring>

#include "ember/core/error.h"

namespace ember::examples {

MetricsCsv::MetricsCsv(const std::string& path) : path_(path) {
  if (path.empty()) return;
  out_ = std::fopen(path.c_str(), "w");
  if (!out_) fail();
  write("epoch,batch,loss,test_accuracy\n");
}

MetricsCsv::~MetricsCsv() {
  if (out_) std::fclose(out_);
}

void MetricsCsv::loss(int epoch, size_t batch, double value) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%d,%zu,%.9g,\n", epoch, batch, value);
  write(buf);
}

void MetricsCsv::accuracy(int epoch, double value) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%d,,,%.9g\n", epoch, value);
  write(buf);
}

void MetricsCsv::close() {
  if (!out_) return;
  std::FILE* f = out_;
  out_ = nullptr;
  if (std::fclose(f) != 0) fail();
}

void MetricsCsv::write(const char* text) {
  if (!out_) return;
  if (std::fputs(text, out_) < 0 || std::fflush(out_) != 0) fail();
}

void MetricsCsv::fail() const {
  throw IOError("cannot write metrics file " + path_ + ": " + std::strerror(errno));
}

}  // namespace ember::examples
