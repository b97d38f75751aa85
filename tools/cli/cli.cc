#include "cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli_checks.h"
#include "cli_options.h"
#include "cli_usage.h"
#include "cmd_exporter.h"
#include "commands.h"
#include "console_table.h"
#include "plan_cmd.h"
#include "utilsim/analysis/fgd_compare.h"
#include "utilsim/analysis/fgd_experiment.h"
#include "utilsim/analysis/host_scale.h"
#include "utilsim/analysis/inspect.h"
#include "utilsim/analysis/memory_guard.h"
#include "utilsim/analysis/progress.h"
#include "utilsim/analysis/report.h"
#include "utilsim/analysis/runner.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/io/formats.h"
#include "utilsim/io/inputs.h"
#include "utilsim/io/output_path.h"
#include "utilsim/policies/params.h"
#include "utilsim/policies/registry.h"
#include "utilsim/results/csv_export.h"
#include "utilsim/results/result_store.h"
#include "utilsim/results/result_writer.h"
#include "utilsim/traces/canonical.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim::cli {
namespace {

using Options = CliOptions;

constexpr char kDbFormat[] = "a SQLite results database";
constexpr char kReportFormat[] =
    "compare's HTML report (standard output carries its summary; `utilsim report DB -o -` "
    "prints one)";

// What an output of the command may not replace: every file it reads
// (output_path.h). The writers check their path against it again just
// before the rename.
OutputGuard Guard(const Options& o, const std::string& option, bool allow_stdout = false,
                  const std::string& format = "") {
  return OutputGuard{option, InputPaths(o.input, o.profiles), allow_stdout, format};
}

// Fails early, before a long run, if `path` could not be written or would
// replace an input, a link, a device, a FIFO or a folder (CheckOutput).
Status CheckWritable(const Options& o, const std::string& path, const std::string& option,
                     bool allow_stdout = false, const std::string& format = "") {
  return CheckOutput(path, Guard(o, option, allow_stdout, format));
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
  if (!o.report.empty())
    if (Status s = CheckReportBuilt(); !s.ok()) return Status::Error("--report: " + s.message());
  PolicyRegistry reg = BuiltinPolicies();
  if (!o.profiles.empty())
    if (Status s = LoadProfiles(o.profiles, &reg); !s.ok()) return s;
  // Policy names and --baseline were checked after parsing (RunMain).
  const size_t base =
      baseline.empty() ? 0
                       : static_cast<size_t>(std::find(policies.begin(), policies.end(), baseline) -
                                             policies.begin());
  // The input's seed is the runs' seed too, so both are recorded.
  auto parsed = ToRunSpec(o.run, o.input.seed);
  if (!parsed.ok()) return parsed.status();
  RunSpec spec = parsed.value();
  const int64_t runs_n = static_cast<int64_t>(policies.size());
  const std::string runs_label = std::to_string(runs_n) + (runs_n == 1 ? " policy" : " policies");
  const MemoryLimit limit = ResolveMemoryLimit(o.max_memory);
  o.input.before_generate = GuardBeforeGenerate(limit, runs_n, runs_label);
  auto in = LoadInputs(o.input);
  if (!in.ok()) return in.status();
  if (Status s = CheckMemory(DemandOfRuns(in.value(), spec, runs_n, runs_label), limit); !s.ok())
    return s;
  // Progress on stderr by --progress (docs/planning.md).
  auto bar = ProgressBar::ForStderr(title.substr(8, title.find(':') - 8),  // "utilsim run: x"
                                    ParseProgressMode(o.progress).value());
  spec.progress = bar ? bar->board() : nullptr;
  // One run whose rows go nowhere but the database: they stream into it
  // while the run goes (ResultWriter), and are never all held in memory.
  std::unique_ptr<ResultWriter> writer;
  if (policies.size() == 1 && !o.out.empty() && o.csv_dir.empty() && o.report.empty()) {
    auto opened = ResultWriter::Open(o.out, Guard(o, "--out"));
    if (!opened.ok()) return opened.status();
    writer = std::move(opened).value();
    spec.sink = writer.get();
    spec.keep_rows = false;
  }
  auto results = RunPolicies(in.value(), reg, policies, spec);
  bar.reset();
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
    if (Status s = writer ? writer->Commit(&runs[0]) : WriteResults(runs, o.out, Guard(o, "--out"));
        !s.ok())
      return s;
    std::cout << "\nResults written to " << o.out
              << " (tables runs, jobs, samples, waits; schema in docs/results.md)\n";
  }
  if (!o.csv_dir.empty()) {
    if (Status s = ExportCsv(runs, o.csv_dir, Guard(o, "--csv")); !s.ok()) return s;
    std::cout << "CSV written to " << o.csv_dir << "/{runs,jobs,samples,waits,change_points}.csv\n";
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

// utilsim fgd-experiment: progress counts placed pods.
struct FgdCliOptions {
  std::string arrivals = "simulator", node_order = "random", csv, report;
  std::vector<std::string> compare;
};

Status FgdCommand(Options& o, FgdExperimentOptions opt, const FgdCliOptions& cli,
                  ProgressMode mode) {
  if (cli.arrivals == "sample")
    opt.arrivals = FgdArrivals::kSample;
  else if (cli.arrivals != "simulator")
    return Status::Error("--arrivals: expected simulator or sample, got '" + cli.arrivals + "'");
  if (cli.node_order == "index")
    opt.node_order = FgdNodeOrder::kIndex;
  else if (cli.node_order != "random")
    return Status::Error("--node-order: expected random or index, got '" + cli.node_order + "'");
  // The paper's cluster: the GPU nodes only (the authors' input script copies
  // openb_node_list_gpu_node.csv into every experiment).
  std::string cluster_note;
  if (o.input.reader.node_list.empty() && o.input.cluster.empty() &&
      o.input.trace.find(',') == std::string::npos && o.input.trace.rfind("builtin", 0) != 0) {
    const std::string gpu =
        (std::filesystem::path(o.input.trace).parent_path() / "openb_node_list_gpu_node.csv")
            .string();
    if (std::filesystem::exists(gpu)) {
      o.input.reader.node_list = gpu;
      cluster_note = "cluster: the FGD paper's, the GPU nodes of " + gpu +
                     " (--node-list openb_node_list_all_node.csv adds the CPU-only nodes)";
    }
  }
  if (Status s = CheckWritable(o, cli.csv, "--csv"); !s.ok()) return s;
  if (Status s = CheckWritable(o, cli.report, "--report", false, "the HTML report"); !s.ok())
    return s;
  if (Status s = CheckDistinctOutputs({{"--csv", cli.csv}, {"--report", cli.report}}); !s.ok())
    return s;
  if (!cli.report.empty())
    if (Status s = CheckReportBuilt(); !s.ok()) return Status::Error("--report: " + s.message());
  o.input.require_cluster = true;
  auto in = LoadInputs(o.input);
  if (!in.ok()) return in.status();
  std::vector<FgdPublished> published;
  const std::string workload = std::filesystem::path(in.value().workload.source).stem().string();
  for (const std::string& f : cli.compare) {
    auto pub = ReadFgdPublished(f, workload);
    if (!pub.ok()) return Status::Error("--compare-with: " + pub.status().message());
    published.push_back(std::move(pub).value());
  }
  auto bar = ProgressBar::ForStderr("fgd-experiment", mode);
  opt.progress = bar ? bar->board() : nullptr;
  auto curves = RunFgdExperiment(in.value().workload, in.value().cluster, opt);
  bar.reset();
  if (!curves.ok()) return curves.status();
  std::cout << "utilsim fgd-experiment: " << in.value().workload.source << " on "
            << in.value().cluster.total_gpus() << " GPUs, " << opt.seeds << " seeds ("
            << opt.first_seed << ".." << opt.first_seed + static_cast<uint64_t>(opt.seeds) - 1
            << "), arrival-only (no departures), arrivals " << cli.arrivals << ", node order "
            << cli.node_order << "\n";
  if (!cluster_note.empty()) std::cout << cluster_note << "\n";
  std::cout << "\n" << FormatFgdTable(curves.value(), {1.0, opt.max_arrived});
  for (const FgdPublished& pub : published) {
    auto cmp = CompareFgd(curves.value(), pub);
    if (!cmp.ok()) return Status::Error("--compare-with: " + cmp.status().message());
    std::cout << "\n" << FormatFgdComparison(cmp.value(), pub.path);
  }
  if (!cli.csv.empty()) {
    if (Status s = traces::WriteFileAtomically(cli.csv, FgdCurvesCsv(curves.value())); !s.ok())
      return s;
    std::cout << "\nwrote the curves (policy, seed, 1 % steps) to " << cli.csv << "\n";
  }
  if (!cli.report.empty()) {
    const std::string sub = in.value().workload.source + " on " +
                            std::to_string(in.value().cluster.total_gpus()) + " GPUs, " +
                            std::to_string(opt.seeds) + " seeds, arrivals " + cli.arrivals +
                            ", node order " + cli.node_order;
    if (Status s = WriteFgdReport(curves.value(), published, sub, cli.report,
                                  Guard(o, "--report", false, "the HTML report"));
        !s.ok())
      return s;
    std::cout << "wrote the report to " << cli.report << "\n";
  }
  return Status::Ok();
}

}  // namespace

int RunMain(int argc, char** argv) {
  CLI::App app{"utilsim " + std::string(UtilsimVersion()) +
               ": a utilization-aware GPU-cluster scheduler simulator.\n"
               "Replays a job trace, with each job's measured GPU utilization, through a\n"
               "discrete-event simulation under a packing/queueing policy, and reports queue\n"
               "time, GPU allocation, effective (busy) utilization and allocated-but-idle\n"
               "GPU-hours. Units: times in seconds, GPU shares in milli-GPU (1000 = 1 GPU).\n"
               "Exit codes: 0 success, 1 a runtime error, 2 a usage error."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(UtilsimVersion()));
  Options o;
  const std::string db_help =
      "Results database to write (SQLite, docs/results.md); written atomically";
  // The option groups of a simulation, in help order: Input and Cluster,
  // then the subcommand's Policy options, then Model and Run, then Output.
  auto inputs = [&](CLI::App* cmd) {
    AddInputOptions(cmd, o);
    AddClusterOptions(cmd, o);
  };
  auto model_run = [&](CLI::App* cmd) {
    AddModelOptions(cmd, o);
    AddRunOptions(cmd, o);
  };

  CLI::App* run = app.add_subcommand("run", "Simulate one policy on a trace");
  inputs(run);
  run->add_option("--policy", o.policy,
                  "Policy: PLACEMENT, QUEUE+PLACEMENT, as-recorded or a profile "
                  "(`utilsim policies` lists them)")
      ->capture_default_str()
      ->group(kPolicyGroup);
  AddProfilesOption(run, o);
  AddCoResourceOptions(run, o);
  model_run(run);
  AddOutputOptions(run, o,
                   db_help +
                       "; without --csv and --report the rows stream into it while the run "
                       "goes (never all in memory)",
                   /*csv=*/true);

  CLI::App* cmp = app.add_subcommand(
      "compare", "Simulate several policies on the same trace in parallel and compare them");
  inputs(cmp);
  AddPolicyListOption(cmp, o.policies, "Comma-separated policies to compare")->required();
  cmp->add_option("--baseline", o.baseline,
                  "Policy the others are compared against (default: the first)")
      ->group(kPolicyGroup);
  AddProfilesOption(cmp, o);
  AddCoResourceOptions(cmp, o);
  model_run(cmp);
  AddThreadsOption(cmp, o.run.threads, "Parallel runs (default: one per core)");
  AddOutputOptions(cmp, o, db_help, /*csv=*/true);
  cmp->add_option("--report", o.report,
                  "Also write the HTML report (charts and tables; docs/report.md) to this file")
      ->group(kOutputGroup);

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
  bool pol_verbose = false;
  pol->add_flag("-v,--verbose", pol_verbose,
                "Also list each policy's parameters (NAME:key=value,...): type, range, default "
                "and meaning (docs/policies.md, \"Policy parameters\")");

  app.add_subcommand("formats", "List the trace and telemetry formats this version reads");

  CLI::App* insp = app.add_subcommand(
      "inspect",
      "Report what a trace contains and what is wrong with it: counts, time span, size, run time, "
      "utilization and recorded-wait distributions, demand against capacity, findings");
  std::string insp_trace;
  insp->add_option("trace", insp_trace, "Trace file(s), comma-separated, or a folder")
      ->group(kInputGroup);
  AddInputOptions(insp, o);
  AddClusterOptions(insp, o);

  CLI::App* val = app.add_subcommand(
      "validate",
      "Replay a trace that recorded its schedule under a policy approximating the recorded "
      "scheduler and compare simulated with recorded waits (MAE, rank correlation, also above "
      "the recorded latency floor, daily correlation, quantiles), at one or several cluster "
      "sizes; then the record's evidence of outages (no start while jobs waited) and the peak "
      "GPUs in use per week (docs/validation.md)");
  inputs(val);
  std::string val_policy = "easy-backfill+first-fit";
  std::vector<int> nodes_list;
  double outage_gap_h = 6;
  bool val_infer = false;
  double infer_window_h = 24;
  std::string infer_events_out;
  val->add_option("--policy", val_policy, "Policy approximating the recorded scheduler")
      ->capture_default_str()
      ->group(kPolicyGroup);
  AddCoResourceOptions(val, o);
  model_run(val);
  val->add_option("--nodes-list", nodes_list,
                  "Cluster sizes (nodes) to try, comma-separated, for single-group clusters; "
                  "reports each (capacity sensitivity)")
      ->delimiter(',')
      ->transform(checks::Integer(1, 1'000'000))
      ->group(kClusterGroup);
  val->add_option("--outage-gap", outage_gap_h,
                  "List the recorded stretches of at least this many hours with no job start "
                  "while jobs waited, with the GPUs recorded running through them (possible "
                  "outages; docs/validation.md)")
      ->capture_default_str()
      ->check(checks::Above(0, "hours"));
  val->add_flag(
         "--infer", val_infer,
         "Replay what the record shows: in each --infer-window at least the nodes its "
         "peak GPUs in use need (absent otherwise), no start through the --outage-gap gaps (every "
         "node drained), and a scheduling cycle of the latency floor (--pass-interval); "
         "one method for every trace (docs/validation.md)")
      ->group(kClusterGroup);
  val->add_option("--infer-window", infer_window_h,
                  "With --infer: hours per capacity step (the peak GPUs in use of each window)")
      ->capture_default_str()
      ->check(checks::Above(0, "hours"))
      ->group(kClusterGroup);
  val->add_option("--events-out", infer_events_out,
                  "With --infer and one size: write the inferred events as an events file for "
                  "`run --events` (docs/cluster-events.md)")
      ->group(kOutputGroup);
  AddOutputOptions(val, o, "Results database of the runs, one per size (docs/results.md)",
                   /*csv=*/false);

  CLI::App* fgd = app.add_subcommand(
      "fgd-experiment",
      "The FGD paper's packing experiment (arrival-only), as the FGD authors' simulator runs "
      "it: the trace's pods arrive in a seeded order (topped up or cut to --max-arrived x the "
      "GPU capacity) and are placed with no departures; reports GPU allocation and "
      "fragmentation per placement policy, over seeds, in 1 % steps of arrived demand, and "
      "compares them with the simulator's published curves (--compare-with). openb traces run "
      "on the paper's cluster, the GPU nodes (docs/packing.md, docs/validation.md)");
  AddInputOptions(fgd, o);
  AddClusterOptions(fgd, o);
  FgdExperimentOptions fgd_opt;
  fgd_opt.seeds = 10;
  FgdCliOptions fgd_cli;
  std::vector<std::string> fgd_policies = {
      "fgdsim-random,fgdsim-dotprod,fgdsim-gpu-clustering,fgdsim-gpu-packing,fgdsim-best-fit,"
      "fgdsim-fgd"};
  AddPolicyListOption(fgd, fgd_policies,
                      "Placement policies, comma-separated (default: the FGD simulator's six, "
                      "fgdsim-*; utilsim's own: random,tetris,gpu-clustering,gpu-packing,"
                      "best-fit,fgd)")
      ->capture_default_str();
  fgd->add_option("--seeds", fgd_opt.seeds, "Runs per policy")
      ->transform(checks::Integer(1, 100'000))
      ->capture_default_str()
      ->group(kRunGroup);
  fgd->add_option("--first-seed", fgd_opt.first_seed,
                  "Seeds --first-seed .. --first-seed + --seeds - 1 (the paper: 42..51)")
      ->capture_default_str()
      ->group(kRunGroup);
  fgd->add_option("--max-arrived", fgd_opt.max_arrived,
                  "Stop when the arrived GPU request reaches this share of capacity")
      ->check(checks::Within(0.05, 100, "a share of capacity"))
      ->capture_default_str()
      ->group(kRunGroup);
  fgd->add_option("--arrivals", fgd_cli.arrivals,
                  "simulator: every pod once in a seeded order, then random pods added (or "
                  "removed) to reach --max-arrived, as the FGD simulator; sample: uniform draws "
                  "with replacement")
      ->check(checks::OneOf({"simulator", "sample"}))
      ->capture_default_str()
      ->group(kRunGroup);
  fgd->add_option("--node-order", fgd_cli.node_order,
                  "Ties of the fgdsim-* policies: random (a node permutation per seed, as the "
                  "FGD simulator) or index (the cluster's node order)")
      ->check(checks::OneOf({"random", "index"}))
      ->capture_default_str()
      ->group(kRunGroup);
  fgd->add_option("--popularity", fgd_opt.popularity_pct,
                  "Typical task classes of the fragmentation measure and fgdsim-fgd: the most "
                  "popular classes covering this percentage of the pods (the paper: 95)")
      ->transform(checks::Integer(1, 100))
      ->capture_default_str()
      ->group(kRunGroup);
  fgd->add_option("--csv", fgd_cli.csv,
                  "Write the curves (allocation, fragmentation, fragmentation ratio, failed "
                  "request; per policy and seed, 1 % steps of arrived demand) as CSV; atomic")
      ->group(kOutputGroup);
  fgd->add_option("--report", fgd_cli.report,
                  "Write an HTML page of the curves (with the --compare-with curves dashed); "
                  "atomic. `utilsim report` draws a --csv file the same way")
      ->group(kOutputGroup);
  fgd->add_option("--compare-with", fgd_cli.compare,
                  "The FGD simulator's analysis_{allo,frag,frag_ratio}_discrete.csv: print the "
                  "differences per policy at 100 % and 130 %, the curve MAE and the rank "
                  "agreement (comma-separated files)")
      ->delimiter(',')
      ->group(kOutputGroup);
  AddGuardOptions(fgd, o, /*progress_only=*/true);

  CLI::App* conv = app.add_subcommand(
      "convert",
      "Write a trace (any format, with attached utilization) as a canonical jobs CSV "
      "and, where known, the cluster as YAML");
  std::string cluster_out;
  AddInputOptions(conv, o);
  AddClusterOptions(conv, o);
  AddOutputOptions(conv, o,
                   "Canonical jobs CSV to write (docs/trace-format.md); written atomically",
                   /*csv=*/false);
  conv->add_option("--cluster-out", cluster_out, "Write the cluster spec (YAML) here")
      ->group(kOutputGroup);

  CLI::App* demo = app.add_subcommand(
      "demo",
      "Compare first-fit, best-fit and worst-fit packing (fifo-skip queue) on the built-in "
      "synthetic workload: 64 nodes x 8 GPUs, 20,000 jobs drawn from published cluster "
      "statistics (docs/workloads.md)");
  std::string demo_out = "utilsim-demo.db";
  demo->add_option("--seed", o.input.seed, "Seed of the synthetic workload, 0..2^64-1")
      ->transform(checks::Seed())
      ->capture_default_str()
      ->group(kInputGroup);
  demo->add_option("--jobs", o.input.jobs, "Number of jobs (default 20000)")
      ->transform(checks::Integer(1))
      ->group(kInputGroup);
  AddGuardOptions(demo, o);
  demo->add_option("--out", demo_out, "Results database to write")
      ->capture_default_str()
      ->group(kOutputGroup);

  // utilsim plan / diagnose (docs/planning.md, docs/diagnose.md; plan_cmd.cc).
  CLI::App* plan = app.add_subcommand("plan", kPlanHelp);
  inputs(plan);
  AddProfilesOption(plan, o);
  AddCoResourceOptions(plan, o);
  model_run(plan);
  AddOutputOptions(plan, o, "Results database of each policy's chosen size (docs/results.md)",
                   /*csv=*/true);
  PlanCliOptions plan_opt;
  AddPlanOptions(plan, plan_opt);
  CLI::App* diag = app.add_subcommand("diagnose", kDiagnoseHelp);
  inputs(diag);
  AddProfilesOption(diag, o);
  AddCoResourceOptions(diag, o);
  model_run(diag);
  AddOutputOptions(diag, o, "With --trace: also write the run's results database", /*csv=*/true);
  DiagnoseCliOptions diag_opt;
  AddDiagnoseOptions(diag, diag_opt);
  DecideCliOptions decide_opt;  // utilsim decide (cmd_decide.cc)
  CLI::App* decide = AddDecideCommand(&app, o, decide_opt);
  ExporterCliOptions exporter_opt;  // utilsim exporter (cmd_exporter.cc)
  CLI::App* exporter = AddExporterCommand(&app, exporter_opt);
  ServeCliOptions serve_opt;  // utilsim serve k8s-extender (cmd_serve.cc)
  CLI::App* serve = AddServeCommand(&app, serve_opt);
  ShadowReportCliOptions shadow_opt;  // utilsim shadow-report (cmd_serve.cc)
  CLI::App* shadow = AddShadowReportCommand(&app, shadow_opt);
  SlurmCliOptions slurm_opt;  // utilsim slurm advise (cmd_slurm.cc)
  CLI::App* slurm = AddSlurmCommand(&app, slurm_opt);
  PowerFitCliOptions power_fit_opt;  // utilsim power-fit (cmd_power_fit.cc)
  CLI::App* power_fit = AddPowerFitCommand(&app, power_fit_opt);
  ExplainCliOptions explain_opt;  // utilsim explain (cmd_explain.cc)
  CLI::App* explain = AddExplainCommand(&app, explain_opt);
  SweepCliOptions sweep_opt;  // utilsim sweep (cmd_sweep.cc)
  CLI::App* sweep = AddSweepCommand(&app, sweep_opt);

  if (const std::string m = UnknownSubcommand(app, argc, argv); !m.empty())
    return Fail(m, kExitUsage);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return ReportParseError(app, e);
  }

  // What CLI11 cannot check option by option: usage errors too (exit 2).
  CLI::App* cmd = app.get_subcommands().front();
  if (*insp && !insp_trace.empty()) o.input.trace = insp_trace;
  if (const CLI::Option* jobs = cmd->get_option_no_throw("--jobs");
      jobs && jobs->count() > 0 && cmd != demo && o.input.trace.rfind("builtin", 0) != 0)
    return Fail("--jobs: only for built-in workloads (--trace builtin:demo or builtin:bench); " +
                    o.input.trace + " has the jobs it has",
                kExitUsage);
  PolicyRegistry reg = BuiltinPolicies();
  if (cmd->get_option_no_throw("--profiles") && !o.profiles.empty())
    if (Status s = LoadProfiles(o.profiles, &reg); !s.ok()) return Fail(s.message(), kExitRuntime);
  const std::vector<std::string> cmp_list = SplitList(o.policies);
  Status usage;
  if (*run) {
    usage = CheckPolicyList({o.policy}, "--policy", reg);
  } else if (*cmp) {
    usage = CheckPolicyList(cmp_list, "--policies", reg);
    if (usage.ok() && !o.baseline.empty() &&
        std::find(cmp_list.begin(), cmp_list.end(), o.baseline) == cmp_list.end())
      usage = Status::Error("--baseline: '" + o.baseline + "' is not one of --policies");
  } else if (*val) {
    usage = CheckPolicyList({val_policy}, "--policy", reg);
    if (usage.ok() && !infer_events_out.empty() && (!val_infer || nodes_list.size() > 1))
      usage = Status::Error("--events-out: needs --infer and at most one size in --nodes-list");
  } else if (*fgd) {
    fgd_opt.policies = SplitList(fgd_policies);
    usage = CheckPolicyList(fgd_opt.policies, "--policies", reg, /*placements=*/true);
  } else if (*plan) {
    plan_opt.policies = SplitList(plan_opt.policies);
    usage = CheckPolicyList(plan_opt.policies, "--policies", reg);
  } else if (*diag && diag_opt.policy != "auto") {
    usage = CheckPolicyList({diag_opt.policy}, "--policy", reg);
  } else if (*decide) {
    usage = CheckPolicyList({decide_opt.policy}, "--policy", reg, /*placements=*/true);
  } else if (*slurm) {
    usage = CheckPolicyList({slurm_opt.policy}, "--policy", reg, /*placements=*/true);
    if (usage.ok()) usage = CheckSlurmOptions(slurm_opt);
  } else if (*sweep) {
    usage = CheckSweepOptions(sweep_opt);
  }
  // The run flags of run and compare (plan, diagnose and validate check them
  // below): a value that does not parse, e.g. --power-cap abc.
  if (usage.ok() && (*run || *cmp)) {
    if (auto spec = ToRunSpec(o.run, o.input.seed); !spec.ok()) {
      if (RunFlagsExit(spec.status()) != kExitUsage)
        return Fail(spec.status().message(), RunFlagsExit(spec.status()));
      usage = FlagError(spec.status());
    }
  }
  if (!usage.ok()) return Fail(usage.message(), kExitUsage);

  const ProgressMode progress = ParseProgressMode(o.progress).value();
  Status st;
  if (*run) {
    st = Execute(o, {o.policy}, "", "utilsim run: " + o.policy);
  } else if (*cmp) {
    st = Execute(o, cmp_list, o.baseline, "utilsim compare");
  } else if (*pol) {  // reg holds the --profiles (loaded above)
    std::cout << "Policies (name it with --policy PLACEMENT, --policy QUEUE+PLACEMENT or a "
                 "profile name):\n";
    std::string kind;
    for (const auto& p : reg.List()) {
      if (p.kind != kind) std::cout << "\n" << (kind = p.kind) << ":\n";
      std::cout << "  " << p.name << std::string(p.name.size() < 22 ? 22 - p.name.size() : 1, ' ')
                << "v" << p.version << "  " << p.description << "\n";
      if (pol_verbose && !p.params.empty())
        std::cout << DescribeParams(p.params, std::string(28, ' '));
    }
    if (pol_verbose)
      std::cout << "\nParameters: NAME:key=value,... on either side of QUEUE+PLACEMENT, e.g. "
                   "tiresias:thresholds=3250/7200+epvm:base=2 (docs/policies.md)\n";
  } else if (app.got_subcommand("formats")) {
    std::cout << "Trace formats (--format; detected from the file when left out):\n";
    for (const auto& [name, desc] : TraceFormatList())
      std::cout << "  " << name << std::string(name.size() < 16 ? 16 - name.size() : 1, ' ') << desc
                << "\n";
    std::cout << "\nTelemetry formats (--telemetry-format, --util-library-format):\n";
    for (const auto& [name, desc] : TelemetryFormatList())
      std::cout << "  " << name << std::string(name.size() < 16 ? 16 - name.size() : 1, ' ') << desc
                << "\n";
    std::cout << "\nField mappings and units: docs/trace-formats.md\n";
  } else if (*insp) {
    st = InspectCommand(o);
  } else if (*plan || *diag) {
    auto spec = ToRunSpec(o.run, o.input.seed);
    if (!spec.ok()) return Fail(spec.status().message(), RunFlagsExit(spec.status()));
    SharedCliOptions shared;
    shared.input = &o.input;
    shared.run = &spec.value();
    shared.profiles = o.profiles;
    shared.out = o.out;
    shared.csv_dir = o.csv_dir;
    shared.trace_given = (*plan ? plan : diag)->get_option("--trace")->count() > 0;
    shared.progress = progress;
    shared.memory = ResolveMemoryLimit(o.max_memory);
    st = *plan ? PlanCommand(shared, plan_opt) : DiagnoseCommand(shared, diag_opt);
  } else if (*val) {
    auto spec = ToRunSpec(o.run, o.input.seed);
    if (!spec.ok()) return Fail(spec.status().message(), RunFlagsExit(spec.status()));
    st = ValidateCommand(o.input, spec.value(), val_policy, nodes_list, outage_gap_h, val_infer,
                         infer_window_h, infer_events_out, o.out,
                         {progress, ResolveMemoryLimit(o.max_memory)});
  } else if (*fgd) {
    st = FgdCommand(o, fgd_opt, fgd_cli, progress);
  } else if (*conv) {
    st = ConvertCommand(o, cluster_out);
  } else if (*rep) {
    st = ReportFromDatabase(rep_db, rep_out, {}, OutputGuard{"-o", {}, true, ""});
    if (st.ok())
      (rep_out == "-" ? std::cerr : std::cout) << "Report written to " << rep_out << "\n";
  } else if (*decide) {
    st = DecideCommand(decide_opt, reg, std::cin, std::cout);
  } else if (*exporter) {
    st = ExporterCommand(exporter_opt);
  } else if (*serve) {
    st = ServeCommand(serve_opt, reg);
  } else if (*explain) {
    st = ExplainCommand(explain_opt);
  } else if (*power_fit) {
    st = PowerFitCommand(power_fit_opt);
  } else if (*shadow) {
    st = ShadowReportCommand(shadow_opt);
    std::vector<std::string> replay;
    if (st.ok() && !shadow_opt.json && SlurmReplayWanted(shadow_opt, &replay)) {
      // The same history offline: Slurm's decisions against the advice.
      usage = CheckPolicyList(replay, "--replay-policies", reg);
      if (!usage.ok()) return Fail(usage.message(), kExitUsage);
      Options r;
      r.input.trace = shadow_opt.sacct;
      r.input.format = "sacct";
      r.input.cluster = shadow_opt.cluster;
      r.out = shadow_opt.out;
      r.progress = "never";
      std::cout << "\nThe sacct history replayed offline on " << shadow_opt.cluster << ":\n";
      st = Execute(r, replay, replay[0], "utilsim shadow-report: replay");
    }
  } else if (*slurm) {
    st = SlurmCommand(slurm_opt, reg);
  } else if (*sweep) {
    st = SweepCommand(sweep_opt);
  } else if (*demo) {
    o.input.trace = "builtin:demo";
    o.out = demo_out;
    st = Execute(o, {"fifo-skip+first-fit", "fifo-skip+best-fit", "fifo-skip+worst-fit"},
                 "fifo-skip+first-fit",
                 "utilsim demo: packing policies on the built-in synthetic workload");
  }
  if (!st.ok()) return Fail(FlagError(st).message(), kExitRuntime);
  return kExitOk;
}

}  // namespace utilsim::cli
