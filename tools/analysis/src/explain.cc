#include "utilsim/analysis/explain.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "inspect_stats.h"

namespace utilsim {
namespace {

std::string Span(double s) {
  char buf[48];
  if (s < 120)
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 7200)
    std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  else
    std::snprintf(buf, sizeof buf, "%.2f h", s / 3600);
  return buf;
}

const char* Meaning(WaitCause c) {
  switch (c) {
    case WaitCause::kCapacity:
      return "not enough free GPUs in the whole cluster";
    case WaitCause::kGpuModel:
      return "enough free GPUs, but not of a model it allows";
    case WaitCause::kFragmentation:
      return "enough free GPUs of its models, but no node (set) has them together";
    case WaitCause::kCoResource:
      return "nodes have its GPUs free, but not the CPU or memory beside them";
    case WaitCause::kPlacement:
      return "the resources were there; the placement policy found no node set";
    case WaitCause::kMigLayout:
      return "no MIG instance of its profile was free or could be made";
    case WaitCause::kReservation:
      return "it would have fit, but would have delayed a reservation";
    case WaitCause::kQueueOrder:
      return "not considered: jobs ahead of it held the queue";
    case WaitCause::kRecordedStart:
      return "replay: its recorded start had not come";
    case WaitCause::kPreemption:
      return "preempted; queued again";
    case WaitCause::kPowerOn:
      return "it fits only on nodes powered off or still waking up";
    case WaitCause::kPowerBudget:
      return "the resources were there; the power budget was not";
    case WaitCause::kNodesDown:
      return "it fits only on nodes that were down, drained or absent";
    default:
      return "";
  }
}

// The earliest time the GPUs job `rec` needs are free, from the jobs of `run`
// running at t ending at their recorded runtimes (ExplainStep::
// capacity_estimate); kNever when the cluster's size is unknown or they
// never are.
Micros CapacityEstimate(const RunResult& run, const JobRecord& rec, Micros t) {
  const int64_t capacity = run.summary.capacity_gpus * 1000;
  if (capacity <= 0 || rec.gpu_milli <= 0) return kNever;
  int64_t used = 0;
  std::vector<std::pair<Micros, int64_t>> ends;
  for (const JobRecord& k : run.jobs) {
    if (k.start.us < 0 || k.start > t || (k.finish.us >= 0 && k.finish <= t) || k.job == rec.job)
      continue;
    used += k.gpu_milli;
    ends.emplace_back(std::max(t, k.start + k.recorded_runtime), k.gpu_milli);
  }
  int64_t free = capacity - used;
  if (free >= rec.gpu_milli) return t;
  std::sort(ends.begin(), ends.end());
  for (const auto& [end, milli] : ends) {
    free += milli;
    if (free >= rec.gpu_milli) return end;
  }
  return kNever;
}

// The cause job k was waiting on at instant t, or kCount when it was not
// queued then.
WaitCause CauseAt(const JobRecord& k, Micros t) {
  for (const WaitInterval& w : k.waits)
    if (w.from <= t && t < w.to) return w.cause;
  return WaitCause::kCount;
}

}  // namespace

Result<Explanation> ExplainJob(const std::vector<RunResult>& runs, const std::string& run_label,
                               const std::string& job) {
  const RunResult* run = nullptr;
  std::string labels;
  for (const RunResult& r : runs) {
    labels += (labels.empty() ? "" : ", ") + r.meta.label;
    if (run_label.empty() ? run == nullptr : r.meta.label == run_label) run = &r;
  }
  if (runs.empty()) return Status::Error("the database holds no run");
  if (run == nullptr)
    return Status::Error("--run: no run labelled '" + run_label + "' (runs: " + labels + ")");
  if (run_label.empty() && runs.size() > 1)
    return Status::Error("--run: the database holds " + std::to_string(runs.size()) +
                         " runs; say which (" + labels + ")");
  const JobRecord* rec = nullptr;
  if (!job.empty() && job[0] == '#') {
    char* end = nullptr;
    const unsigned long long i = std::strtoull(job.c_str() + 1, &end, 10);
    if (end != job.c_str() + 1 && *end == '\0' && i < run->jobs.size()) rec = &run->jobs[i];
  } else {
    for (const JobRecord& r : run->jobs)
      if (r.name == job) {
        rec = &r;
        break;
      }
  }
  if (rec == nullptr)
    return Status::Error("--job: no job '" + job + "' in run '" + run->meta.label + "' (" +
                         std::to_string(run->jobs.size()) + " jobs; give a name or #index)");
  Explanation e;
  e.run_label = run->meta.label;
  e.job = *rec;
  for (const WaitInterval& w : rec->waits) {
    ExplainStep st;
    st.interval = w;
    if (w.blocker != kNoBlocker && w.blocker < run->jobs.size())
      st.blocker_name = run->jobs[w.blocker].name;
    if (w.cause == WaitCause::kCapacity)
      st.capacity_estimate = CapacityEstimate(*run, *rec, w.from);
    if (w.cause == WaitCause::kQueueOrder) {
      for (const JobRecord& k : run->jobs) {
        if (k.job == rec->job || k.submit > rec->submit ||
            (k.submit == rec->submit && k.job > rec->job))
          continue;
        const WaitCause c = CauseAt(k, w.from);
        if (c == WaitCause::kCount || c == WaitCause::kQueueOrder) continue;
        ++st.ahead_total;
        if (st.ahead.size() < 5) st.ahead.push_back({k.job, k.name, c});
      }
    }
    e.steps.push_back(std::move(st));
  }
  return e;
}

