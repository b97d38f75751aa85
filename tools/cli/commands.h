// Command implementations behind the CLI (private to the tools module).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "utilsim/analysis/memory_guard.h"
#include "utilsim/analysis/progress.h"
#include "utilsim/analysis/runner.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/inputs.h"

namespace CLI {
class App;
}  // namespace CLI

namespace utilsim::cli {

struct CliOptions;  // cli_options.h

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

// `utilsim decide` (cmd_decide.cc): the JSON decision protocol
// (utilsim/analysis/decide.h) on standard input and output. AddDecideCommand
// registers the subcommand (its --profiles goes to o.profiles); `reg` holds
// those profiles and the policy has been checked against it (RunMain).
struct DecideCliOptions {
  std::string cluster;
  std::string policy = "best-fit";
  uint64_t seed = 1;
};
CLI::App* AddDecideCommand(CLI::App* app, CliOptions& o, DecideCliOptions& d);
Status DecideCommand(const DecideCliOptions& d, const PolicyRegistry& reg, std::istream& in,
                     std::ostream& out);

// `utilsim serve k8s-extender` (cmd_serve.cc): the live extender until
// SIGINT/SIGTERM (docs/live-k8s.md).
struct ServeCliOptions {
  std::string config, listen, shadow_log;
  bool check = false;
};
CLI::App* AddServeCommand(CLI::App* app, ServeCliOptions& s);
Status ServeCommand(const ServeCliOptions& s, const PolicyRegistry& reg);
// `utilsim shadow-report LOG` (cmd_serve.cc).
struct ShadowReportCliOptions {
  std::string log;
  bool json = false, pods = false;
};
CLI::App* AddShadowReportCommand(CLI::App* app, ShadowReportCliOptions& s);
Status ShadowReportCommand(const ShadowReportCliOptions& s);

}  // namespace utilsim::cli
