#include "ember/core/device.h"

#include <cctype>

#include "ember/core/error.h"

namespace ember {
namespace {
[[noreturn]] void invalid(const std::string& spec) {
  raise<ValueError>("invalid device string \"", spec, "\": expected \"cpu\", \"cuda\" or \"cuda:N\"");
}

Device parse_device(const std::string& spec) {
  if (spec == "cpu") return Device::cpu();
  if (spec == "cuda") return Device::cuda(0);
  const std::string prefix = "cuda:";
  if (spec.compare(0, prefix.size(), prefix) != 0 || spec.size() == prefix.size()) invalid(spec);
  const std::string digits = spec.substr(prefix.size());
  if (digits.size() > 6) invalid(spec);
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) invalid(spec);
  return Device::cuda(std::stoi(digits));
}
}  // namespace

Device::Device(const std::string& spec) : Device(parse_device(spec)) {}
Device::Device(const char* spec) : Device(parse_device(spec ? std::string(spec) : std::string())) {}

std::string Device::str() const { return is_cpu() ? "cpu" : "cuda:" + std::to_string(index); }

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace ember
