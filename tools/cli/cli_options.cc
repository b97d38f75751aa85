#include "cli_options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <sstream>

#include "cli_checks.h"
#include "suggest.h"
#include "utilsim/analysis/host_scale.h"
#include "utilsim/analysis/memory_guard.h"
#include "utilsim/analysis/mig_run.h"
#include "utilsim/analysis/progress.h"
#include "utilsim/analysis/sharing.h"
#include "utilsim/io/formats.h"
#include "utilsim/policies/coresource.h"
#include "utilsim/traces/power_yaml.h"

namespace utilsim::cli {
namespace {

std::vector<std::string> Names(const std::vector<std::pair<std::string, std::string>>& list) {
  std::vector<std::string> out;
  for (const auto& [name, desc] : list) out.push_back(name);
  return out;
}

template <typename T>
std::function<Status(const std::string&)> StatusOf(Result<T> (*parse)(const std::string&)) {
  return [parse](const std::string& s) { return parse(s).status(); };
}

}  // namespace

void AddInputOptions(CLI::App* cmd, CliOptions& o) {
  cmd->add_option("--trace", o.input.trace,
                  "Job trace file, or builtin:demo / builtin:bench (the seeded synthetic "
                  "workload, docs/workloads.md)")
      ->capture_default_str()
      ->group(kInputGroup);
  cmd->add_option("--format", o.input.format,
                  "Trace format (default: inferred from the file). `utilsim formats` lists them")
      ->check(checks::OneOf(Names(TraceFormatList())))
      ->group(kInputGroup);
  cmd->add_option("--seed", o.input.seed,
                  "Seed for every random stream (synthetic jobs, the random placement, profile "
                  "attachment): an integer 0..2^64-1")
      ->transform(checks::Seed())
      ->capture_default_str()
      ->group(kInputGroup);
  cmd->add_option("--jobs", o.input.jobs,
                  "Built-in workloads (--trace builtin:...) only: number of jobs to generate")
      ->transform(checks::Integer(1))
      ->group(kInputGroup);
  cmd->add_option("--pending", o.input.reader.pending,
                  "openb: pods never scheduled: run (from creation to deletion) or skip")
      ->check(checks::OneOf({"run", "skip"}))
      ->capture_default_str()
      ->group(kInputGroup);
  cmd->add_option("--swf-unit", o.input.reader.swf_unit, "swf: what a processor is: gpu or cpu")
      ->check(checks::OneOf({"gpu", "cpu"}))
      ->capture_default_str()
      ->group(kInputGroup);
  cmd->add_option("--sacct-tenant", o.input.reader.sacct_tenant,
                  "sacct: a job's tenant is its Slurm account or user")
      ->check(checks::OneOf({"account", "user"}))
      ->capture_default_str()
      ->group(kInputGroup);
  cmd->add_option("--sacct-submit", o.input.reader.sacct_submit,
                  "sacct: a job's submit time is when it became eligible (holds and dependencies "
                  "excluded) or its Submit")
      ->check(checks::OneOf({"eligible", "submit"}))
      ->capture_default_str()
      ->group(kInputGroup);
  cmd->add_option("--telemetry", o.input.telemetry,
                  "GPU telemetry joined to the jobs by pod/job id or host and time window "
                  "(comma-separated files; docs/formats/telemetry.md)")
      ->group(kInputGroup);
  cmd->add_option("--telemetry-format", o.input.telemetry_format,
                  "Telemetry format (default: detected; `utilsim formats` lists them)")
      ->check(checks::OneOf(Names(TelemetryFormatList())))
      ->group(kInputGroup);
  cmd->add_option("--telemetry-offset", o.input.telemetry_offset_s,
                  "Seconds added to telemetry times to align them with the trace's times")
      ->check(checks::Real({.what = "a finite number of seconds"}))
      ->group(kInputGroup);
  cmd->add_option("--util-library", o.input.util_library,
                  "Telemetry whose series become a profile library, attached by a seeded "
                  "class rule to jobs without measured utilization (docs/trace-formats.md)")
      ->group(kInputGroup);
  cmd->add_option("--util-library-format", o.input.util_library_format,
                  "Format of --util-library (default: detected)")
      ->check(checks::OneOf(Names(TelemetryFormatList())))
      ->group(kInputGroup);
  cmd->add_option("--attach", o.input.attach,
                  "What the library gives a job: series (its shape, stretched to the job) or mean")
      ->check(checks::OneOf({"series", "mean"}))
      ->capture_default_str()
      ->group(kInputGroup);
}

void AddClusterOptions(CLI::App* cmd, CliOptions& o) {
  cmd->add_option("--cluster", o.input.cluster,
                  "Cluster spec, YAML (docs/trace-format.md) or a Slurm slurm.conf "
                  "(docs/formats/slurm-conf.md); required for canonical and sacct traces")
      ->group(kClusterGroup);
  cmd->add_option("--nodes", o.input.reader.nodes,
                  "aaic: nodes of 8 GPUs in the cluster (default 50, the installed count)")
      ->transform(checks::Integer(1, 1'000'000))
      ->group(kClusterGroup);
  cmd->add_option("--gpus-per-node", o.input.reader.gpus_per_node,
                  "itp, swf: GPUs per node, for splitting large jobs into gangs")
      ->transform(checks::Integer(1, 64))
      ->capture_default_str()
      ->group(kClusterGroup);
  cmd->add_option("--node-list", o.input.reader.node_list,
                  "openb: node list CSV (default: openb_node_list_all_node.csv beside the pods)")
      ->group(kClusterGroup);
}

void AddProfilesOption(CLI::App* cmd, CliOptions& o) {
  cmd->add_option("--profiles", o.profiles, "YAML file of placement profiles (docs/policies.md)")
      ->group(kPolicyGroup);
}

void AddCoResourceOptions(CLI::App* cmd, CliOptions& o) {
  cmd->add_option("--cpu-alloc", o.run.cpu_alloc,
                  "CPU and memory each job gets: request (as the trace asks), proportional "
                  "(the node's CPU and memory per GPU x the job's GPUs), measured (the CPU its "
                  "profile shows it needs when that fits, else the proportional share)")
      ->check(checks::Parsed([](const std::string& s) { return ParseCpuAlloc(s).status(); }))
      ->capture_default_str()
      ->group(kPolicyGroup);
  cmd->add_option("--gpu-reserve", o.run.gpu_reserve,
                  "CORES[,GIB]: per whole-free GPU, CPU cores (and GiB of memory) on every GPU "
                  "node that CPU-only jobs may not take, e.g. 4 or 4,16 (default: none)")
      ->check(checks::Parsed([](const std::string& s) { return ParseGpuReservation(s).status(); }))
      ->group(kPolicyGroup);
  cmd->add_option("--scale-host-requests", o.run.scale_host_requests,
                  "CPU[,MEM]: multiply every job's host CPU and memory request by these factors "
                  "(> 0; one number scales both) before the run and MIG right-sizing, rounded "
                  "to nearest, a request > 0 kept >= 1; noted in the results. E.g. 0.125 "
                  "(docs/mig.md, the MIG study)")
      ->check(checks::Parsed(StatusOf(&ParseHostScale)))
      ->group(kPolicyGroup);
}

CLI::Option* AddPolicyListOption(CLI::App* cmd, std::vector<std::string>& into,
                                 const std::string& help) {
  // Split after parsing (SplitList), not by CLI11, which drops empty entries.
  return cmd->add_option("--policies", into, help)
      ->check(checks::ListOf("policy names"))
      ->group(kPolicyGroup);
}

void AddModelOptions(CLI::App* cmd, CliOptions& o) {
  cmd->add_option("--model", o.run.model,
                  "Progress model: whole-gpu (GPU speed and communication only), stall-serial or "
                  "stall-overlapped (busy, CPU input, storage, communication and fixed time, each "
                  "scaled by what the job gets; input added to or pipelined with compute). "
                  "docs/model.md")
      ->check(checks::OneOf({"whole-gpu", "stall-serial", "stall-overlapped"}))
      ->capture_default_str()
      ->group(kModelGroup);
  cmd->add_option("--comm-fraction", o.run.comm_fraction,
                  "Share of a multi-GPU job's recorded runtime spent communicating; that share "
                  "slows by the bandwidth lost when the job is placed further apart than it was "
                  "recorded (NVLink > PCIe > NIC > oversubscribed uplinks; docs/topology.md). "
                  "0 switches communication stalls off")
      ->check(checks::Within(0, 1, "a fraction"))
      ->capture_default_str()
      ->group(kModelGroup);
  cmd->add_option("--sharing", o.run.sharing,
                  "GPU sharing for fractional (milli-GPU) requests: fractional (shares as asked, "
                  "no interference), exclusive (every fractional request rounded up to a whole "
                  "GPU), timeslice or mps (shares as asked; jobs on one GPU slow each other by "
                  "the interference model fitted on measured pairs). docs/sharing.md")
      ->check(
          checks::Parsed([](const std::string& s) { return ParseSharingMode(s, 100).status(); }))
      ->capture_default_str()
      ->group(kModelGroup);
  checks::Range pct;
  pct.lo = 0;
  pct.lo_open = true;
  pct.hi = 100;
  pct.what = "a percentage";
  cmd->add_option("--mps-thread-pct", o.run.mps_thread_pct,
                  "With --sharing mps: the MPS daemon's active-thread percentage per client")
      ->check(checks::Real(pct))
      ->capture_default_str()
      ->group(kModelGroup);
  cmd->add_option("--mig", o.run.mig,
                  "MIG: right-size[:TOL] runs on the cluster's static MIG layouts (node group "
                  "key mig): each single-GPU job with measured utilization on the smallest "
                  "profile whose GPU memory and per-instance share of the node's CPU and memory "
                  "hold it and whose predicted speed is >= TOL (default 0.9) of a whole GPU; "
                  "multi-GPU jobs keep 7g. dynamic[:TOL]: the same sizing (without the "
                  "per-instance CPU share), but the declared layouts are only the start: a "
                  "repartitioning planner creates and destroys instances as the queue needs "
                  "them, draining busy ones when that is expected to pay off. Results are "
                  "derived. docs/mig.md")
      ->check(checks::Parsed(StatusOf(&ParseMigOption)))
      ->group(kModelGroup);
  cmd->add_option("--mig-reconfig", o.run.mig_reconfig,
                  "With --mig dynamic: CREATE[,DESTROY[,FIXED]] seconds a layout change takes "
                  "per instance created, per instance destroyed, and once per change")
      ->check(checks::Parsed(StatusOf(&ParseMigReconfig)))
      ->capture_default_str()
      ->group(kModelGroup);
  cmd->add_flag("--mig-no-drain{false}", o.run.mig_drain,
                "With --mig dynamic: never drain busy instances to repartition a GPU")
      ->group(kModelGroup);
  cmd->add_option("--restart-cost", o.run.restart_cost_s,
                  "Seconds of work a preempted job loses (checkpoint interval + restart), for "
                  "preemptive policies (tiresias, priority-preempt)")
      ->check(checks::AtLeast(0, "seconds"))
      ->capture_default_str()
      ->group(kModelGroup);
}

void AddRunOptions(CLI::App* cmd, CliOptions& o) {
  cmd->add_option("--sample-interval", o.run.sample_interval_s,
                  "Seconds of simulated time between cluster samples")
      ->check(checks::Above(0, "seconds"))
      ->capture_default_str()
      ->group(kRunGroup);
  cmd->add_option("--series", o.run.series,
                  "How the results record the cluster's state over time: changes = one row per "
                  "instant at which it changed (exact), samples = one row every "
                  "--sample-interval; auto = changes when that is fewer rows (2 x jobs <= "
                  "ticks over the arrivals). The samples view shows both at every tick "
                  "(docs/results.md)")
      ->check(checks::OneOf({"auto", "changes", "samples"}))
      ->capture_default_str()
      ->group(kRunGroup);
  cmd->add_option("--horizon", o.run.horizon_s,
                  "Stop at this simulated time, in seconds from the first submission "
                  "(default: run until every job ends)")
      ->check(checks::AtLeast(0, "seconds"))
      ->group(kRunGroup);
  cmd->add_option("--window", o.run.window,
                  "Period the allocation/utilization figures measure: arrivals = first to last "
                  "submission (steady load, no drain tail), full = first submission to last finish")
      ->check(checks::OneOf({"arrivals", "full"}))
      ->capture_default_str()
      ->group(kRunGroup);
  cmd->add_option("--warmup", o.run.warmup_s,
                  "Seconds skipped at the start of the arrivals window (cluster filling up)")
      ->check(checks::AtLeast(0, "seconds"))
      ->capture_default_str()
      ->group(kRunGroup);
  cmd->add_option("--price", o.run.price_per_gpu_h,
                  "Price of one GPU-hour in USD, for the cost of idle allocated GPUs")
      ->check(checks::AtLeast(0, "USD per GPU-hour"))
      ->capture_default_str()
      ->group(kRunGroup);
  cmd->add_option("--events", o.run.events_file,
                  "Cluster events YAML (docs/cluster-events.md): nodes added, removed, down, "
                  "drained, maintenance windows, outages, and failures drawn from per-component "
                  "rates (seeded by --seed); jobs on a node that goes down are killed and queued "
                  "again")
      ->check(CLI::ExistingFile)
      ->group(kClusterGroup);
  cmd->add_option("--checkpoint-interval", o.run.checkpoint_interval_s,
                  "With --events: seconds of recorded work between a job's checkpoints; a job a "
                  "node failure kills keeps the work of its last checkpoint minus --restart-cost "
                  "(default: no checkpoints, it restarts from the start)")
      ->check(checks::Above(0, "seconds"))
      ->group(kClusterGroup);
  cmd->add_option("--pass-interval", o.run.pass_interval_s,
                  "Scheduling cycle: passes only at multiples of this many seconds, so a job "
                  "waits for the next cycle (Slurm's sched_interval); 0 = a pass at once after "
                  "every arrival, finish or cluster change")
      ->check(checks::AtLeast(0, "seconds"))
      ->capture_default_str()
      ->group(kRunGroup);
  cmd->add_option("--power", o.run.power_file,
                  "Power model YAML (docs/energy.md): idle, context and active watts per GPU "
                  "model, node overhead, PUE; default: the built-in model calibrated on Acme")
      ->check(CLI::ExistingFile)
      ->group(kRunGroup);
  cmd->add_option("--pue", o.run.pue,
                  "Power usage effectiveness: facility energy / IT energy (default: the power "
                  "model's, 1.0 built in)")
      ->check(checks::AtLeast(1, "a ratio >= 1"))
      ->group(kRunGroup);
  cmd->add_option("--energy-price", o.run.energy_price,
                  "Price of one kWh of facility energy in USD, for the energy cost figures")
      ->check(checks::AtLeast(0, "USD per kWh"))
      ->capture_default_str()
      ->group(kRunGroup);
  cmd->add_option("--power-off-after", o.run.power_off_after_s,
                  "Switch a node off once it has been empty this many seconds, and wake off nodes "
                  "when queued jobs do not fit (docs/energy.md); default: never")
      ->check(checks::AtLeast(0, "seconds"))
      ->group(kRunGroup);
  cmd->add_option("--wake-delay", o.run.wake_delay_s,
                  "With --power-off-after: seconds a woken node takes before it hosts jobs")
      ->check(checks::AtLeast(0, "seconds"))
      ->capture_default_str()
      ->group(kRunGroup);
  cmd->add_option("--power-cap", o.run.power_cap,
                  "Cap GPU power (nvidia-smi -pl): W or P% of TDP for every GPU model, or "
                  "MODEL=W,MODEL=P%; busy work slows and busy power drops by the power model's "
                  "cap curve (default: Zeus's published V100 curve; docs/energy.md)")
      ->group(kRunGroup);
  cmd->add_option("--power-budget", o.run.power_budget_w,
                  "IT power budget of the cluster in W: idle draw plus what allocated GPUs may "
                  "add (each at its cap, else TDP); jobs that would exceed it wait "
                  "(power-budget); 0 = none")
      ->check(checks::AtLeast(0, "watts"))
      ->group(kRunGroup);
  cmd->add_option("--rack-power-budget", o.run.rack_power_budget_w,
                  "The same budget for each rack of the cluster's topology, W; 0 = none")
      ->check(checks::AtLeast(0, "watts"))
      ->group(kRunGroup);
  cmd->add_flag("--wait-detail", o.run.wait_detail,
                "Record, at the start of each wait interval, how many nodes failed the job on "
                "each constraint (shown by `utilsim explain`; costs a scan of the nodes per "
                "interval)")
      ->group(kRunGroup);
  AddGuardOptions(cmd, o);
}

void AddGuardOptions(CLI::App* cmd, CliOptions& o, bool progress_only) {
  cmd->add_option("--progress", o.progress,
                  "Progress on stderr: auto (a bar when stderr is a terminal, else nothing), "
                  "always (also a plain line every 10 s, and one when done, when it is not: "
                  "logs, CI), never")
      ->check(checks::Parsed(StatusOf(&ParseProgressMode)))
      ->capture_default_str()
      ->group(kRunGroup);
  if (progress_only) return;
  cmd->add_option("--max-memory", o.max_memory,
                  "Refuse a run whose estimated memory (from its jobs, nodes and cluster "
                  "samples) exceeds SIZE, e.g. 16G or 500M; 0 or none disables the check "
                  "(default: 80% of physical memory)")
      ->check(checks::Parsed(StatusOf(&ParseMemorySize)))
      ->type_name("SIZE")
      ->group(kRunGroup);
}

void AddThreadsOption(CLI::App* cmd, int& threads, const std::string& help) {
  cmd->add_option("--threads", threads, help)
      ->transform(checks::Integer(1, 4096))
      ->group(kRunGroup);
}

void AddOutputOptions(CLI::App* cmd, CliOptions& o, const std::string& out_help, bool csv) {
  cmd->add_option("--out", o.out, out_help)->group(kOutputGroup);
  if (csv)
    cmd->add_option("--csv", o.csv_dir,
                    "Also export runs.csv, jobs.csv, samples.csv to this folder")
        ->group(kOutputGroup);
}

namespace {

// A piece of a comma-separated list that continues the policy before it:
// "key=value" with no ':' or '+' before the '=' (a policy name never holds
// '='), as in "tiresias:thresholds=3250/7200,foo=1".
bool IsParamContinuation(const std::string& piece) {
  const size_t eq = piece.find('=');
  return eq != std::string::npos && piece.find_first_of(":+") > eq;
}

}  // namespace

std::vector<std::string> SplitList(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::stringstream ss(item);
    std::string part;
    bool first = true;  // a continuation stays within one item
    while (std::getline(ss, part, ',')) {
      if (part.empty()) continue;
      if (!first && out.back().find(':') != std::string::npos && IsParamContinuation(part))
        out.back() += "," + part;
      else
        out.push_back(part);
      first = false;
    }
  }
  return out;
}

