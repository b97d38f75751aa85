// Command implementations behind the CLI (private to the tools module).
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/tools/inputs.h"
#include "utilsim/tools/runner.h"

namespace utilsim::tools {

Status ValidateCommand(const InputOptions& input, const RunSettings& settings,
                       const std::string& policy, const std::vector<int>& nodes_list,
                       const std::string& out);

}  // namespace utilsim::tools
