// Command implementations behind the CLI (private to the tools module).
#pragma once

#include <string>
#include <vector>

#include "utilsim/analysis/memory_guard.h"
#include "utilsim/analysis/progress.h"
#include "utilsim/analysis/runner.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/inputs.h"

namespace utilsim::cli {

// --progress and --max-memory, resolved.
struct CommandGuards {
  ProgressMode progress = ProgressMode::kAuto;
  MemoryLimit memory;
};

// `utilsim validate` (cmd_validate.cc): `policy` must be known (checked by
// RunMain); every size runs at once, each with its own copy of the workload,
// which the memory guard counts.
Status ValidateCommand(InputOptions input, const RunSpec& settings, const std::string& policy,
                       const std::vector<int>& nodes_list, const std::string& out,
                       const CommandGuards& guards);

}  // namespace utilsim::cli
