// Resolving and running a sweep's runs in this process (sweep_exec.h).
#include "sweep_exec.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "cli_options.h"
#include "utilsim/analysis/memory_guard.h"
#include "utilsim/analysis/plan.h"
#include "utilsim/engine/parallel.h"
#include "utilsim/results/result_store.h"

namespace utilsim::cli {
namespace {

namespace fs = std::filesystem;
using sweep::Param;
using sweep::PlanEntry;

const std::set<std::string> kPathKeys = {"trace",        "cluster",   "telemetry",
                                         "util-library", "node-list", "profiles"};
const std::set<std::string> kRefused = {"out",        "csv",  "progress", "threads",
                                        "max-memory", "help", "report"};

// The long names (without --) of `cmd`'s options.
std::set<std::string> OptionNames(CLI::App& cmd) {
  std::set<std::string> names;
  for (const CLI::Option* opt : cmd.get_options())
    for (const std::string& n : opt->get_lnames()) names.insert(n);
  return names;
}

// Options that decide the inputs (Input and Cluster groups).
const std::set<std::string>& InputKeys() {
  static const std::set<std::string> keys = [] {
    CLI::App app;
    CliOptions o;
    AddInputOptions(&app, o);
    AddClusterOptions(&app, o);
    return OptionNames(app);
  }();
  return keys;
}

// `value` with every ${NAME} replaced by the environment variable NAME.
Result<std::string> ExpandEnv(const std::string& value) {
  std::string out;
  size_t pos = 0;
  while (pos < value.size()) {
    const size_t at = value.find("${", pos);
    if (at == std::string::npos) break;
    const size_t end = value.find('}', at);
    if (end == std::string::npos) break;
    const std::string name = value.substr(at + 2, end - at - 2);
    const char* v = std::getenv(name.c_str());
    if (!v) return Status::Error("environment variable " + name + " is not set");
    out += value.substr(pos, at - pos) + v;
    pos = end + 1;
  }
  return out + value.substr(pos);
}

std::string WithDir(const std::string& dir, const std::string& value) {
  if (dir.empty()) return value;
  std::string out;
  size_t pos = 0;
  while (pos <= value.size()) {
    size_t end = value.find(',', pos);
    if (end == std::string::npos) end = value.size();
    std::string item = value.substr(pos, end - pos);
    if (!item.empty() && item[0] != '/' && item.rfind("builtin:", 0) != 0) item = dir + "/" + item;
    out += (out.empty() && pos == 0 ? "" : ",") + item;
    pos = end + 1;
  }
  return out;
}

Status LineError(const std::string& path, const sweep::SweepRun& run, const std::string& key,
                 const std::string& what) {
  int line = 0;
  for (const Param& p : run.options)
    if (p.key == key) line = p.line;
  // CLI11's messages may start with the option's own name: said once.
  const std::string own = "--" + key + ": ";
  const std::string text = what.rfind(own, 0) == 0 ? what.substr(own.size()) : what;
  return Status::Error(
      StatusCode::kInvalidArgument,
      path + (line > 0 ? ":" + std::to_string(line) : "") + ": option --" + key + ": " + text);
}

// Relative cost of a run for longest-first ordering and the plan's time
// estimate: jobs x log2(2 + nodes) x the offered load's square (queues grow
// with congestion, and so does the work per event) x a factor of the queue
// policy (rough ratios of their run times on the same congested workload:
// docs/performance.md and the 200-run sweep of docs/sweeps.md). A heuristic:
// it orders runs, it does not promise seconds.
double Cost(const Inputs& in, const ClusterSpec& c, const std::string& policy, const RunSpec& s) {
  const auto& jobs = in.workload.jobs;
  double work = 0;
  for (const Job& j : jobs)
    work += static_cast<double>(j.tasks) * j.task.gpus * j.task.gpu_milli / 1000.0 *
            j.runtime.seconds();
  const double span =
      jobs.empty() ? 1 : std::max(1.0, (jobs.back().submit - jobs.front().submit).seconds());
  const double load = work / (static_cast<double>(std::max<int64_t>(1, c.total_gpus())) * span);
  const std::string queue = policy.substr(0, policy.find('+'));
  double w = 1;
  for (const auto& [name, weight] :
       std::vector<std::pair<std::string, double>>{{"as-recorded", 0.5},
                                                   {"sjf", 3},
                                                   {"drf", 5},
                                                   {"easy-backfill", 8},
                                                   {"tiresias", 15},
                                                   {"priority-preempt", 15},
                                                   {"conservative-backfill", 40}})
    if (queue.rfind(name, 0) == 0) w = weight;
  if (policy.find("topology") != std::string::npos) w *= 3;
  if (s.mig.mode == MigSpec::Mode::kDynamic) w *= 10;
  const double l = std::max(0.25, load);
  return static_cast<double>(jobs.size()) * std::log2(2.0 + static_cast<double>(c.total_nodes())) *
         l * l * w;
}

std::shared_ptr<const Inputs> ScaleArrivals(const Inputs& in, double f) {
  auto out = std::make_shared<Inputs>(in);
  if (out->workload.jobs.empty()) return out;
  const Micros t0 = out->workload.jobs.front().submit;
  for (Job& j : out->workload.jobs) {
    j.submit = Micros{t0.us + std::llround(static_cast<double>((j.submit - t0).us) / f)};
    j.recorded_start.reset();
  }
  out->notes.push_back("arrival-scale " + std::to_string(f) +
                       ": submission gaps divided by it; recorded starts dropped");
  return out;
}

}  // namespace

SweepResolver::SweepResolver(std::string sweep_path) : path_(std::move(sweep_path)) {
  dir_ = fs::path(path_).parent_path().string();
}

size_t SweepResolver::inputs_loaded() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [key, slot] : inputs_) {
    std::lock_guard<std::mutex> l(slot->mu);
    n += slot->inputs != nullptr && key.find("arrival-scale=") == std::string::npos;
  }
  return n;
}

