#pragma once
// Runs a built example binary (build/examples/<name>) through sh, for the examples' CLI tests.
#include <string>

namespace ember::test {

struct Outcome {
  int status = -1;     // the exit status, or 128 + the signal
  std::string output;  // stdout and stderr
};

/// The path of build/examples/<name> (it may not exist: examples are optional).
std::string example_path(const std::string& name);
/// Runs "<prefix>exec <binary> <args> 2>&1" with sh and collects its output; prefix holds
/// shell commands to run first (ulimit, traps, an input redirection belongs in args).
Outcome run_example(const std::string& name, const std::string& args, const std::string& prefix = "");
/// The same for the binary at path (a copy of an example elsewhere).
Outcome run_binary(const std::string& path, const std::string& args, const std::string& prefix = "");

}  // namespace ember::test
