// `utilsim plan` and `utilsim diagnose` behind the CLI (private to the tools
// module): their own options, registered by cli.cc next to the shared input
// options, and the commands.
#pragma once

#include <string>
#include <vector>

#include "utilsim/analysis/diagnose.h"
#include "utilsim/analysis/memory_guard.h"
#include "utilsim/analysis/progress.h"
#include "utilsim/analysis/runner.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/inputs.h"

namespace CLI {
class App;
}

namespace utilsim::cli {

// What cli.cc's shared options hold, passed through.
struct SharedCliOptions {
  const InputOptions* input = nullptr;
  const RunSpec* run = nullptr;  // ToRunSpec of the flags, with --seed
  std::string profiles, out, csv_dir;
  bool trace_given = false;                     // --trace was on the command line
  ProgressMode progress = ProgressMode::kAuto;  // --progress
  MemoryLimit memory;                           // --max-memory, resolved
};

struct PlanCliOptions {
  // As given (comma-separated); cli.cc splits and checks them after parsing.
  std::vector<std::string> policies = {"best-fit"};
  std::vector<std::string> targets;
  std::string step = "0.05";
  double max_scale = 2.0;
  int ladder = 8, refine = 3, threads = 0;
  bool json = false;
};

struct DiagnoseCliOptions {
  std::string results;  // positional RESULTS.db
  std::string policy = "auto";
  DiagnoseThresholds thresholds;
  bool json = false;
};

// Adds the command's own options (the shared groups come from cli.cc,
// cli_options.h), each value checked where it is parsed, and a help footer
// with examples.
void AddPlanOptions(CLI::App* cmd, PlanCliOptions& o);
void AddDiagnoseOptions(CLI::App* cmd, DiagnoseCliOptions& o);
extern const char* const kPlanHelp;
extern const char* const kDiagnoseHelp;

Status PlanCommand(const SharedCliOptions& shared, const PlanCliOptions& o);
Status DiagnoseCommand(const SharedCliOptions& shared, const DiagnoseCliOptions& o);

}  // namespace utilsim::cli