std::shared_ptr<SweepResolver::Slot> SweepResolver::slot(
    std::map<std::string, std::shared_ptr<Slot>>& m, const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& s = m[key];
  if (!s) s = std::make_shared<Slot>();
  return s;
}

Result<ResolvedRun> SweepResolver::Resolve(const sweep::SweepRun& run) {
  CLI::App app;
  CliOptions o;
  AddInputOptions(&app, o);
  AddClusterOptions(&app, o);
  app.add_option("--policy", o.policy);
  AddProfilesOption(&app, o);
  AddCoResourceOptions(&app, o);
  AddModelOptions(&app, o);
  AddRunOptions(&app, o);
  double cluster_scale = 1, arrival_scale = 1;
  app.add_option("--cluster-scale", cluster_scale)->check(CLI::PositiveNumber);
  app.add_option("--arrival-scale", arrival_scale)->check(CLI::PositiveNumber);
  const std::set<std::string> known = OptionNames(app);
  std::vector<std::string> args;
  std::string input_key, reg_key;
  for (const Param& p : run.options) {
    if (kRefused.count(p.key))
      return LineError(path_, run, p.key,
                       "set by the sweep for all its runs, not per run (docs/sweeps.md)");
    if (!known.count(p.key))
      return LineError(path_, run, p.key, "not an option of `utilsim run` (utilsim run --help)");
    std::string value = p.value;
    if (kPathKeys.count(p.key)) {
      auto expanded = ExpandEnv(p.value);
      if (!expanded.ok()) return LineError(path_, run, p.key, expanded.status().message());
      value = WithDir(dir_, expanded.value());
    }
    args.push_back("--" + p.key + "=" + value);
    if (InputKeys().count(p.key)) input_key += p.key + "=" + value + "\n";
    if (p.key == "profiles") reg_key = value;
  }
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what(), key;
    for (const Param& p : run.options)
      if (msg.find("--" + p.key) != std::string::npos && p.key.size() > key.size()) key = p.key;
    if (key.empty())
      return Status::Error(StatusCode::kInvalidArgument,
                           path_ + ": run " + std::to_string(run.index) + ": " + msg);
    return LineError(path_, run, key, msg);
  }
  auto spec = ToRunSpec(o.run, o.input.seed);
  if (!spec.ok())
    return Status::Error(
        StatusCode::kInvalidArgument,
        path_ + ": run " + std::to_string(run.index) + ": " + FlagError(spec.status()).message());
  ResolvedRun r;
  r.spec = spec.value();
  r.spec.threads = 1;
  r.policy = o.policy;
  // Inputs and registry: loaded once per distinct key. Each key has its
  // own slot and lock, so different inputs load in parallel while a second
  // run of the same inputs waits for the first load.
  auto reg = slot(regs_, reg_key);
  {
    std::lock_guard<std::mutex> lock(reg->mu);
    if (!reg->reg) {
      auto fresh = std::make_shared<PolicyRegistry>(BuiltinPolicies());
      if (!reg_key.empty())
        if (Status s = LoadProfiles(reg_key, fresh.get()); !s.ok()) return s;
      reg->reg = fresh;
    }
    r.reg = reg->reg;
  }
  auto base = slot(inputs_, input_key);
  {
    std::lock_guard<std::mutex> lock(base->mu);
    if (!base->inputs) {
      auto in = LoadInputs(o.input);
      if (!in.ok())
        return in.status().Prefixed(path_ + ": run " + std::to_string(run.index) + ": ");
      base->inputs = std::make_shared<const Inputs>(std::move(in.value()));
    }
    r.inputs = base->inputs;
  }
  if (arrival_scale != 1) {
    auto scaled = slot(inputs_, input_key + "arrival-scale=" + std::to_string(arrival_scale));
    std::lock_guard<std::mutex> lock(scaled->mu);
    if (!scaled->inputs) scaled->inputs = ScaleArrivals(*r.inputs, arrival_scale);
    r.inputs = scaled->inputs;
  }
  if (Status s = CheckPolicyList({r.policy}, "--policy", *r.reg); !s.ok())
    return LineError(path_, run, "policy", s.message().substr(s.message().find(':') + 2));
  r.cluster = r.inputs->cluster;
  if (cluster_scale != 1) {
    const int64_t total = std::max<int64_t>(
        1, std::llround(static_cast<double>(r.cluster.total_nodes()) * cluster_scale));
    auto scaled = ScaleCluster(r.cluster, total);
    if (!scaled.ok()) return LineError(path_, run, "cluster-scale", scaled.status().message());
    r.cluster = std::move(scaled.value());
  }
  r.digest = sweep::RunDigest(r.inputs->digest, run.options);
  r.cost = Cost(*r.inputs, r.cluster, r.policy, r.spec);
  return r;
}

