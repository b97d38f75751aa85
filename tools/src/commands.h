// Command implementations behind the CLI (private to the tools module).
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/tools/inputs.h"
#include "utilsim/tools/memory_guard.h"
#include "utilsim/tools/progress.h"
#include "utilsim/tools/runner.h"

namespace utilsim::tools {

// --progress and --max-memory, resolved.
struct CommandGuards {
  ProgressMode progress = ProgressMode::kAuto;
  MemoryLimit memory;
};

// `utilsim validate` (cmd_validate.cc): `policy` must be known (checked by
// RunMain); every size runs at once, each with its own copy of the workload,
// which the memory guard counts.
Status ValidateCommand(InputOptions input, const RunSettings& settings, const std::string& policy,
                       const std::vector<int>& nodes_list, const std::string& out,
                       const CommandGuards& guards);

}  // namespace utilsim::tools