std::string FormatExplanation(const Explanation& e) {
  const JobRecord& j = e.job;
  std::string out =
      "job " + j.name + " (#" + std::to_string(j.job) + ") in run " + e.run_label + "\n";
  char gpus[32];
  std::snprintf(gpus, sizeof gpus, "%g", static_cast<double>(j.gpu_milli) / 1000);
  out += "  submitted " + DayClock(j.submit.seconds()) + ", " + std::to_string(j.tasks) +
         " task(s), " + gpus + " GPUs in all\n";
  if (j.outcome == JobOutcome::kRejected) return out + "  rejected: " + j.reason + "\n";
  if (j.start.us >= 0)
    out += "  started   " + DayClock(j.start.seconds()) + " after " + Span(j.wait_s()) +
           (j.preemptions ? " (then preempted " + std::to_string(j.preemptions) + "x)" : "") + "\n";
  else
    out += "  not started by the end of the run (queued " + Span(j.queued_s) + ")\n";
  if (j.queued_s <= 0) return out + "  it never waited\n";
  out += "  queued " + Span(j.queued_s) + " in all, by primary cause:\n";
  for (size_t c = 0; c < kWaitCauses; ++c) {
    if (j.wait_cause_s[c] <= 0) continue;
    char pct[16];
    std::snprintf(pct, sizeof pct, "%5.1f %%", 100.0 * j.wait_cause_s[c] / j.queued_s);
    std::string name = WaitCauseName(static_cast<WaitCause>(c));
    name.resize(std::max<size_t>(name.size(), 15), ' ');
    out += "    " + name + " " + Span(j.wait_cause_s[c]) + "  " + pct + "\n";
  }
  out += "  timeline:\n";
  for (const ExplainStep& s : e.steps) {
    const WaitInterval& w = s.interval;
    out += "    " + DayClock(w.from.seconds()) + " .. " + DayClock(w.to.seconds()) + "  " +
           WaitCauseName(w.cause) + " (" + Span((w.to - w.from).seconds()) +
           "): " + Meaning(w.cause);
    if (!s.blocker_name.empty()) out += "; held by job " + s.blocker_name;
    out += "\n";
    if (w.estimate != kNever)
      out += "      the scheduler's estimated start (its reservation): " +
             DayClock(w.estimate.seconds()) + "\n";
    if (s.capacity_estimate != kNever)
      out += "      enough GPUs free at " + DayClock(s.capacity_estimate.seconds()) +
             " had the jobs then running ended at their recorded runtimes\n";
    if (const NodeCounts& n = w.nodes; n.known)
      out += "      nodes then: " + std::to_string(n.fits) + " could host a task, " +
             std::to_string(n.model) + " excluded by GPU model, " + std::to_string(n.gpus) +
             " short of GPUs, " + std::to_string(n.cpu) + " of CPU, " + std::to_string(n.mem) +
             " of memory, " + std::to_string(n.power) + " of power budget, " +
             std::to_string(n.unavailable) + " unavailable\n";
    if (!s.ahead.empty()) {
      out += "      ahead of it then: " + std::to_string(s.ahead_total) +
             " job(s) waiting for resources, first ";
      for (size_t i = 0; i < s.ahead.size(); ++i)
        out += (i ? ", " : "") + s.ahead[i].name + " (" + WaitCauseName(s.ahead[i].cause) + ")";
      out += "\n";
    }
  }
  return out;
}

std::string ExplanationJson(const Explanation& e) {
  using nlohmann::ordered_json;
  const JobRecord& j = e.job;
  ordered_json o;
  o["run"] = e.run_label;
  o["job"] = j.name;
  o["job_index"] = j.job;
  o["outcome"] = JobOutcomeName(j.outcome);
  o["submit_s"] = j.submit.seconds();
  o["start_s"] = j.start.us >= 0 ? ordered_json(j.start.seconds()) : ordered_json(nullptr);
  o["queued_s"] = j.queued_s;
  ordered_json by = ordered_json::object();
  for (size_t c = 0; c < kWaitCauses; ++c)
    by[WaitCauseName(static_cast<WaitCause>(c))] = j.wait_cause_s[c];
  o["wait_by_cause_s"] = by;
  ordered_json steps = ordered_json::array();
  for (const ExplainStep& s : e.steps) {
    ordered_json x;
    x["from_s"] = s.interval.from.seconds();
    x["to_s"] = s.interval.to.seconds();
    x["cause"] = WaitCauseName(s.interval.cause);
    x["blocker"] = s.blocker_name.empty() ? ordered_json(nullptr) : ordered_json(s.blocker_name);
    x["estimated_start_s"] = s.interval.estimate == kNever
                                 ? ordered_json(nullptr)
                                 : ordered_json(s.interval.estimate.seconds());
    x["capacity_free_s"] = s.capacity_estimate == kNever
                               ? ordered_json(nullptr)
                               : ordered_json(s.capacity_estimate.seconds());
    if (const NodeCounts& n = s.interval.nodes; n.known)
      x["nodes"] = {{"fit", n.fits},
                    {"model", n.model},
                    {"gpus", n.gpus},
                    {"cpu", n.cpu},
                    {"mem", n.mem},
                    {"power", n.power},
                    {"unavailable", n.unavailable}};
    else
      x["nodes"] = nullptr;
    ordered_json ahead = ordered_json::array();
    for (const ExplainAhead& a : s.ahead)
      ahead.push_back({{"job", a.name}, {"cause", WaitCauseName(a.cause)}});
    x["ahead"] = ahead;
    x["ahead_total"] = s.ahead_total;
    steps.push_back(x);
  }
  o["timeline"] = steps;
  return o.dump(2) + "\n";
}

}  // namespace utilsim