Status CheckPolicyList(const std::vector<std::string>& names, const std::string& option,
                       const PolicyRegistry& reg, bool placements) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]) !=
        names.begin() + static_cast<std::ptrdiff_t>(i))
      return Status::Error(option + ": '" + names[i] +
                           "' is listed twice (expected each policy once)");
    Status made = placements ? reg.MakePlacement(names[i]).status() : reg.Make(names[i]).status();
    if (made.ok()) continue;
    std::string hint;
    // A known name with a bad parameter: the registry's message names the
    // key and range; no did-you-mean.
    const bool unknown = made.message().rfind("unknown ", 0) == 0;
    if (!unknown) {
    } else if (placements) {
      std::vector<std::string> known;
      for (const auto& p : reg.List())
        if (p.kind != "queue") known.push_back(p.name);
      hint = Suggest(names[i], known);
    } else {
      hint = SuggestPolicy(names[i], reg);
    }
    if (hint.empty()) return Status::Error(option + ": " + made.message());
    return Status::Error(option + ": unknown " + (placements ? "placement policy" : "policy") +
                         " '" + names[i] + "'; did you mean '" + hint +
                         "'? (`utilsim policies` lists them)");
  }
  return Status::Ok();
}

Status FlagError(const Status& s) {
  // RunSpec field -> the option that sets it.
  static const std::pair<const char*, const char*> kFlags[] = {
      {"model", "--model"},
      {"comm_fraction", "--comm-fraction"},
      {"sharing", "--sharing"},
      {"mps_thread_pct", "--mps-thread-pct"},
      {"cpu_alloc", "--cpu-alloc"},
      {"gpu_reserve", "--gpu-reserve"},
      {"host_scale", "--scale-host-requests"},
      {"mig", "--mig"},
      {"window", "--window"},
      {"warmup", "--warmup"},
      {"restart_cost", "--restart-cost"},
      {"checkpoint_interval", "--checkpoint-interval"},
      {"pass_interval", "--pass-interval"},
      {"sample_interval", "--sample-interval"},
      {"series", "--series"},
      {"horizon", "--horizon"},
      {"price_per_gpu_h", "--price"},
      {"power", "--power"},
      {"energy_price_per_kwh", "--energy-price"},
      {"power_off_after", "--power-off-after"},
      {"wake_delay", "--wake-delay"},
      {"power_caps", "--power-cap"},
      {"power_budget_w", "--power-budget"},
      {"rack_power_budget_w", "--rack-power-budget"},
      {"threads", "--threads"},
      {"policy", "--policy"},
  };
  const std::string& m = s.message();
  const size_t colon = m.find(": ");
  if (s.ok() || colon == std::string::npos) return s;
  for (const auto& [field, flag] : kFlags)
    if (m.compare(0, colon, field) == 0)
      return Status::Error(s.code(), std::string(flag) + m.substr(colon));
  return s;
}

