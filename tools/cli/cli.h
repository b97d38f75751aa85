// The `utilsim` command line. main() calls RunMain; tests may too.
#pragma once

namespace utilsim::cli {

// Parses argv, runs the command, prints to stdout/stderr. Returns the process
// exit code: 0 success (also --help, --version), 1 a runtime error (bad
// input, unwritable output, a run refused by the memory guard), 2 a usage
// error (every CLI11 parse error: unknown subcommand or option, a value out
// of its range; an unknown or repeated policy; --jobs with a trace file).
int RunMain(int argc, char** argv);

}  // namespace utilsim::cli
