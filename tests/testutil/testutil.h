// Shared helpers for tests: trace location, temporary files, running the CLI.
#pragma once

#include <string>
#include <vector>

namespace utilsim::testutil {

// Folder of the real public traces: $UTILSIM_TRACES, else ../shared/traces
// beside the source tree. May not exist.
std::string TracesDir();
// Path of a trace file relative to TracesDir(), or "" when it does not exist.
// Tests call GTEST_SKIP() with a one-line reason when this returns "".
std::string TracePath(const std::string& relative);
// Path of a file under tests/fixtures.
std::string Fixture(const std::string& name);
// A fresh empty temporary directory, unique per call.
std::string TempDir();
// Writes text to path (overwrites). Returns path.
std::string WriteFile(const std::string& path, const std::string& text);
std::string ReadFile(const std::string& path);
// The names of the entries of folder `dir`, sorted (to check that an
// output left no temporary file behind).
std::vector<std::string> ListDir(const std::string& dir);
// Runs the utilsim binary with args (a shell-quoted string); captures stdout
// and stderr together into *output; returns the exit code.
int RunCli(const std::string& args, std::string* output);
// Path of the utilsim binary RunCli runs (for tests that start it themselves).
std::string BinaryPath();
// True when `part` occurs in `s` (for checking a command's output).
inline bool Has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace utilsim::testutil
