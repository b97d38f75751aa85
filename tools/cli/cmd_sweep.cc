// `utilsim sweep plan|run|task|status|merge` (docs/sweeps.md).
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "commands.h"
#include "sweep_exec.h"
#include "sweep_slurm.h"
#include "utilsim/analysis/memory_guard.h"
#include "utilsim/io/output_path.h"
#include "utilsim/sweep/sweep_merge.h"

namespace utilsim::cli {
namespace {

namespace fs = std::filesystem;
using sweep::PlanEntry;

std::string Absolute(const std::string& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  return ec ? p : a.lexically_normal().string();
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int DefaultWorkers() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

void Say(const std::string& line) { std::cout << line << std::endl; }

// Reads the file, expands and resolves every run on `workers` threads
// (loading each distinct input once).
Result<std::vector<PlanEntry>> Plan(const std::string& file, SweepResolver& resolver,
                                    sweep::SweepSpec* spec_out, int workers) {
  auto spec = sweep::ReadSweepSpec(file);
  if (!spec.ok()) return spec.status();
  *spec_out = spec.value();
  return PlanSweep(spec.value(), resolver, workers);
}

std::string Layout(const std::string& out) {
  return "  " + out + "/plan.jsonl          the runs (index, digest, swept values, options)\n" +
         "  " + out + "/runs/<digest>.db    one results database per finished run\n" + "  " + out +
         "/runs/<digest>.fail.json  why a run has no results (failed, timeout, memory)\n" + "  " +
         out + "/log.jsonl           start/done/failed events with wall times\n" + "  " + out +
         "/merged.db, sweep.csv  `utilsim sweep merge`: one row per run\n";
}

Status PlanCommand(const SweepCliOptions& s) {
  SweepResolver resolver(s.file);
  sweep::SweepSpec spec;
  auto plan = Plan(s.file, resolver, &spec, s.workers);
  if (!plan.ok()) return plan.status();
  const auto& runs = plan.value();
  std::map<std::string, std::set<std::string>> values;
  for (const PlanEntry& e : runs)
    for (const sweep::Param& p : e.run.swept) values[p.key].insert(p.value);
  std::cout << "sweep " << spec.name << ": " << runs.size() << " runs, " << resolver.inputs_loaded()
            << " distinct inputs\n";
  for (const auto& [k, v] : values) std::cout << "  " << k << ": " << v.size() << " values\n";
  if (spec.morris)
    std::cout << "  Morris: " << spec.morris->trajectories << " trajectories x "
              << spec.morris->factors.size() + 1 << " points over " << spec.morris->factors.size()
              << " factors\n";
  // Memory: the estimate of the runaway guard (memory_guard.h) for the
  // largest run.
  int64_t mem = 0;
  double cost_sum = 0;
  const PlanEntry* biggest = &runs[0];
  for (const PlanEntry& e : runs) {
    cost_sum += e.cost;
    if (e.cost > biggest->cost) biggest = &e;
    auto r = resolver.Resolve(e.run);
    if (r.ok())
      mem = std::max(
          mem, EstimateMemoryBytes(DemandOfRuns(*r.value().inputs, r.value().spec, 1, "1 run")));
  }
  std::cout << "memory per run: up to " << FormatBytes(static_cast<double>(mem))
            << " (estimate of the largest run)\n";
  if (!s.no_pilot) {
    // The pilot: the run of median expected cost, timed; the rest scaled by
    // their costs.
    std::vector<const PlanEntry*> by_cost;
    for (const PlanEntry& e : runs) by_cost.push_back(&e);
    std::stable_sort(by_cost.begin(), by_cost.end(),
                     [](const PlanEntry* a, const PlanEntry* b) { return a->cost < b->cost; });
    const PlanEntry* pilot = by_cost[by_cost.size() / 2];
    auto r = resolver.Resolve(pilot->run);
    if (!r.ok()) return r.status();
    auto prepared = BuildRun(r.value().spec, *r.value().inputs, r.value().cluster, *r.value().reg);
    if (!prepared.ok()) return prepared.status();
    const auto t0 = std::chrono::steady_clock::now();
    auto result = prepared.value()->Simulate(r.value().policy);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!result.ok())
      return result.status().Prefixed("pilot run " + std::to_string(pilot->run.index) + ": ");
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const double total = wall * cost_sum / std::max(pilot->cost, 1e-9);
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "pilot: run %d took %.2f s (process peak %s); all runs roughly %.1f s of CPU, "
                  "%.1f s on %d workers (the pilot scaled by each run's expected cost, a "
                  "heuristic; the longest expected is run %d)\n",
                  pilot->run.index, wall, FormatBytes(ru.ru_maxrss * 1024.0).c_str(), total,
                  total / s.workers, s.workers, biggest->run.index);
    std::cout << buf;
  }
  const std::string out = s.out.empty() ? "OUT" : s.out;
  std::cout << "output (utilsim sweep run " << s.file << " --out " << out << "):\n" << Layout(out);
  if (!s.out.empty()) {
    int done = 0, failed = 0;
    for (const PlanEntry& e : runs) {
      const auto st = sweep::StateOf(s.out, e.digest);
      done += st == sweep::RunState::kDone;
      failed += st == sweep::RunState::kFailed;
    }
    std::cout << "already in " << s.out << ": " << done << " finished, " << failed << " failed\n";
  }
  return Status::Ok();
}

Status MergeAndSay(const std::string& out, const sweep::MergeOptions& mo) {
  auto m = sweep::MergeSweep(out, mo);
  if (!m.ok()) return m.status();
  const auto& st = m.value();
  std::cout << "merged " << st.runs << " runs (" << st.ok << " finished, " << st.failed
            << " failed or over a limit, " << st.pending << " pending) into " << st.db;
  if (!st.csv.empty()) std::cout << " and " << st.csv;
  std::cout << "\n";
  if (st.effects > 0) std::cout << st.effects << " Morris effects in table sweep_effects\n";
  for (const auto& n : st.notes) std::cout << "note: " << n << "\n";
  return Status::Ok();
}

Status RunCommand(const SweepCliOptions& s) {
  const std::string file = Absolute(s.file), out = Absolute(s.out);
  SweepResolver resolver(file);
  sweep::SweepSpec spec;
  auto plan = Plan(file, resolver, &spec, s.workers);
  if (!plan.ok()) return plan.status();
  if (Status st = sweep::PrepareOutFolder(out); !st.ok()) return st;
  // The folder's own files may not replace an input: the sweep file itself
  // may be OUT/sweep.yaml.
  for (const char* own : {"/sweep.yaml", "/plan.jsonl", "/log.jsonl"})
    if (Status st =
            CheckOutput(out + own, OutputGuard{"--out", {{"the sweep file", file}}, false, ""});
        !st.ok())
      return st;
  if (Status st = sweep::WritePlan(out, ReadAll(file), plan.value()); !st.ok()) return st;
  const auto pending = PendingRuns(out, plan.value(), s.retry_failed);
  std::set<std::string> distinct;
  for (const PlanEntry& e : plan.value()) distinct.insert(e.digest);
  std::cout << "sweep " << spec.name << ": " << plan.value().size() << " runs";
  if (distinct.size() < plan.value().size())
    std::cout << " (" << distinct.size() << " distinct: the design visits some points twice)";
  std::cout << ", " << distinct.size() - pending.size() << " already done or recorded, "
            << pending.size() << " to run\n";
  if (!s.emit.empty()) {
    std::error_code ec;
    const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
    for (const PlanEntry* e : pending) {
      const std::string args =
          "sweep task '" + file + "' --out '" + out + "' --run " + std::to_string(e->run.index);
      std::cout << (s.emit == "parallel" ? "'" + self + "' " : "") << args << "\n";
    }
    return Status::Ok();
  }
  if (s.executor == "slurm") {
    std::error_code ec;
    const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
    SlurmSweepOptions so = s.slurm;
    auto ids = SubmitSweep(self, file, out, pending, so, Say);
    if (!ids.ok()) return ids.status();
    if (!so.wait) {
      std::cout << "follow with `utilsim sweep status " << s.out
                << "`; when done, `utilsim sweep merge " << s.out << "`\n";
      return Status::Ok();
    }
  } else {
    ExecOptions eo;
    eo.out = out;
    eo.workers = s.workers;
    eo.limits = spec.limits;
    eo.retry_failed = s.retry_failed;
    eo.say = s.quiet ? std::function<void(const std::string&)>() : Say;
    auto st = ExecuteRuns(resolver, pending, eo);
    if (!st.ok()) return st.status();
    std::cout << st.value().done << " runs finished, " << st.value().failed
              << " failed or over a limit, " << st.value().skipped << " done by another process\n";
  }
  if (s.no_merge) return Status::Ok();
  sweep::MergeOptions mo;
  mo.csv = out + "/sweep.csv";
  return MergeAndSay(out, mo);
}

Status TaskCommand(const SweepCliOptions& s) {
  const std::string file = Absolute(s.file), out = Absolute(s.out);
  auto plan = sweep::ReadPlan(out);
  if (!plan.ok()) return plan.status();
  std::vector<int> indices;
  if (s.run >= 0) {
    indices.push_back(s.run);
  } else {
    auto t = SlurmTaskRuns(out, s.task);
    if (!t.ok()) return t.status();
    indices = t.value();
  }
  std::vector<const PlanEntry*> runs;
  for (int i : indices) {
    if (i < 0 || i >= static_cast<int>(plan.value().size()))
      return Status::Error(StatusCode::kInvalidArgument,
                           "run " + std::to_string(i) + ": not in " + out + "/plan.jsonl (" +
                               std::to_string(plan.value().size()) + " runs)");
    runs.push_back(&plan.value()[i]);
  }
  auto spec = sweep::ReadSweepSpec(file);
  if (!spec.ok()) return spec.status();
  SweepResolver resolver(file);
  ExecOptions eo;
  eo.out = out;
  eo.workers = s.workers;
  eo.limits = spec.value().limits;
  eo.retry_failed = s.retry_failed;
  eo.say = Say;
  auto st = ExecuteRuns(resolver, runs, eo);
  return st.ok() ? Status::Ok() : st.status();
}

Status StatusCommand(const SweepCliOptions& s) {
  auto plan = sweep::ReadPlan(s.out);
  if (!plan.ok()) return plan.status();
  int done = 0, failed = 0;
  std::map<std::string, int> reasons;
  for (const PlanEntry& e : plan.value()) {
    const auto st = sweep::StateOf(s.out, e.digest);
    done += st == sweep::RunState::kDone;
    if (st == sweep::RunState::kFailed) {
      ++failed;
      auto f = sweep::ReadFailure(s.out, e.digest);
      ++reasons[f.ok() ? f.value().status : "unreadable record"];
    }
  }
  // Runs started (log) without an end: running now, or killed. Matched by
  // digest: the log may hold runs of an earlier version of the plan.
  std::map<std::string, int> open;
  std::ifstream log(s.out + "/log.jsonl");
  std::string line;
  double wall = 0;
  while (std::getline(log, line)) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("event") || !j["event"].is_string() ||
        !j.contains("digest") || !j["digest"].is_string())
      continue;  // not a line of ours (AppendLog writes every line whole)
    const std::string event = j["event"].get<std::string>();
    const std::string digest = j["digest"].get<std::string>();
    if (event == "start") ++open[digest];
    if (event == "done" || event == "failed") {
      --open[digest];
      if (j.contains("wall_s") && j["wall_s"].is_number()) wall += j["wall_s"].get<double>();
    }
  }
  int unfinished = 0;
  for (const PlanEntry& e : plan.value())
    if (auto it = open.find(e.digest); it != open.end() && it->second > 0) {
      unfinished += sweep::StateOf(s.out, e.digest) == sweep::RunState::kPending;
      it->second = 0;  // a digest the plan holds twice counts once
    }
  const int n = static_cast<int>(plan.value().size());
  std::cout << s.out << ": " << n << " runs: " << done << " finished, " << failed
            << " failed or over a limit, " << n - done - failed << " pending (" << unfinished
            << " of them started: running, or stopped by a kill)\n";
  for (const auto& [k, c] : reasons) std::cout << "  " << k << ": " << c << "\n";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", wall);
  std::cout << "run time so far: " << buf << " s in all (log.jsonl)\n";
  const auto ids = SlurmJobIds(s.out);
  if (!ids.empty()) {
    std::string list;
    for (const auto& id : ids) list += (list.empty() ? "" : ", ") + id;
    std::cout << "Slurm array jobs " << list << ": " << SlurmJobStates(s.slurm.slurm_bin, ids)
              << "\n";
  }
  return Status::Ok();
}

}  // namespace

