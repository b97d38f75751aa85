// `utilsim plan` and `utilsim diagnose`: options and commands
// (docs/planning.md, docs/diagnose.md).
#include "plan_cmd.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli_checks.h"
#include "cli_options.h"
#include "utilsim/analysis/plan.h"
#include "utilsim/analysis/progress.h"
#include "utilsim/engine/parallel.h"
#include "utilsim/io/output_path.h"
#include "utilsim/policies/registry.h"
#include "utilsim/results/csv_export.h"
#include "utilsim/results/result_store.h"

namespace utilsim::cli {

const char* const kPlanHelp =
    "Find, per policy, the smallest cluster whose run of the trace meets a queue-wait target, by "
    "scaling every node group of the cluster together, and report the GPUs needed, allocation "
    "and effective utilization at that size and its cost (docs/planning.md)";

const char* const kDiagnoseHelp =
    "Answer three questions about a run: are the GPUs highly allocated, is useful work below "
    "what they could deliver, do queues stay long while capacity looks full; each with its "
    "number and threshold, plus where idle allocated GPU time goes and which policies address "
    "each cause (docs/diagnose.md). Reads a results database, or runs a trace first";

namespace {

// What an output may not replace: the files the command reads (output_path.h).
OutputGuard Guard(const SharedCliOptions& sh, const std::string& option) {
  return OutputGuard{option, InputPaths(*sh.input, sh.profiles), false, ""};
}

Result<PolicyRegistry> Registry(const std::string& profiles) {
  PolicyRegistry reg = BuiltinPolicies();
  if (!profiles.empty())
    if (Status s = LoadProfiles(profiles, &reg); !s.ok()) return s;
  return reg;
}

Status WriteOutputs(const std::vector<RunResult>& runs, const SharedCliOptions& sh,
                    std::ostream& msg) {
  if (!sh.out.empty()) {
    if (Status s = WriteResults(runs, sh.out, Guard(sh, "--out")); !s.ok()) return s;
    msg << "Results written to " << sh.out << " (docs/results.md)\n";
  }
  if (!sh.csv_dir.empty()) {
    if (Status s = ExportCsv(runs, sh.csv_dir, Guard(sh, "--csv")); !s.ok()) return s;
    msg << "CSV written to " << sh.csv_dir << "/{runs,jobs,samples,waits,change_points}.csv\n";
  }
  return Status::Ok();
}

Status CheckOutputs(const SharedCliOptions& sh) {
  OutputGuard db = Guard(sh, "--out");
  db.format = "a SQLite results database";
  if (Status s = CheckOutput(sh.out, db); !s.ok()) return s;
  if (Status s = CheckCsvExport(sh.csv_dir, Guard(sh, "--csv")); !s.ok()) return s;
  std::vector<NamedPath> outs = {{"--out", sh.out}};
  if (!sh.csv_dir.empty())
    for (const auto& f : CsvExportPaths(sh.csv_dir)) outs.push_back({"--csv", f});
  return CheckDistinctOutputs(outs);
}

// The form of --step alone (PlanCandidates checks it against the cluster).
Status CheckStepSyntax(const std::string& step) {
  const std::string bad =
      "--step: expected N nodes (an integer >= 1), a fraction 0 < F < 1 or a "
      "percentage 0 < P% < 100, got '" +
      step + "'";
  char* end = nullptr;
  const double v = std::strtod(step.c_str(), &end);
  if (end == step.c_str() || !std::isfinite(v)) return Status::Error(bad);
  // On one node the smallest fraction still makes a candidate; a step > 1
  // node is "larger than the cluster" there, which is not a form error.
  auto c = PlanCandidates(1, step, 1.0);
  if (!c.ok() && c.status().message().rfind("--step: expected", 0) == 0) return Status::Error(bad);
  return Status::Ok();
}

bool IsSqlite(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char head[16] = {};
  f.read(head, sizeof head);
  return f.gcount() == 16 && std::string(head, 16) == std::string("SQLite format 3\0", 16);
}

}  // namespace

void AddPlanOptions(CLI::App* cmd, PlanCliOptions& o) {
  const char* const kPlan = "Plan";
  AddPolicyListOption(cmd, o.policies,
                      "Comma-separated policies to plan for (`utilsim policies` lists them)")
      ->capture_default_str();
  cmd->add_option("--target", o.targets,
                  "Queue-wait target METRIC<=LIMIT, repeatable (all must hold). METRIC: mean-wait, "
                  "p50-wait, p95-wait, p99-wait, max-wait (submit to first start) or mean-queued, "
                  "p50-queued, p95-queued, p99-queued, max-queued (all time queued, waits after "
                  "preemptions included: use these under tiresias or priority-preempt); LIMIT: "
                  "seconds, or with a unit s, m, h, d. Example: --target 'p95-wait<=2h'")
      ->check(checks::Parsed([](const std::string& t) { return ParsePlanTarget(t).status(); }))
      ->required()
      ->group(kPlan);
  cmd->add_option("--step", o.step,
                  "Candidate sizes: N (integer) = every multiple of N nodes; F (0<F<1) or P% = "
                  "every multiple of that fraction of the cluster's nodes. Node groups are scaled "
                  "together, proportionally (Webster rounding, docs/planning.md)")
      ->check(checks::Parsed(CheckStepSyntax))
      ->capture_default_str()
      ->group(kPlan);
  cmd->add_option("--max-scale", o.max_scale,
                  "Largest candidate, as a multiple of the cluster's node count")
      ->check(checks::Within(0.01, 1000, "a multiple of the node count"))
      ->capture_default_str()
      ->group(kPlan);
  cmd->add_option("--ladder", o.ladder,
                  "Candidates in the first search round (evenly spaced, the largest included)")
      ->transform(checks::Integer(1, 10'000))
      ->capture_default_str()
      ->group(kPlan);
  cmd->add_option("--refine", o.refine,
                  "Candidates per refinement round inside the bracket (1 = bisection)")
      ->transform(checks::Integer(1, 10'000))
      ->capture_default_str()
      ->group(kPlan);
  AddThreadsOption(cmd, o.threads,
                   "Simulations run at once (default: one per core); the result does not depend "
                   "on it");
  cmd->add_flag("--json", o.json, "Print JSON instead of the table")->group(kOutputGroup);
  cmd->footer(
      "\nTarget, search and cost: docs/planning.md. Allocation and utilization cover the "
      "--window; cost = GPUs x --price per hour.\nExamples:\n"
      "  utilsim plan --trace builtin:demo --policies fifo-skip+first-fit,fifo-skip+best-fit "
      "--target 'p95-wait<=1h'\n"
      "  utilsim plan --trace jobs.csv --cluster cluster.yaml --target 'mean-wait<=30m' "
      "--target 'p99-wait<=6h' --step 4 --max-scale 3 --json\n");
}

void AddDiagnoseOptions(CLI::App* cmd, DiagnoseCliOptions& o) {
  cmd->add_option("results", o.results,
                  "A results database written by run, compare or demo (--out); every run in it is "
                  "diagnosed. Without it, --trace is run first with --policy");
  cmd->add_option("--policy", o.policy,
                  "Policy for a trace: auto = as-recorded when every job has a recorded start "
                  "(the cluster as it ran), else fifo-skip+best-fit")
      ->capture_default_str()
      ->group(kPolicyGroup);
  cmd->add_option("--high-allocation", o.thresholds.high_allocation_pct,
                  "Question 1 says yes at this allocation % or above")
      ->check(checks::Within(0, 100, "a percentage"))
      ->capture_default_str()
      ->group("Thresholds");
  cmd->add_option("--idle-share", o.thresholds.idle_share_pct,
                  "Question 2 says yes when more than this % of allocated GPU-hours are idle")
      ->check(checks::Within(0, 100, "a percentage"))
      ->capture_default_str()
      ->group("Thresholds");
  cmd->add_option("--full-allocation", o.thresholds.full_allocation_pct,
                  "Question 3: a sample counts as full at this allocation % or above")
      ->check(checks::Within(0, 100, "a percentage"))
      ->capture_default_str()
      ->group("Thresholds");
  cmd->add_option("--full-and-queued", o.thresholds.full_and_queued_pct,
                  "Question 3 says yes when full with jobs queued for this % of the window or more")
      ->check(checks::Within(0, 100, "a percentage"))
      ->capture_default_str()
      ->group("Thresholds");
  cmd->add_flag("--json", o.json, "Print JSON instead of text")->group(kOutputGroup);
  cmd->footer(
      "\nQuestions, thresholds and the cause -> policy table: docs/diagnose.md.\nExamples:\n"
      "  utilsim diagnose results.db\n"
      "  utilsim diagnose --trace builtin:demo --json\n"
      "  utilsim diagnose --trace aaicwl-2017Q3.csv.gz --policy as-recorded\n");
}

Status PlanCommand(const SharedCliOptions& sh, const PlanCliOptions& o) {
  if (Status s = CheckOutputs(sh); !s.ok()) return s;
  PlanOptions po;
  for (const auto& t : o.targets) {
    auto pt = ParsePlanTarget(t);
    if (!pt.ok()) return pt.status();
    po.targets.push_back(pt.value());
  }
  po.policies = o.policies;  // split and checked by cli.cc
  po.step = o.step;
  po.max_scale = o.max_scale;
  po.ladder = o.ladder;
  po.refine = o.refine;
  po.threads = o.threads;
  auto reg = Registry(sh.profiles);
  if (!reg.ok()) return reg.status();
  // At most `threads` simulations run at once; two per policy (the best
  // size and the largest) are kept; the largest cluster is max-scale x.
  const int64_t policies = static_cast<int64_t>(po.policies.size());
  const auto threads =
      static_cast<int64_t>(ResolveThreads(o.threads > 0 ? static_cast<size_t>(o.threads) : 0));
  const int64_t held = std::min<int64_t>(threads, policies * std::max(o.ladder, 1)) + 2 * policies;
  const std::string runs_label = std::to_string(held) + " runs held at once";
  InputOptions input = *sh.input;
  input.before_generate = GuardBeforeGenerate(sh.memory, held, runs_label);
  auto in = LoadInputs(input);
  if (!in.ok()) return in.status();
  MemoryDemand demand = DemandOfRuns(in.value(), *sh.run, held, runs_label);
  demand.nodes = static_cast<int64_t>(std::ceil(static_cast<double>(demand.nodes) * o.max_scale));
  if (Status s = CheckMemory(demand, sh.memory); !s.ok()) return s;
  const RunSpec& settings = *sh.run;
  auto bar = ProgressBar::ForStderr("plan", sh.progress);
  po.progress = bar ? bar->board() : nullptr;
  auto r = Plan(in.value(), reg.value(), po, settings);
  bar.reset();
  if (!r.ok()) return r.status();
  std::cout << (o.json ? PlanJson(r.value()) : FormatPlan(r.value()));
  std::vector<RunResult> runs;
  for (const auto& p : r.value().policies) runs.push_back(p.run);
  // With --json, stdout holds only the JSON.
  return WriteOutputs(runs, sh, o.json ? std::cerr : std::cout);
}

Status DiagnoseCommand(const SharedCliOptions& sh, const DiagnoseCliOptions& o) {
  const DiagnoseThresholds& th = o.thresholds;
  for (double v :
       {th.high_allocation_pct, th.idle_share_pct, th.full_allocation_pct, th.full_and_queued_pct})
    if (!(v >= 0 && v <= 100))
      return Status::Error(
          "--high-allocation, --idle-share, --full-allocation, "
          "--full-and-queued: expected a percentage 0..100");
  std::vector<RunResult> runs;
  std::optional<Inputs> inputs;  // a trace's, for the utilization coverage
  if (!o.results.empty()) {
    if (sh.trace_given)
      return Status::Error("diagnose: give a results database or --trace, not both");
    if (std::filesystem::is_directory(o.results))
      return Status::Error(o.results +
                           ": is a directory, not a results database (to diagnose a trace "
                           "folder, use --trace " +
                           o.results + ")");
    if (std::filesystem::exists(o.results) && !IsSqlite(o.results))
      return Status::Error(o.results +
                           ": not a utilsim results database (not an SQLite file; to diagnose "
                           "a trace, use --trace " +
                           o.results + ")");
    auto rr = ReadResults(o.results);
    if (!rr.ok()) return rr.status();
    runs = std::move(rr).value();
    if (runs.empty()) return Status::Error(o.results + ": the database holds no runs");
  } else {
    if (Status s = CheckOutputs(sh); !s.ok()) return s;
    auto reg = Registry(sh.profiles);
    if (!reg.ok()) return reg.status();
    InputOptions input = *sh.input;
    input.before_generate = GuardBeforeGenerate(sh.memory, 1, "1 policy");
    auto in = LoadInputs(input);
    if (!in.ok()) return in.status();
    if (Status s = CheckMemory(DemandOfRuns(in.value(), *sh.run, 1, "1 policy"), sh.memory);
        !s.ok())
      return s;
    std::string policy = o.policy;
    if (policy == "auto") {
      bool all = !in.value().workload.jobs.empty();
      for (const auto& j : in.value().workload.jobs) all &= j.recorded_start.has_value();
      policy = all ? "as-recorded" : "fifo-skip+best-fit";
    }
    if (auto s = reg.value().Make(policy); !s.ok())
      return Status::Error("--policy: " + s.status().message());
    RunSpec settings = *sh.run;
    auto bar = ProgressBar::ForStderr("diagnose", sh.progress);
    settings.progress = bar ? bar->board() : nullptr;
    auto r = RunPolicies(in.value(), reg.value(), {policy}, settings);
    bar.reset();
    if (!r.ok()) return r.status();
    runs = std::move(r).value();
    if (Status s = WriteOutputs(runs, sh, o.json ? std::cerr : std::cout); !s.ok()) return s;
    inputs = std::move(in).value();
  }
  std::vector<Diagnosis> ds;
  for (const auto& run : runs)
    ds.push_back(Diagnose(run, th, inputs ? &inputs->workload : nullptr));
  std::cout << (o.json ? DiagnosisJson(ds, th) : FormatDiagnosis(ds, th));
  return Status::Ok();
}

}  // namespace utilsim::cli
