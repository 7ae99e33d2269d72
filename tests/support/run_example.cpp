#include "support/run_example.h"

#include <sys/wait.h>

#include <cstdio>

namespace ember::test {

std::string example_path(const std::string& name) {
  return std::string(EMBER_BINARY_DIR) + "/examples/" + name;
}

Outcome run_example(const std::string& name, const std::string& args, const std::string& prefix) {
  return run_binary(example_path(name), args, prefix);
}

Outcome run_binary(const std::string& path, const std::string& args, const std::string& prefix) {
  const std::string cmd = prefix + "exec '" + path + "' " + args + " 2>&1";
  Outcome r;
  FILE* p = ::popen(("sh -c \"" + cmd + "\"").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

}  // namespace ember::test
