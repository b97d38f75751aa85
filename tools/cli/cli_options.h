// The options of utilsim's subcommands (private to the tools module), in the
// help groups every run-like subcommand shares: Input (what is read), Cluster
// (what it runs on), Policy, Model (how jobs progress), Run (what a run
// measures and how it is watched) and Output (what is written). Each
// subcommand adds only the groups, and options, that apply to it (cli.cc);
// every numeric and enumerated value is checked where it is parsed
// (cli_checks.h), so a bad value is a usage error (exit 2) naming the option
// and the accepted range.
#pragma once

#include <string>
#include <vector>

#include "utilsim/analysis/runner.h"
#include "utilsim/engine/progress.h"
#include "utilsim/io/inputs.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace utilsim::cli {

// Help group names.
inline constexpr const char* kInputGroup = "Input";
inline constexpr const char* kClusterGroup = "Cluster";
inline constexpr const char* kPolicyGroup = "Policy";
inline constexpr const char* kModelGroup = "Model";
inline constexpr const char* kRunGroup = "Run";
inline constexpr const char* kOutputGroup = "Output";

// The run options as given on the command line (checked where parsed);
// ToRunSpec turns them into the library's typed RunSpec.
struct RunFlags {
  double sample_interval_s = 300;
  double horizon_s = -1;  // < 0: no horizon; relative to the first submission
  double price_per_gpu_h = 2.0;
  std::string power_file;         // "" = the built-in power model
  double pue = -1;                // < 0: the power model's
  double energy_price = 0.10;     // USD per kWh
  double power_off_after_s = -1;  // < 0: never
  double wake_delay_s = 300;
  std::string power_cap;           // "" = none; ParsePowerCaps
  double power_budget_w = 0;       // 0 = none
  double rack_power_budget_w = 0;  // 0 = none
  bool wait_detail = false;
  std::string window = "arrivals";
  std::string series = "auto";
  double warmup_s = 0;
  double restart_cost_s = 0;
  std::string events_file;            // "" = a constant cluster
  double checkpoint_interval_s = -1;  // < 0: no checkpoints
  double pass_interval_s = 0;         // 0: a pass at once
  double comm_fraction = WholeGpuProgress::kDefaultCommFraction;
  std::string model = "whole-gpu";
  std::string sharing = "fractional";
  double mps_thread_pct = 100;
  int threads = 0;
  std::string cpu_alloc = "request";
  std::string gpu_reserve;          // "" = none
  std::string scale_host_requests;  // "" = as given
  std::string mig;                  // "" = MIG layouts ignored
  std::string mig_reconfig = "2,2,0";
  bool mig_drain = true;
};
// `s` with a leading RunSpec field name ("gpu_reserve: ...") replaced by the
// option that sets it ("--gpu-reserve: ..."); other messages unchanged.
Status FlagError(const Status& s);
// The RunSpec of `f` with `seed`; errors name the option (usage errors:
// every value was checked when parsed, so only combinations fail here),
// except the contents of the files it reads (--power, --events): those
// errors have StatusCode::kRuntime (bad input, exit 1; RunFlagsExit).
Result<RunSpec> ToRunSpec(const RunFlags& f, uint64_t seed);
// The exit code of a ToRunSpec error: 1 for a file's contents, else 2.
int RunFlagsExit(const Status& s);

// What the shared options write to (one subcommand parses per process).
struct CliOptions {
  InputOptions input;
  RunFlags run;
  std::string policy = "best-fit";    // run --policy
  std::vector<std::string> policies;  // compare --policies, unsplit (SplitList)
  std::string baseline;
  std::string profiles;
  std::string out;
  std::string csv_dir;
  std::string report;             // compare --report: the HTML report to write
  std::string progress = "auto";  // --progress (ParseProgressMode)
  std::string max_memory;         // --max-memory ("" = 80% of physical memory)
};

// Input: --trace, --format, --seed, --jobs, --pending, --swf-unit,
// --sacct-tenant, --sacct-submit and the
// utilization sources (--telemetry*, --util-library*, --attach).
void AddInputOptions(CLI::App* cmd, CliOptions& o);
// Cluster: --cluster, --nodes, --gpus-per-node, --node-list.
void AddClusterOptions(CLI::App* cmd, CliOptions& o);
// Policy: --profiles (the YAML of placement profiles).
void AddProfilesOption(CLI::App* cmd, CliOptions& o);
// Policy: --cpu-alloc, --gpu-reserve, --scale-host-requests.
void AddCoResourceOptions(CLI::App* cmd, CliOptions& o);
// Policy: --policies (comma-separated, no empty entries; duplicates and
// unknown names are refused after parsing, CheckPolicyList).
CLI::Option* AddPolicyListOption(CLI::App* cmd, std::vector<std::string>& into,
                                 const std::string& help);
// Model: --model, --comm-fraction, --sharing, --mps-thread-pct, --mig,
// --mig-reconfig, --mig-no-drain, --restart-cost.
void AddModelOptions(CLI::App* cmd, CliOptions& o);
// Run: --sample-interval, --horizon, --window, --warmup, --price, and the
// guards (AddGuardOptions).
void AddRunOptions(CLI::App* cmd, CliOptions& o);
// Run: --progress, and --max-memory unless `progress_only`.
void AddGuardOptions(CLI::App* cmd, CliOptions& o, bool progress_only = false);
// Run: --threads (>= 1; 0, the default, = one per core).
void AddThreadsOption(CLI::App* cmd, int& threads, const std::string& help);
// Output: --out (with `out_help`) and, when `csv`, --csv.
void AddOutputOptions(CLI::App* cmd, CliOptions& o, const std::string& out_help, bool csv);

// Comma-separated entries of every item, in order ("a,b", "c" -> a, b, c).
std::vector<std::string> SplitList(const std::vector<std::string>& items);

// After parsing: `names` (of `option`) hold no duplicate and only names
// `reg` can build (placements only when `placements`), with a did-you-mean
// for an unknown one. Errors are usage errors.
Status CheckPolicyList(const std::vector<std::string>& names, const std::string& option,
                       const PolicyRegistry& reg, bool placements = false);

}  // namespace utilsim::cli