CLI::App* AddSweepCommand(CLI::App* app, SweepCliOptions& s) {
  CLI::App* sw = app->add_subcommand(
      "sweep",
      "Parameter sweeps: many runs from one YAML file (axes, zipped axes, exclusions, Morris "
      "screening), resumable, on this machine or as Slurm job arrays, merged into one table "
      "(docs/sweeps.md)");
  sw->require_subcommand(1);
  auto workers = [&](CLI::App* c) {
    c->add_option("--workers", s.workers, "Runs at once in this process (default: one per core)")
        ->check(CLI::Range(1, 4096));
  };
  CLI::App* plan = sw->add_subcommand(
      "plan",
      "Print the runs a sweep file makes, the memory per run and, from a timed pilot run, "
      "the time they take, and the output layout; runs nothing else");
  plan->add_option("file", s.file, "The sweep file (YAML; docs/sweeps.md)")->required();
  plan->add_option("--out", s.out, "Also say how many runs this output folder already holds");
  plan->add_flag("--no-pilot", s.no_pilot, "Skip the timed pilot run");
  workers(plan);
  CLI::App* run = sw->add_subcommand(
      "run", "Run every run of a sweep not already done in --out (a rerun resumes), then merge");
  run->add_option("file", s.file, "The sweep file (YAML; docs/sweeps.md)")->required();
  run->add_option("--out", s.out, "Output folder (created; docs/sweeps.md, \"The output folder\")")
      ->required();
  run->add_option("--executor", s.executor,
                  "local: runs in this process on --workers threads; slurm: sbatch --array jobs "
                  "(chunked to MaxArraySize)")
      ->check(CLI::IsMember({"local", "slurm"}))
      ->capture_default_str();
  workers(run);
  run->add_flag("--retry-failed", s.retry_failed,
                "Run again the runs recorded as failed or over a limit");
  run->add_option("--emit", s.emit,
                  "Print the pending runs as command lines instead of running them: xargs "
                  "(arguments of utilsim, for `| xargs -P N -L 1 utilsim`) or parallel (whole "
                  "commands, for `| parallel -j N`)")
      ->check(CLI::IsMember({"xargs", "parallel"}));
  run->add_flag("--no-merge", s.no_merge, "Do not merge at the end");
  run->add_flag("-q,--quiet", s.quiet, "No line per finished run");
  run->add_option("--tasks", s.slurm.tasks,
                  "slurm: array tasks in all (default: one per pending run); each runs its share "
                  "of the runs in one process")
      ->check(CLI::Range(1, 1000000));
  run->add_option("--max-parallel", s.slurm.max_parallel,
                  "slurm: at most this many tasks running at once (the %K of --array)")
      ->check(CLI::Range(1, 1000000));
  run->add_option("--cpus-per-task", s.slurm.cpus_per_task,
                  "slurm: CPUs of each task, and its worker threads")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  run->add_option("--sbatch-arg", s.slurm.sbatch_args,
                  "slurm: an argument for sbatch, e.g. --sbatch-arg=--partition=cpu (repeatable)");
  run->add_flag("--wait", s.slurm.wait,
                "slurm: wait until the array jobs have left the queue, then merge");
  run->add_option("--slurm-bin", s.slurm.slurm_bin,
                  "slurm: folder of sbatch, squeue, scontrol (default: PATH)");
  CLI::App* task = sw->add_subcommand(
      "task",
      "Run some runs of a planned sweep: a Slurm array task's share (--task) or one run "
      "(--run); what `sweep run --executor slurm` and `--emit` call");
  task->add_option("file", s.file, "The sweep file")->required();
  task->add_option("--out", s.out, "The sweep's output folder")->required();
  auto* t = task->add_option("--task", s.task, "Line of OUT/slurm/tasks.txt (0-based)")
                ->check(CLI::NonNegativeNumber);
  task->add_option("--run", s.run, "One run by its index in OUT/plan.jsonl")
      ->check(CLI::NonNegativeNumber)
      ->excludes(t);
  task->add_flag("--retry-failed", s.retry_failed, "Run again a run recorded as failed");
  workers(task);
  CLI::App* status = sw->add_subcommand(
      "status",
      "How many runs of a sweep are finished, failed, pending or running; the Slurm "
      "array jobs' states (sacct/squeue)");
  status->add_option("out", s.out, "The sweep's output folder")->required();
  status->add_option("--slurm-bin", s.slurm.slurm_bin, "Folder of sacct and squeue");
  CLI::App* merge = sw->add_subcommand(
      "merge",
      "Merge a sweep's runs into one results database (per-run tables, the table "
      "sweep_runs with the swept values as columns, Morris effects) and a CSV");
  merge->add_option("out", s.out, "The sweep's output folder")->required();
  merge->add_option("--db", s.merged_db, "Database to write (default OUT/merged.db)");
  merge->add_option("--csv", s.merged_csv, "Also write the one-row-per-run table as CSV");
  s.plan_cmd = plan;
  s.run_cmd = run;
  s.task_cmd = task;
  s.status_cmd = status;
  s.merge_cmd = merge;
  return sw;
}