int RunFlagsExit(const Status& s) { return s.code() == StatusCode::kRuntime ? 1 : 2; }

Result<RunSpec> ToRunSpec(const RunFlags& f, uint64_t seed) {
  RunSpec r;
  auto seconds = [](double v, const char* option, bool positive) -> Result<Micros> {
    auto m = FromSeconds(v);
    if (!m || m->us < 0 || (positive && m->us == 0))
      return Status::Error(
          StatusCode::kInvalidArgument,
          std::string(option) + ": expected seconds " + (positive ? "> 0" : ">= 0"));
    return *m;
  };
  auto model = ParseProgressModel(f.model);
  if (!model.ok()) return FlagError(model.status());
  r.model = model.value();
  r.comm_fraction = f.comm_fraction;
  auto sharing = ParseSharingMode(f.sharing, f.mps_thread_pct);
  if (!sharing.ok()) return sharing.status();
  r.sharing = sharing.value();
  r.mps_thread_pct = f.mps_thread_pct;
  auto cpu = ParseCpuAlloc(f.cpu_alloc);
  if (!cpu.ok()) return cpu.status().Prefixed("--cpu-alloc: ");
  r.cpu_alloc = cpu.value();
  if (!f.gpu_reserve.empty()) {
    auto g = ParseGpuReservation(f.gpu_reserve);
    if (!g.ok()) return g.status().Prefixed("--gpu-reserve: ");
    r.gpu_reserve = g.value();
  }
  if (!f.scale_host_requests.empty()) {
    auto h = ParseHostScale(f.scale_host_requests);
    if (!h.ok()) return h.status();
    r.host_scale = h.value();
  }
  if (!f.mig.empty()) {
    auto m = ParseMigSpec(f.mig);
    if (!m.ok()) return m.status();
    r.mig = m.value();
    auto t = ParseMigReconfig(f.mig_reconfig);
    if (!t.ok()) return t.status();
    r.mig.times = t.value();
    r.mig.drain = f.mig_drain;
  }
  auto window = ParseWindow(f.window);
  if (!window.ok()) return FlagError(window.status());
  r.window = window.value();
  auto series = ParseSeriesForm(f.series);
  if (!series.ok()) return FlagError(series.status());
  r.series = series.value();
  auto warmup = seconds(f.warmup_s, "--warmup", false);
  if (!warmup.ok()) return warmup.status();
  r.warmup = warmup.value();
  auto restart = seconds(f.restart_cost_s, "--restart-cost", false);
  if (!restart.ok()) return restart.status();
  r.restart_cost = restart.value();
  auto interval = seconds(f.sample_interval_s, "--sample-interval", true);
  if (!interval.ok()) return interval.status();
  r.sample_interval = interval.value();
  if (f.horizon_s >= 0) {
    auto h = seconds(f.horizon_s, "--horizon", false);
    if (!h.ok()) return h.status();
    r.horizon = h.value();
  }
  r.seed = seed;
  r.price_per_gpu_h = f.price_per_gpu_h;
  if (!f.power_file.empty()) {
    auto p = ReadPowerYaml(f.power_file);
    if (!p.ok()) return Status::Error(StatusCode::kRuntime, p.status().message());
    r.power = p.value();
  }
  if (f.pue >= 1) r.power.pue = f.pue;
  r.energy_price_per_kwh = f.energy_price;
  if (f.power_off_after_s >= 0) {
    auto p = seconds(f.power_off_after_s, "--power-off-after", false);
    if (!p.ok()) return p.status();
    r.power_off_after = p.value();
  }
  auto wake = seconds(f.wake_delay_s, "--wake-delay", false);
  if (!wake.ok()) return wake.status();
  r.wake_delay = wake.value();
  if (!f.power_cap.empty()) {
    auto caps = ParsePowerCaps(f.power_cap);
    if (!caps.ok())
      return FlagError(
          Status::Error(StatusCode::kInvalidArgument, "power_caps: " + caps.status().message()));
    r.power_caps = caps.value();
  }
  r.power_budget_w = f.power_budget_w;
  r.rack_power_budget_w = f.rack_power_budget_w;
  r.wait_detail = f.wait_detail;
  if (!f.events_file.empty()) {
    if (Status s = LoadClusterEvents(f.events_file, &r); !s.ok())
      return Status::Error(StatusCode::kRuntime, s.message());
  }
  auto pass = seconds(f.pass_interval_s, "--pass-interval", false);
  if (!pass.ok()) return pass.status();
  r.pass_interval = pass.value();
  if (f.checkpoint_interval_s > 0) {
    auto c = seconds(f.checkpoint_interval_s, "--checkpoint-interval", true);
    if (!c.ok()) return c.status();
    r.checkpoint_interval = c.value();
  }
  r.threads = f.threads;
  if (Status v = ValidateRunSpec(r); !v.ok()) return FlagError(v);
  return r;
}

}  // namespace utilsim::cli