Result<std::vector<PlanEntry>> PlanSweep(const sweep::SweepSpec& spec, SweepResolver& resolver,
                                         int workers) {
  auto runs = sweep::ExpandSweep(spec);
  if (!runs.ok()) return runs.status();
  // Two runs may be the same run (a Morris design can visit a point twice):
  // they share one digest, so one result.
  const auto& all = runs.value();
  std::vector<PlanEntry> plan(all.size());
  std::vector<Status> errors(all.size());
  ParallelFor(all.size(), static_cast<size_t>(std::max(1, workers)), [&](size_t i) {
    auto r = resolver.Resolve(all[i]);
    if (!r.ok()) {
      errors[i] = r.status();
      return;
    }
    plan[i] = {all[i], r.value().digest, r.value().cost};
  });
  for (const Status& e : errors)  // the first run's error, as a serial plan would
    if (!e.ok()) return e;
  return plan;
}

std::vector<const PlanEntry*> PendingRuns(const std::string& out,
                                          const std::vector<PlanEntry>& plan, bool retry_failed) {
  std::vector<const PlanEntry*> pending;
  std::set<std::string> seen;
  for (const PlanEntry& e : plan) {
    if (!seen.insert(e.digest).second) continue;  // the same run twice
    const sweep::RunState st = sweep::StateOf(out, e.digest);
    if (st == sweep::RunState::kDone) continue;
    if (st == sweep::RunState::kFailed && !retry_failed) continue;
    pending.push_back(&e);
  }
  std::stable_sort(pending.begin(), pending.end(),
                   [](const PlanEntry* a, const PlanEntry* b) { return a->cost > b->cost; });
  return pending;
}