Status CheckSweepOptions(const SweepCliOptions& s) {
  if (s.task_cmd && s.task_cmd->parsed() && s.task < 0 && s.run < 0)
    return Status::Error("sweep task: give --task I or --run I");
  if (s.run_cmd && s.run_cmd->parsed() && s.executor != "slurm") {
    const CLI::App* r = s.run_cmd;
    for (const char* o : {"--tasks", "--max-parallel", "--sbatch-arg", "--wait", "--slurm-bin"})
      if (r->get_option(o)->count() > 0)
        return Status::Error(std::string(o) + ": only with --executor slurm");
  }
  if (s.run_cmd && s.run_cmd->parsed() && !s.emit.empty() && s.executor == "slurm")
    return Status::Error(
        "--emit: prints the runs for your own executor; not with --executor slurm");
  return Status::Ok();
}

Status SweepCommand(SweepCliOptions& s) {
  if (s.workers <= 0) s.workers = DefaultWorkers();
  if (s.plan_cmd->parsed()) return PlanCommand(s);
  if (s.run_cmd->parsed()) return RunCommand(s);
  if (s.task_cmd->parsed()) return TaskCommand(s);
  if (s.status_cmd->parsed()) return StatusCommand(s);
  sweep::MergeOptions mo;
  mo.db = s.merged_db;
  mo.csv = s.merged_csv;
  return MergeAndSay(s.out, mo);
}

}  // namespace utilsim::cli
