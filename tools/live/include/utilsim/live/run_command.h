// Runs a program with a time limit and collects what it prints: how the
// Slurm advisor calls squeue, sinfo and scontrol (slurm_source.cc), and the
// sweep's Slurm executor sbatch (tools/cli/sweep_slurm.cc). The
// program is found on PATH (execvp), gets no standard input, and runs in
// its own process group; past the time limit the group is killed (SIGTERM,
// then SIGKILL after 2 s) and the result says so. Output beyond max_bytes
// is an error, not a truncation. Thread-safety: reentrant.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "utilsim/engine/status.h"

namespace utilsim::live::internal {

struct CommandResult {
  int exit_code = -1;  // -1: killed by a signal or timed out
  bool timed_out = false;
  std::string out, err;
};

// Errors: the program could not be started (not found, not executable),
// output over max_bytes. A non-zero exit is not an error: see exit_code.
Result<CommandResult> RunCommand(const std::vector<std::string>& argv, int timeout_ms,
                                 size_t max_bytes = size_t{1} << 30);

}  // namespace utilsim::live::internal
