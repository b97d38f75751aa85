#include "utilsim/tools/cli.h"

#include "commands.h"
#include "plan_cmd.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <optional>
#include <iostream>
#include <sstream>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"
#include "utilsim/tools/console_table.h"
#include "utilsim/tools/csv_export.h"
#include "utilsim/tools/fgd_experiment.h"
#include "utilsim/tools/formats.h"
#include "utilsim/tools/host_scale.h"
#include "utilsim/tools/inputs.h"
#include "utilsim/tools/inspect.h"
#include "utilsim/tools/progress.h"
#include "utilsim/tools/output_path.h"
#include "utilsim/tools/report.h"
#include "utilsim/traces/canonical.h"
#include "utilsim/tools/result_store.h"
#include "utilsim/tools/runner.h"

namespace utilsim::tools {
namespace {

struct Options {
  InputOptions input;
  RunSettings run;
  std::string policy = "best-fit";
  std::vector<std::string> policies;
  std::string baseline;
  std::string profiles;
  std::string out;
  std::string csv_dir;
  std::string report;  // compare --report: the HTML report to write
};

constexpr char kDbFormat[] = "a SQLite results database";
constexpr char kReportFormat[] =
    "compare's HTML report (standard output carries its summary; `utilsim report DB -o -` "
    "prints one)";

// What an output of the command may not replace: every file it reads
// (output_path.h). The writers check their path against it again just
// before the rename.
OutputGuard Guard(const Options& o, const std::string& option, bool allow_stdout = false,
                  const std::string& format = "") {
  OutputGuard g{option, InputPaths(o.input), allow_stdout, format};
  if (!o.profiles.empty()) g.inputs.push_back({"--profiles", o.profiles});
  return g;
}

// Fails early, before a long run, if `path` could not be written or would
// replace an input, a link, a device, a FIFO or a folder (CheckOutput).
Status CheckWritable(const Options& o, const std::string& path, const std::string& option,
                     bool allow_stdout = false, const std::string& format = "") {
  return CheckOutput(path, Guard(o, option, allow_stdout, format));
}

// Options of the trace readers and of utilization sources; shared by run,
// compare, inspect and convert.
void AddReaderOptions(CLI::App* cmd, Options& o) {
  cmd->add_option("--nodes", o.input.reader.nodes,
                  "aaic: nodes of 8 GPUs in the cluster (default 50, the installed count)");
  cmd->add_option("--gpus-per-node", o.input.reader.gpus_per_node,
                  "itp, swf: GPUs per node, for splitting large jobs into gangs")
      ->capture_default_str();
  cmd->add_option("--pending", o.input.reader.pending,
                  "openb: pods never scheduled: run (from creation to deletion) or skip")
      ->capture_default_str();
  cmd->add_option("--swf-unit", o.input.reader.swf_unit,
                  "swf: what a processor is: gpu or cpu")
      ->capture_default_str();
  cmd->add_option("--node-list", o.input.reader.node_list,
                  "openb: node list CSV (default: openb_node_list_all_node.csv beside the pods)");
  cmd->add_option("--telemetry", o.input.telemetry,
                  "GPU telemetry joined to the jobs by pod/job id or host and time window "
                  "(comma-separated files; docs/formats/telemetry.md)");
  cmd->add_option("--telemetry-format", o.input.telemetry_format,
                  "Telemetry format (default: detected; `utilsim formats` lists them)");
  cmd->add_option("--telemetry-offset", o.input.telemetry_offset_s,
                  "Seconds added to telemetry times to align them with the trace's times");
  cmd->add_option("--util-library", o.input.util_library,
                  "Telemetry whose series become a profile library, attached by a seeded "
                  "class rule to jobs without measured utilization (docs/trace-formats.md)");
  cmd->add_option("--util-library-format", o.input.util_library_format,
                  "Format of --util-library (default: detected)");
  cmd->add_option("--attach", o.input.attach,
                  "What the library gives a job: series (its shape, stretched to the job) or mean")
      ->capture_default_str();
}

void AddInputOptions(CLI::App* cmd, Options& o,
                     const std::string& out_help =
                         "Results database to write (SQLite, docs/results.md); written atomically") {
  cmd->add_option("--trace", o.input.trace,
                  "Job trace file, or builtin:demo / builtin:bench (the seeded synthetic "
                  "workload, docs/workloads.md)")
      ->capture_default_str();
  cmd->add_option("--format", o.input.format,
                  "Trace format (default: inferred from the file). `utilsim formats` lists them");
  cmd->add_option("--cluster", o.input.cluster,
                  "Cluster spec, YAML (docs/trace-format.md); required for canonical traces");
  cmd->add_option("--seed", o.input.seed,
                  "Seed for every random stream (synthetic jobs, the random placement)")
      ->capture_default_str();
  cmd->add_option("--jobs", o.input.jobs, "Built-in workloads only: number of jobs to generate");
  AddReaderOptions(cmd, o);
  cmd->add_option("--profiles", o.profiles, "YAML file of placement profiles (docs/policies.md)");
  cmd->add_option("--out", o.out, out_help);
  cmd->add_option("--csv", o.csv_dir, "Also export runs.csv, jobs.csv, samples.csv to this folder");
  cmd->add_option("--sample-interval", o.run.sample_interval_s,
                  "Seconds of simulated time between cluster samples")
      ->capture_default_str();
  cmd->add_option("--horizon", o.run.horizon_s,
                  "Stop at this simulated time, in seconds from the first submission "
                  "(default: run until every job ends)");
  cmd->add_option("--window", o.run.window,
                  "Period the allocation/utilization figures measure: arrivals = first to last "
                  "submission (steady load, no drain tail), full = first submission to last finish")
      ->capture_default_str();
  cmd->add_option("--warmup", o.run.warmup_s,
                  "Seconds skipped at the start of the arrivals window (cluster filling up)")
      ->capture_default_str();
  cmd->add_option("--restart-cost", o.run.restart_cost_s,
                  "Seconds of work a preempted job loses (checkpoint interval + restart), for "
                  "preemptive policies (tiresias, priority-preempt)")
      ->capture_default_str();
  cmd->add_option("--comm-fraction", o.run.comm_fraction,
                  "Share of a multi-GPU job's recorded runtime spent communicating; that share "
                  "slows by the bandwidth lost when the job is placed further apart than it was "
                  "recorded (NVLink > PCIe > NIC > oversubscribed uplinks; docs/topology.md). "
                  "0 switches communication stalls off")
      ->capture_default_str();
  cmd->add_option("--model", o.run.model,
                  "Progress model: whole-gpu (GPU speed and communication only), stall-serial or "
                  "stall-overlapped (busy, CPU input, storage, communication and fixed time, each "
                  "scaled by what the job gets; input added to or pipelined with compute). "
                  "docs/model.md")
      ->capture_default_str();
  cmd->add_option("--sharing", o.run.sharing,
                  "GPU sharing for fractional (milli-GPU) requests: fractional (shares as asked, "
                  "no interference), exclusive (every fractional request rounded up to a whole "
                  "GPU), timeslice or mps (shares as asked; jobs on one GPU slow each other by "
                  "the interference model fitted on measured pairs). docs/sharing.md")
      ->capture_default_str();
  cmd->add_option("--mps-thread-pct", o.run.mps_thread_pct,
                  "With --sharing mps: the MPS daemon's active-thread percentage per client, "
                  "1..100")
      ->capture_default_str();
  cmd->add_option("--mig", o.run.mig,
                  "MIG: right-size[:TOL] runs on the cluster's static MIG layouts (node group "
                  "key mig): each single-GPU job with measured utilization on the smallest "
                  "profile whose GPU memory and per-instance share of the node's CPU and memory "
                  "hold it and whose predicted speed is >= TOL (default 0.9) of a whole GPU; "
                  "multi-GPU jobs keep 7g. dynamic[:TOL]: the same sizing (without the "
                  "per-instance CPU share), but the declared layouts are only the start: a "
                  "repartitioning planner creates and destroys instances as the queue needs "
                  "them, draining busy ones when that is expected to pay off. Results are "
                  "derived. docs/mig.md");
  cmd->add_option("--mig-reconfig", o.run.mig_reconfig,
                  "With --mig dynamic: CREATE[,DESTROY[,FIXED]] seconds a layout change takes "
                  "per instance created, per instance destroyed, and once per change")
      ->capture_default_str();
  cmd->add_flag("--mig-no-drain{false}", o.run.mig_drain,
                "With --mig dynamic: never drain busy instances to repartition a GPU");
  cmd->add_option("--price", o.run.price_per_gpu_h,
                  "Price of one GPU-hour in USD, for the cost of idle allocated GPUs")
      ->capture_default_str();
}

// CPU/memory allocation and GPU reservation, applied to every policy of a
// run (docs/policies.md "Co-resource allocation"), and the host-request
// scaling of the workload (host_scale.h).
void AddCoResourceOptions(CLI::App* cmd, Options& o) {
  cmd->add_option("--cpu-alloc", o.run.cpu_alloc,
                  "CPU and memory each job gets: request (as the trace asks), proportional "
                  "(the node's CPU and memory per GPU x the job's GPUs), measured (the CPU its "
                  "profile shows it needs when that fits, else the proportional share)")
      ->capture_default_str();
  cmd->add_option("--gpu-reserve", o.run.gpu_reserve,
                  "CORES[,GIB]: per whole-free GPU, CPU cores (and GiB of memory) on every GPU "
                  "node that CPU-only jobs may not take, e.g. 4 or 4,16 (default: none)");
  cmd->add_option("--scale-host-requests", o.run.scale_host_requests,
                  "CPU[,MEM]: multiply every job's host CPU and memory request by these factors "
                  "(> 0; one number scales both) before the run and MIG right-sizing, rounded "
                  "to nearest, a request > 0 kept >= 1; noted in the results. E.g. 0.125 "
                  "(docs/mig.md, the MIG study)");
}

Status Execute(Options& o, std::vector<std::string> policies, const std::string& baseline,
               const std::string& title) {
  if (Status s = CheckWritable(o, o.out, "--out", false, kDbFormat); !s.ok()) return s;
  if (Status s = CheckWritable(o, o.report, "--report", false, kReportFormat); !s.ok()) return s;
  if (Status s = CheckCsvExport(o.csv_dir, Guard(o, "--csv")); !s.ok()) return s;
  {
    std::vector<NamedPath> outs = {{"--out", o.out}, {"--report", o.report}};
    if (!o.csv_dir.empty())
      for (const auto& f : CsvExportPaths(o.csv_dir)) outs.push_back({"--csv", f});
    if (Status s = CheckDistinctOutputs(outs); !s.ok()) return s;
  }
  PolicyRegistry reg = BuiltinPolicies();
  if (!o.profiles.empty())
    if (Status s = LoadProfiles(o.profiles, &reg); !s.ok()) return s;
  for (const auto& p : policies) {
    auto s = reg.Make(p);
    if (!s.ok()) return Status::Error("--policy: " + s.status().message());
  }
  size_t base = 0;
  if (!baseline.empty()) {
    auto it = std::find(policies.begin(), policies.end(), baseline);
    if (it == policies.end())
      return Status::Error("--baseline: '" + baseline + "' is not one of --policies");
    base = static_cast<size_t>(it - policies.begin());
  }
  // Shift the input's seed into the runs so both are recorded.
  o.run.seed = o.input.seed;
  auto in = LoadInputs(o.input);
  if (!in.ok()) return in.status();
  // Horizon is given relative to the first submission.
  if (o.run.horizon_s >= 0 && !in.value().workload.jobs.empty())
    o.run.horizon_s += in.value().workload.jobs.front().submit.seconds();
  // A progress bar on stderr, only when it is a terminal (docs/planning.md).
  auto bar = ProgressBar::ForStderr(title.substr(8, title.find(':') - 8));  // "utilsim run: x"
  o.run.progress = bar ? bar->board() : nullptr;
  auto results = RunPolicies(in.value(), reg, policies, o.run);
  bar.reset();
  o.run.progress = nullptr;
  if (!results.ok()) return results.status();
  const auto& runs = results.value();
  std::cout << title << "\n"
            << "workload: " << in.value().workload.source << " (" << in.value().workload.jobs.size()
            << " jobs), cluster: " << in.value().cluster.name << " ("
            << in.value().cluster.total_gpus() << " GPUs on " << in.value().cluster.total_nodes()
            << " nodes), seed " << o.input.seed << "\n\n";
  std::cout << (runs.size() == 1 ? FormatSummary(runs[0]) : FormatComparison(runs, base));
  if (!runs.empty()) {
    const Summary& s0 = runs[0].summary;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "\nAllocation, utilization and GPU-hours cover the %s window %.1f h .. %.1f h "
                  "(%.1f h); makespan covers every job.\n",
                  o.run.window.c_str(), s0.window_start.seconds() / 3600,
                  s0.window_end.seconds() / 3600,
                  (s0.window_end - s0.window_start).seconds() / 3600);
    std::cout << buf;
  }
  if (!o.out.empty()) {
    if (Status s = WriteResults(runs, o.out, Guard(o, "--out")); !s.ok()) return s;
    std::cout << "\nResults written to " << o.out
              << " (tables runs, jobs, samples; schema in docs/results.md)\n";
  }
  if (!o.csv_dir.empty()) {
    if (Status s = ExportCsv(runs, o.csv_dir, Guard(o, "--csv")); !s.ok()) return s;
    std::cout << "CSV written to " << o.csv_dir << "/{runs,jobs,samples}.csv\n";
  }
  if (!o.report.empty()) {
    if (Status s = WriteReport(runs, o.report, {}, Guard(o, "--report", false, kReportFormat));
        !s.ok())
      return s;
    std::cout << "Report written to " << o.report << " (HTML; docs/report.md)\n";
  }
  if (runs.size() > 1) {
    // Notes shared by every run (input warnings, attachment rules) once; the
    // rest per run.
    auto split = [](const std::string& notes) {
      std::vector<std::string> parts;
      size_t pos = 0;
      while (pos < notes.size()) {
        size_t end = notes.find("; ", pos);
        if (end == std::string::npos) end = notes.size();
        if (end > pos) parts.push_back(notes.substr(pos, end - pos));
        pos = end + 2;
      }
      return parts;
    };
    const std::vector<std::string> first = split(runs[0].meta.notes);
    for (const auto& n : first) {
      bool everywhere = true;
      for (const auto& r : runs) everywhere &= r.meta.notes.find(n) != std::string::npos;
      if (everywhere) std::cout << "note: " << n << "\n";
    }
    for (const auto& r : runs)
      for (const auto& n : split(r.meta.notes))
        if (std::find(first.begin(), first.end(), n) == first.end() ||
            std::any_of(runs.begin(), runs.end(), [&](const RunResult& x) {
              return x.meta.notes.find(n) == std::string::npos;
            }))
          std::cout << "note (" << r.meta.label << "): " << n << "\n";
  }
  return Status::Ok();
}

Status InspectCommand(Options& o) {
  const auto start = std::chrono::steady_clock::now();
  o.input.require_cluster = false;
  auto in = LoadInputs(o.input);
  if (!in.ok()) return in.status();
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  traces::TraceData data = in.value().trace_info;
  data.workload = std::move(in.value().workload);
  std::optional<ClusterSpec> cluster;
  if (!in.value().cluster.groups.empty()) cluster = in.value().cluster;
  InspectResult r = Inspect(data, cluster, in.value().format);
  std::cout << r.text;
  for (const auto& n : in.value().notes)
    if (n.rfind("input: ", 0) != 0) std::cout << "note: " << n << "\n";
  char buf[160];
  std::snprintf(buf, sizeof buf, "\nread in %.2f s (%.0f rows/s, %.1f MB/s)\n", secs,
                static_cast<double>(data.rows_read) / std::max(secs, 1e-9),
                static_cast<double>(data.bytes_read) / 1e6 / std::max(secs, 1e-9));
  std::cout << buf;
  if (r.fatal()) return Status::Error("inspect: fatal problems found (see findings above)");
  return Status::Ok();
}

Status ConvertCommand(Options& o, const std::string& cluster_out) {
  if (o.out.empty()) return Status::Error("--out: required (the jobs CSV to write)");
  // "-" writes to standard output; the messages then go to stderr.
  auto check = [&] {
    if (Status s = CheckWritable(o, o.out, "--out", true); !s.ok()) return s;
    if (Status s = CheckWritable(o, cluster_out, "--cluster-out", true); !s.ok()) return s;
    return CheckDistinctOutputs({{"--out", o.out}, {"--cluster-out", cluster_out}});
  };
  if (Status s = check(); !s.ok()) return s;
  std::ostream& msg = (o.out == "-" || cluster_out == "-") ? std::cerr : std::cout;
  o.input.require_cluster = false;
  auto in = LoadInputs(o.input);
  if (!in.ok()) return in.status();
  if (!cluster_out.empty() && in.value().cluster.groups.empty())
    return Status::Error("--cluster-out: format " + in.value().format +
                         " does not describe the cluster");
  if (Status s = check(); !s.ok()) return s;  // again, just before writing
  Status w = o.out == "-" ? traces::WriteJobsCsv(in.value().workload, stdout, "--out: -")
                          : traces::WriteJobsCsv(in.value().workload, o.out);
  if (!w.ok()) return w;
  msg << "wrote " << in.value().workload.jobs.size() << " jobs to " << o.out << "\n";
  if (!cluster_out.empty()) {
    if (cluster_out == "-") {
      const std::string yaml = traces::FormatClusterYaml(in.value().cluster);
      std::fwrite(yaml.data(), 1, yaml.size(), stdout);
      if (std::fflush(stdout) != 0) return Status::Error("--cluster-out: -: write error");
    } else if (Status s = traces::WriteClusterYaml(in.value().cluster, cluster_out); !s.ok()) {
      return s;
    }
    msg << "wrote the cluster (" << in.value().cluster.total_nodes() << " nodes, "
        << in.value().cluster.total_gpus() << " GPUs) to " << cluster_out << "\n";
  }
  for (const auto& n : in.value().notes) msg << "note: " << n << "\n";
  return Status::Ok();
}

std::vector<std::string> SplitList(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::stringstream ss(item);
    std::string part;
    while (std::getline(ss, part, ','))
      if (!part.empty()) out.push_back(part);
  }
  return out;
}

}  // namespace

