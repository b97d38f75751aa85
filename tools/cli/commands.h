// Command implementations behind the CLI (private to the tools module).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "sweep_slurm.h"
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
// which the memory guard counts. Gaps of at least `outage_gap_h` hours with
// no recorded start while jobs waited are listed (trace_evidence.h). With
// `infer`, the replay follows that evidence (ValidateInference); with
// `events_out` too (precondition, checked by RunMain: `infer` and at most
// one size), the events are written there as an events file (`run
// --events`).
Status ValidateCommand(InputOptions input, const RunSpec& settings, const std::string& policy,
                       const std::vector<int>& nodes_list, double outage_gap_h, bool infer,
                       double infer_window_h, const std::string& events_out, const std::string& out,
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
  // Slurm advice logs (docs/live-slurm.md): the sacct history of the same
  // period and the cluster; with both, the history is also replayed offline
  // under Slurm's decisions and the advised policy (`replay_policies`, ""
  // = as-recorded, as-recorded+P, easy-backfill+P with P the log's policy).
  std::string sacct, cluster, replay_policies, out;
};
// True when the shadow report's log is a Slurm advice log whose history is
// to be replayed; *policies gets the replay's policies, *baseline the first.
bool SlurmReplayWanted(const ShadowReportCliOptions& s, std::vector<std::string>* policies);
CLI::App* AddShadowReportCommand(CLI::App* app, ShadowReportCliOptions& s);
Status ShadowReportCommand(const ShadowReportCliOptions& s);

// `utilsim explain --db FILE --job NAME` (cmd_explain.cc): why one job
// waited (docs/explain.md).
struct ExplainCliOptions {
  std::string db, job, run;
  bool json = false;
};
CLI::App* AddExplainCommand(CLI::App* app, ExplainCliOptions& s);
Status ExplainCommand(const ExplainCliOptions& s);

// `utilsim power-fit CSV | --telemetry FILE` (cmd_power_fit.cc): the power
// model's calibration on the Acme summary, or on telemetry that records power
// beside utilization (docs/energy.md). Exactly one of csv and telemetry.
struct PowerFitCliOptions {
  std::string csv;
  std::string telemetry, telemetry_format;  // comma-separated files; "" = detected
  std::string signal;                       // "" = sm_active, else gr_engine_active, else gpu_util
  bool yaml = false;
};
CLI::App* AddPowerFitCommand(CLI::App* app, PowerFitCliOptions& s);
Status PowerFitCommand(const PowerFitCliOptions& s);

// `utilsim slurm advise` (cmd_slurm.cc): the shadow advisor beside a
// running Slurm until SIGINT/SIGTERM or --duration (docs/live-slurm.md).
struct SlurmCliOptions {
  std::string policy = "best-fit", partitions;
  int poll_s = 30, max_backoff_s = 300, rank_depth = 3, command_timeout_s = 30;
  std::string log = "utilsim-slurm-advice.jsonl", listen = "127.0.0.1:8890";
  std::string slurm_bin, rest_url, rest_user, rest_token_file, rest_version = "v0.0.38";
  std::string prometheus, metric = "DCGM_FI_DEV_GPU_UTIL";
  int scrape_interval_s = 30;
  bool once = false;
  std::string duration;
  bool apply = false;
  std::string apply_partitions;
  double apply_rate = 6;
  std::string apply_deadline = "10m", apply_log = "utilsim-slurm-apply.jsonl";
  std::string revert;
  uint64_t seed = 1;
};
CLI::App* AddSlurmCommand(CLI::App* app, SlurmCliOptions& s);
// The options' checks CLI11 cannot make (a usage error, exit 2).
Status CheckSlurmOptions(const SlurmCliOptions& s);
Status SlurmCommand(const SlurmCliOptions& s, const PolicyRegistry& reg);

// `utilsim sweep plan|run|task|status|merge` (cmd_sweep.cc; docs/sweeps.md).
struct SweepCliOptions {
  std::string file, out, executor = "local", emit, merged_db, merged_csv;
  int workers = 0;  // 0 = one per core
  int task = -1, run = -1;
  bool retry_failed = false, no_merge = false, no_pilot = false, quiet = false;
  SlurmSweepOptions slurm;
  CLI::App *plan_cmd = nullptr, *run_cmd = nullptr, *task_cmd = nullptr, *status_cmd = nullptr,
           *merge_cmd = nullptr;
};
CLI::App* AddSweepCommand(CLI::App* app, SweepCliOptions& s);
// What CLI11 cannot check (usage errors, exit 2).
Status CheckSweepOptions(const SweepCliOptions& s);
Status SweepCommand(SweepCliOptions& s);

}  // namespace utilsim::cli
