// The `utilsim` command line. main() calls RunMain; tests may too.
#pragma once

namespace utilsim::tools {

// Parses argv, runs the command, prints to stdout/stderr. Returns the process
// exit code: 0 success, 1 a runtime error (bad input, unwritable output), 2 a
// usage error (unknown option or command; CLI11's codes for parse errors).
int RunMain(int argc, char** argv);

}  // namespace utilsim::tools