int RunMain(int argc, char** argv) {
  CLI::App app{
      "utilsim " + std::string(UtilsimVersion()) +
      ": a utilization-aware GPU-cluster scheduler simulator.\n"
      "Replays a job trace, with each job's measured GPU utilization, through a\n"
      "discrete-event simulation under a packing/queueing policy, and reports queue\n"
      "time, GPU allocation, effective (busy) utilization and allocated-but-idle\n"
      "GPU-hours. Units: times in seconds, GPU shares in milli-GPU (1000 = 1 GPU)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(UtilsimVersion()));
  Options o;

  CLI::App* run = app.add_subcommand("run", "Simulate one policy on a trace");
  AddInputOptions(run, o);
  AddCoResourceOptions(run, o);
  run->add_option("--policy", o.policy,
                  "Policy: PLACEMENT, QUEUE+PLACEMENT, as-recorded or a profile "
                  "(`utilsim policies` lists them)")
      ->capture_default_str();

  CLI::App* cmp = app.add_subcommand(
      "compare", "Simulate several policies on the same trace in parallel and compare them");
  AddInputOptions(cmp, o);
  AddCoResourceOptions(cmp, o);
  cmp->add_option("--policies", o.policies, "Comma-separated policies to compare")
      ->required()
      ->delimiter(',');
  cmp->add_option("--baseline", o.baseline,
                  "Policy the others are compared against (default: the first)");
  cmp->add_option("--threads", o.run.threads, "Parallel runs (default: one per core)");
  cmp->add_option("--report", o.report,
                  "Also write the HTML report (charts and tables; docs/report.md) to this file");

  // utilsim report (docs/report.md).
  CLI::App* rep = app.add_subcommand(
      "report",
      "Write a self-contained HTML report (charts and tables comparing the runs, one per "
      "policy) of a results database; opens offline");
  std::string rep_db, rep_out;
  rep->add_option("results", rep_db, "Results database written by run, compare or demo --out")
      ->required();
  rep->add_option("-o,--out", rep_out, "HTML file to write; written atomically")->required();

  CLI::App* pol = app.add_subcommand("policies", "List queue and placement policies and profiles");
  pol->add_option("--profiles", o.profiles, "Also list the profiles of this YAML file");

  app.add_subcommand("formats", "List the trace and telemetry formats this version reads");

  CLI::App* insp = app.add_subcommand(
      "inspect",
      "Report what a trace contains and what is wrong with it: counts, time span, size, run time, "
      "utilization and recorded-wait distributions, demand against capacity, findings");
  std::string insp_trace;
  insp->add_option("trace", insp_trace, "Trace file(s), comma-separated, or a folder");
  AddInputOptions(insp, o);

  CLI::App* val = app.add_subcommand(
      "validate",
      "Replay a trace that recorded its schedule under a policy approximating the recorded "
      "scheduler and compare simulated with recorded waits (MAE, rank correlation, daily "
      "correlation, quantiles), at one or several cluster sizes");
  AddInputOptions(val, o);
  std::string val_policy = "easy-backfill+first-fit";
  std::vector<int> nodes_list;
  val->add_option("--policy", val_policy, "Policy approximating the recorded scheduler")
      ->capture_default_str();
  val->add_option("--nodes-list", nodes_list,
                  "Cluster sizes (nodes) to try, comma-separated, for single-group clusters; "
                  "reports each (capacity sensitivity)")
      ->delimiter(',');

  CLI::App* fgd = app.add_subcommand(
      "fgd-experiment",
      "The FGD paper's packing experiment (arrival-only): pods drawn from the trace arrive and "
      "are placed with no departures until their GPU request reaches --max-arrived x capacity; "
      "reports GPU allocation ratio and fragmentation per placement policy, over seeds");
  AddInputOptions(fgd, o);
  FgdExperimentOptions fgd_opt;
  fgd_opt.policies = {"random", "tetris", "gpu-clustering", "gpu-packing", "best-fit", "fgd"};
  fgd->add_option("--policies", fgd_opt.policies, "Placement policies, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  fgd->add_option("--seeds", fgd_opt.seeds, "Runs per policy (seeds 1..N)")->capture_default_str();
  fgd->add_option("--max-arrived", fgd_opt.max_arrived,
                  "Stop when the arrived GPU request reaches this share of capacity")
      ->capture_default_str();

  CLI::App* conv = app.add_subcommand(
      "convert", "Write a trace (any format, with attached utilization) as a canonical jobs CSV "
                 "and, where known, the cluster as YAML");
  std::string cluster_out;
  AddInputOptions(conv, o, "Canonical jobs CSV to write (docs/trace-format.md); written atomically");
  conv->add_option("--cluster-out", cluster_out, "Write the cluster spec (YAML) here");

  CLI::App* demo = app.add_subcommand(
      "demo",
      "Compare first-fit, best-fit and worst-fit packing (fifo-skip queue) on the built-in "
      "synthetic workload: 64 nodes x 8 GPUs, 20,000 jobs drawn from published cluster "
      "statistics (docs/workloads.md)");
  o.out = "";
  std::string demo_out = "utilsim-demo.db";
  demo->add_option("--out", demo_out, "Results database to write")->capture_default_str();
  demo->add_option("--seed", o.input.seed, "Seed of the synthetic workload")->capture_default_str();
  demo->add_option("--jobs", o.input.jobs, "Number of jobs (default 20000)");

  // utilsim plan / diagnose (docs/planning.md, docs/diagnose.md; plan_cmd.cc).
  CLI::App* plan = app.add_subcommand("plan", kPlanHelp);
  AddInputOptions(plan, o, "Results database of each policy's chosen size (docs/results.md)");
  AddCoResourceOptions(plan, o);
  PlanCliOptions plan_opt;
  AddPlanOptions(plan, plan_opt);
  CLI::App* diag = app.add_subcommand("diagnose", kDiagnoseHelp);
  AddInputOptions(diag, o, "With --trace: also write the run's results database");
  AddCoResourceOptions(diag, o);
  DiagnoseCliOptions diag_opt;
  AddDiagnoseOptions(diag, diag_opt);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  // Checked before any input is loaded or plan candidate run.
  if (!o.run.scale_host_requests.empty())
    if (auto f = ParseHostScale(o.run.scale_host_requests); !f.ok()) {
      std::cerr << "utilsim: error: " << f.status().message() << "\n";
      return 1;
    }
  Status st;
  if (*run) {
    st = Execute(o, {o.policy}, "", "utilsim run: " + o.policy);
  } else if (*cmp) {
    std::vector<std::string> list = SplitList(o.policies);
    st = Execute(o, list, o.baseline, "utilsim compare");
  } else if (*pol) {
    PolicyRegistry reg = BuiltinPolicies();
    if (!o.profiles.empty()) st = LoadProfiles(o.profiles, &reg);
    if (st.ok()) {
      std::cout << "Policies (name it with --policy PLACEMENT, --policy QUEUE+PLACEMENT or a "
                   "profile name):\n";
      std::string kind;
      for (const auto& p : reg.List()) {
        if (p.kind != kind) std::cout << "\n" << (kind = p.kind) << ":\n";
        std::cout << "  " << p.name << std::string(p.name.size() < 22 ? 22 - p.name.size() : 1, ' ')
                  << "v" << p.version << "  " << p.description << "\n";
      }
    }
  } else if (app.got_subcommand("formats")) {
    std::cout << "Trace formats (--format; detected from the file when left out):\n";
    for (const auto& [name, desc] : TraceFormatList())
      std::cout << "  " << name << std::string(name.size() < 16 ? 16 - name.size() : 1, ' ')
                << desc << "\n";
    std::cout << "\nTelemetry formats (--telemetry-format, --util-library-format):\n";
    for (const auto& [name, desc] : TelemetryFormatList())
      std::cout << "  " << name << std::string(name.size() < 16 ? 16 - name.size() : 1, ' ')
                << desc << "\n";
    std::cout << "\nField mappings and units: docs/trace-formats.md\n";
  } else if (*insp) {
    if (!insp_trace.empty()) o.input.trace = insp_trace;
    st = InspectCommand(o);
  } else if (*plan || *diag) {
    const SharedCliOptions shared{&o.input, &o.run, o.profiles, o.out, o.csv_dir,
                                  (*plan ? plan : diag)->get_option("--trace")->count() > 0};
    st = *plan ? PlanCommand(shared, plan_opt) : DiagnoseCommand(shared, diag_opt);
  } else if (*val) {
    o.run.seed = o.input.seed;
    st = ValidateCommand(o.input, o.run, val_policy, nodes_list, o.out);
  } else if (*fgd) {
    o.input.require_cluster = true;
    auto in = LoadInputs(o.input);
    if (!in.ok()) {
      st = in.status();
    } else {
      auto curves = RunFgdExperiment(in.value().workload, in.value().cluster, fgd_opt);
      if (!curves.ok()) {
        st = curves.status();
      } else {
        std::cout << "utilsim fgd-experiment: " << in.value().workload.source << " on "
                  << in.value().cluster.total_gpus() << " GPUs, " << fgd_opt.seeds
                  << " seeds, arrival-only (no departures)\n\n"
                  << FormatFgdTable(curves.value(), {1.0, fgd_opt.max_arrived});
      }
    }
  } else if (*conv) {
    st = ConvertCommand(o, cluster_out);
  } else if (*rep) {
    st = ReportFromDatabase(rep_db, rep_out, {}, OutputGuard{"-o", {}, true, ""});
    if (st.ok())
      (rep_out == "-" ? std::cerr : std::cout) << "Report written to " << rep_out << "\n";
  } else if (*demo) {
    o.input.trace = "builtin:demo";
    o.out = demo_out;
    st = Execute(o, {"fifo-skip+first-fit", "fifo-skip+best-fit", "fifo-skip+worst-fit"},
                 "fifo-skip+first-fit",
                 "utilsim demo: packing policies on the built-in synthetic workload");
  }
  if (!st.ok()) {
    std::cerr << "utilsim: error: " << st.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace utilsim::tools