namespace {

// One run: resolved, checked against the memory limit, simulated with the
// time limit, written. Returns the failure (status empty = success).
sweep::RunFailure RunOne(SweepResolver& resolver, const PlanEntry& e, const ExecOptions& opt) {
  auto r = resolver.Resolve(e.run);
  if (!r.ok()) return {"failed", r.status().message()};
  const ResolvedRun& rr = r.value();
  if (rr.digest != e.digest)
    return {"failed", "inputs changed since the plan (digest " + rr.digest.substr(0, 12) +
                          ", planned " + e.digest.substr(0, 12) + "); rerun `sweep run`"};
  if (opt.limits.memory_bytes > 0) {
    Status s = CheckMemory(DemandOfRuns(*rr.inputs, rr.spec, 1, "1 run"),
                           MemoryLimit{opt.limits.memory_bytes, "the sweep's limits.memory"});
    if (!s.ok()) return {"memory", s.message()};
  }
  auto prepared = BuildRun(rr.spec, *rr.inputs, rr.cluster, *rr.reg);
  if (!prepared.ok()) return {"failed", prepared.status().message()};
  std::atomic<bool> timed_out{false};
  EventObserver observer;
  if (opt.limits.time_s > 0) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(opt.limits.time_s));
    auto count = std::make_shared<int64_t>(0);
    observer = [deadline, count, &timed_out](const EngineEvent&, RunControl& rc) {
      if ((++*count & 255) == 0 && std::chrono::steady_clock::now() > deadline) {
        timed_out = true;
        rc.RequestStop();
      }
    };
  }
  auto result = prepared.value()->Simulate(rr.policy, observer);
  if (timed_out)
    return {"timeout", "stopped after the time limit of " +
                           std::to_string(static_cast<int64_t>(opt.limits.time_s)) + " s"};
  if (!result.ok()) return {"failed", result.status().message()};
  if (Status s = WriteResults({result.value()}, sweep::RunDbPath(opt.out, e.digest)); !s.ok())
    return {"failed", s.message()};
  return {};
}

}  // namespace

Result<ExecStats> ExecuteRuns(SweepResolver& resolver, const std::vector<const PlanEntry*>& runs,
                              const ExecOptions& opt) {
  ExecStats stats;
  std::mutex mu;
  Status fatal;
  // A run killed between writing its result and logging it is done: its
  // "done" line is written now, so that the log lists every finished run.
  const std::set<std::string> logged_done = sweep::LoggedDone(opt.out);
  ParallelFor(runs.size(), static_cast<size_t>(std::max(1, opt.workers)), [&](size_t i) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!fatal.ok()) return;  // the folder cannot be written: start nothing more
    }
    {
      const PlanEntry& e = *runs[i];
      const sweep::RunState state = sweep::StateOf(opt.out, e.digest);
      if (state == sweep::RunState::kDone ||
          (!opt.retry_failed && state == sweep::RunState::kFailed)) {
        Status logged;
        if (state == sweep::RunState::kDone && !logged_done.count(e.digest))
          logged = sweep::AppendLog(opt.out, "done", e, -1,
                                    "result found on resume: the sweep stopped before logging it");
        std::lock_guard<std::mutex> lock(mu);
        if (!logged.ok()) fatal = logged;
        ++stats.skipped;
        return;
      }
      if (Status s = sweep::AppendLog(opt.out, "start", e, -1); !s.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        fatal = s;
        return;
      }
      {
        std::lock_guard<std::mutex> lock(mu);
        ++stats.started;
      }
      const auto t0 = std::chrono::steady_clock::now();
      sweep::RunFailure f = RunOne(resolver, e, opt);
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      Status logged;
      if (!f.status.empty()) {
        if (Status s = sweep::RecordFailure(opt.out, e.digest, f); !s.ok()) logged = s;
        if (logged.ok()) logged = sweep::AppendLog(opt.out, "failed", e, wall, f.reason);
      } else {
        logged = sweep::AppendLog(opt.out, "done", e, wall);
      }
      std::lock_guard<std::mutex> lock(mu);
      if (!logged.ok()) {
        fatal = logged;
        return;
      }
      f.status.empty() ? ++stats.done : ++stats.failed;
      if (opt.say) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.2f s", wall);
        std::string line = "run " + std::to_string(e.run.index) + " ";
        for (const Param& p : e.run.swept) line += p.key + "=" + p.value + " ";
        line += f.status.empty() ? std::string("done in ") + buf
                                 : f.status + " after " + buf + ": " + f.reason;
        opt.say(line);
      }
    }
  });
  if (!fatal.ok()) return fatal;
  return stats;
}

}  // namespace utilsim::cli
