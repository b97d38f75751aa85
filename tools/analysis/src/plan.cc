// `utilsim plan`: targets, candidate clusters and the search
// (docs/planning.md). Output formatting is in plan_format.cc.
#include "utilsim/analysis/plan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <map>
#include <memory>

#include "utilsim/analysis/progress.h"
#include "utilsim/engine/parallel.h"
#include "utilsim/traces/canonical.h"

namespace utilsim {
namespace {

std::string Strip(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t') out += c;
  return out;
}

// Parses a number with an optional duration unit into seconds.
std::optional<double> ParseSeconds(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t used = 0;
  double v;
  try {
    v = std::stod(text, &used);
  } catch (...) {
    return std::nullopt;
  }
  const std::string unit = text.substr(used);
  double mul;
  if (unit.empty() || unit == "s")
    mul = 1;
  else if (unit == "m" || unit == "min")
    mul = 60;
  else if (unit == "h")
    mul = 3600;
  else if (unit == "d")
    mul = 86400;
  else
    return std::nullopt;
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  return v * mul;
}

// Watches one run's events and stops the run (RunControl::RequestStop) as
// soon as some target is certain to fail, whatever happens later. Exact, not
// a heuristic:
//  * a job not started by submit + limit will wait longer than the limit;
//    its total queued time is at least its wait, so this holds for the
//    queued targets too, and a job that starts (again) after having been
//    queued longer than the limit in all is late for a queued target;
//  * the final number of started jobs is at most jobs - rejected so far, and
//    every target's figure is, for a fixed count of waits above the limit,
//    largest when that number is largest (nearest-rank percentiles, as
//    Summary computes them; mean >= sum of waits so far / that number).
// Valid only when every job that is not rejected eventually starts: no
// horizon and not the as-recorded queue (jobs without a recorded start never
// start there); Plan does not install it otherwise.
class EarlyStop {
 public:
  EarlyStop(const Workload& w, const std::vector<PlanTarget>& targets)
      : w_(w),
        targets_(targets),
        started_(w.jobs.size()),
        next_(targets.size()),
        late_(targets.size()),
        queued_acc_s_(w.jobs.size(), 0.0),
        queued_since_s_(w.jobs.size(), 0.0),
        first_start_s_(w.jobs.size(), 0.0),
        late_queued_(w.jobs.size(), 0) {}

  // stopped(): the run was stopped, at stopped_at_s().
  bool stopped() const { return stopped_; }
  double stopped_at_s() const { return stopped_at_s_; }

  void Observe(const EngineEvent& e, RunControl& run) {
    if (stopped_) return;
    const double t = e.time.seconds();
    const JobIndex j = e.job;
    for (size_t k = 0; k < targets_.size(); ++k) {
      const double limit = targets_[k].limit_s;
      size_t& p = next_[k];
      while (p < w_.jobs.size() && w_.jobs[p].submit.seconds() + limit < t) {
        if (started_[p] == 0) ++late_[k];  // not started, not rejected, not yet arrived
        ++p;
      }
    }
    if (e.kind == EventKind::kArrival) {
      ++queued_;
      queued_submit_s_ += w_.jobs[j].submit.seconds();
      queued_since_s_[j] = t;
    } else if (e.kind == EventKind::kPreempt || e.kind == EventKind::kInterrupt) {
      queued_since_s_[j] = t;
    } else if (e.kind == EventKind::kReject) {
      ++rejected_;
      // A rejected job was never queued; not late. (Its deadline may have
      // passed already only if it arrived after it, which cannot happen.)
      started_[j] = 2;
    }
    if (e.kind == EventKind::kStart) {
      queued_acc_s_[j] += t - queued_since_s_[j];
      if (started_[j] == 0) first_start_s_[j] = t;
      // Late for a queued target once: not if the deadline scan above
      // already counted it (first start after submit + limit).
      for (size_t k = 0; k < targets_.size() && k < 64; ++k) {
        const bool counted = w_.jobs[j].submit.seconds() + targets_[k].limit_s < first_start_s_[j];
        if (targets_[k].queued && !(late_queued_[j] >> k & 1) && !counted &&
            queued_acc_s_[j] > targets_[k].limit_s) {
          late_queued_[j] |= uint64_t{1} << k;
          ++late_[k];
        }
      }
    }
    if (e.kind == EventKind::kStart && started_[j] == 0) {
      started_[j] = 1;
      --queued_;
      queued_submit_s_ -= w_.jobs[j].submit.seconds();
      wait_sum_s_ += t - w_.jobs[j].submit.seconds();
    }
    if (Certain(t)) {
      stopped_ = true;
      stopped_at_s_ = t;
      run.RequestStop();
    }
  }

 private:
  bool Certain(double t) const {
    const int64_t m = static_cast<int64_t>(w_.jobs.size()) - rejected_;  // >= final started
    if (m <= 0) return false;
    for (size_t k = 0; k < targets_.size(); ++k) {
      const PlanTarget& tg = targets_[k];
      double q = 100;
      switch (tg.metric) {
        case PlanTarget::Metric::kMean: {
          const double lower = wait_sum_s_ + static_cast<double>(queued_) * t - queued_submit_s_;
          if (lower > tg.limit_s * static_cast<double>(m) * (1 + 1e-9) + 1e-3) return true;
          continue;
        }
        case PlanTarget::Metric::kP50:
          q = 50;
          break;
        case PlanTarget::Metric::kP95:
          q = 95;
          break;
        case PlanTarget::Metric::kP99:
          q = 99;
          break;
        case PlanTarget::Metric::kMax:
          q = 100;
          break;
      }
      // Summary's nearest rank: index ceil(q/100 x m) - 1 of the sorted waits.
      // The figure exceeds the limit when more than m - rank waits do.
      const int64_t rank =
          std::max<int64_t>(1, static_cast<int64_t>(std::ceil(q / 100.0 * static_cast<double>(m))));
      if (late_[k] >= m - rank + 1) return true;
    }
    return false;
  }

  const Workload& w_;
  const std::vector<PlanTarget>& targets_;
  bool stopped_ = false;
  double stopped_at_s_ = 0;
  std::vector<uint8_t> started_;  // 0 queued or not arrived, 1 started, 2 rejected
  std::vector<size_t> next_;      // per target: jobs before this index checked
  std::vector<int64_t> late_;     // per target: jobs certain to wait > limit
  int64_t rejected_ = 0, queued_ = 0;
  double queued_submit_s_ = 0, wait_sum_s_ = 0;
  // Per job: closed queued intervals, start of the open one, first start.
  std::vector<double> queued_acc_s_, queued_since_s_, first_start_s_;
  std::vector<uint64_t> late_queued_;  // per job: bit k = counted late for queued target k
};

bool Meets(const PlanPoint& p, const std::vector<PlanTarget>& targets) {
  if (p.stopped_early) return false;
  for (size_t k = 0; k < targets.size(); ++k)
    if (!(p.figures[k] <= targets[k].limit_s)) return false;  // NaN fails
  return true;
}

int64_t NotRun(const Summary& s) { return s.rejected + s.unfinished; }

}  // namespace

const char* PlanMetricName(PlanTarget::Metric m) {
  switch (m) {
    case PlanTarget::Metric::kMean:
      return "mean-wait";
    case PlanTarget::Metric::kP50:
      return "p50-wait";
    case PlanTarget::Metric::kP95:
      return "p95-wait";
    case PlanTarget::Metric::kP99:
      return "p99-wait";
    case PlanTarget::Metric::kMax:
      return "max-wait";
  }
  return "";
}

std::string PlanTargetMetric(const PlanTarget& t) {
  std::string name = PlanMetricName(t.metric);
  if (t.queued) name.replace(name.size() - 4, 4, "queued");
  return name;
}

Result<PlanTarget> ParsePlanTarget(const std::string& text) {
  const std::string s = Strip(text);
  const std::string usage =
      "--target: expected METRIC<=LIMIT with METRIC one of mean-wait, "
      "p50-wait, p95-wait, p99-wait, max-wait (submit to first start) or mean-queued, "
      "p50-queued, p95-queued, p99-queued, max-queued (all time queued, preemptions "
      "included) and LIMIT seconds or a number >= 0 with s, m, h or d (e.g. p95-wait<=2h), "
      "got '" +
      text + "'";
  const size_t op = s.find("<=");
  if (op == std::string::npos) return Status::Error(usage);
  const std::string metric = s.substr(0, op);
  PlanTarget t;
  bool found = false;
  for (auto m : {PlanTarget::Metric::kMean, PlanTarget::Metric::kP50, PlanTarget::Metric::kP95,
                 PlanTarget::Metric::kP99, PlanTarget::Metric::kMax})
    for (bool queued : {false, true}) {
      PlanTarget probe;
      probe.metric = m;
      probe.queued = queued;
      if (metric == PlanTargetMetric(probe)) {
        t.metric = m;
        t.queued = queued;
        found = true;
      }
    }
  if (!found) return Status::Error(usage);
  auto limit = ParseSeconds(s.substr(op + 2));
  if (!limit) return Status::Error(usage);
  t.limit_s = *limit;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", t.limit_s);
  t.text = metric + "<=" + buf + "s";
  return t;
}

double TargetFigure(const Summary& s, const PlanTarget& t) {
  // In PlanTarget::Metric order: mean, p50, p95, p99, max.
  static constexpr double Summary::*kWait[] = {&Summary::wait_mean_s, &Summary::wait_p50_s,
                                               &Summary::wait_p95_s, &Summary::wait_p99_s,
                                               &Summary::wait_max_s};
  static constexpr double Summary::*kQueued[] = {&Summary::queued_mean_s, &Summary::queued_p50_s,
                                                 &Summary::queued_p95_s, &Summary::queued_p99_s,
                                                 &Summary::queued_max_s};
  const size_t m = static_cast<size_t>(t.metric);
  return m < 5 ? s.*(t.queued ? kQueued : kWait)[m] : NAN;
}

std::vector<int32_t> ApportionNodes(const std::vector<int32_t>& counts, int64_t total) {
  std::vector<int32_t> given(counts.size(), 0);
  if (counts.empty() || total <= 0) return given;
  // Priority c / (a + 0.5), compared exactly as c1 (2 a2 + 1) > c2 (2 a1 + 1)
  // in int64 (counts and totals far below 2^30 in any real cluster).
  auto better = [&](size_t x, size_t y) {
    const int64_t lx = int64_t{counts[x]} * (2 * int64_t{given[y]} + 1);
    const int64_t ly = int64_t{counts[y]} * (2 * int64_t{given[x]} + 1);
    return lx > ly || (lx == ly && x < y);
  };
  // A heap would be O(total log G); the plain scan is O(total x G), fine for
  // clusters of thousands of nodes, but skip it for whole multiples.
  int64_t sum = 0;
  for (int32_t c : counts) sum += std::max(0, c);
  if (sum > 0 && total % sum == 0) {
    for (size_t g = 0; g < counts.size(); ++g)
      given[g] = static_cast<int32_t>(std::max(0, counts[g]) * (total / sum));
    return given;
  }
  for (int64_t k = 0; k < total; ++k) {
    size_t best = 0;
    for (size_t g = 1; g < counts.size(); ++g)
      if (better(g, best)) best = g;
    ++given[best];
  }
  return given;
}

Result<ClusterSpec> ScaleCluster(const ClusterSpec& base, int64_t total) {
  if (!base.topology.racks.empty() || !base.topology.switches.empty())
    return Status::Error("cluster " + base.name +
                         ": lists racks or switches explicitly; a scaled cluster would have nodes "
                         "in no rack or racks naming missing nodes. Use generated racks "
                         "(topology: nodes_per_rack) to plan");
  if (total < 1) return Status::Error("cluster " + base.name + ": cannot scale to 0 nodes");
  // Nodes of one shape form a class: classes first, then the groups inside
  // each class, so a scaled cluster keeps the mix of node shapes even when
  // every machine is its own group (both steps are house monotone, and so is
  // their composition).
  std::vector<size_t> cls(base.groups.size());
  std::vector<const NodeGroup*> shapes;
  std::vector<int32_t> class_counts;
  for (size_t g = 0; g < base.groups.size(); ++g) {
    const NodeGroup& x = base.groups[g];
    size_t c = 0;
    while (c < shapes.size() &&
           !(shapes[c]->gpu_model == x.gpu_model && shapes[c]->gpus == x.gpus &&
             shapes[c]->cpu_milli == x.cpu_milli && shapes[c]->mem_bytes == x.mem_bytes &&
             shapes[c]->nvlink_domain == x.nvlink_domain && shapes[c]->mig == x.mig))
      ++c;
    if (c == shapes.size()) {
      shapes.push_back(&x);
      class_counts.push_back(0);
    }
    cls[g] = c;
    class_counts[c] += x.count;
  }
  const std::vector<int32_t> per_class = ApportionNodes(class_counts, total);
  std::vector<int32_t> n(base.groups.size(), 0);
  for (size_t c = 0; c < shapes.size(); ++c) {
    std::vector<size_t> members;
    std::vector<int32_t> counts;
    for (size_t g = 0; g < base.groups.size(); ++g)
      if (cls[g] == c) {
        members.push_back(g);
        counts.push_back(base.groups[g].count);
      }
    const std::vector<int32_t> m = ApportionNodes(counts, per_class[c]);
    for (size_t k = 0; k < members.size(); ++k) n[members[k]] = m[k];
  }
  ClusterSpec out = base;
  out.groups.clear();
  for (size_t g = 0; g < base.groups.size(); ++g) {
    if (n[g] == 0) continue;
    out.groups.push_back(base.groups[g]);
    out.groups.back().count = n[g];
  }
  out.name = base.name + " x" + std::to_string(total) + "/" + std::to_string(base.total_nodes());
  return out;
}

Result<std::vector<int64_t>> PlanCandidates(int64_t given_nodes, const std::string& step,
                                            double max_scale) {
  if (!(max_scale > 0) || !std::isfinite(max_scale))
    return Status::Error("--max-scale: expected a number > 0");
  if (given_nodes < 1) return Status::Error("--cluster: the cluster has no nodes");
  const std::string s = Strip(step);
  const std::string usage =
      "--step: expected N nodes (an integer >= 1), a fraction 0 < F < 1 "
      "or a percentage like 5%, got '" +
      step + "'";
  double v;
  size_t used = 0;
  try {
    v = std::stod(s, &used);
  } catch (...) {
    return Status::Error(usage);
  }
  const std::string rest = s.substr(used);
  const double largest = std::floor(max_scale * static_cast<double>(given_nodes) + 1e-9);
  std::vector<int64_t> out;
  if (rest == "%" || (rest.empty() && v > 0 && v < 1)) {
    const double f = rest == "%" ? v / 100 : v;
    if (!(f > 0 && f < 1)) return Status::Error(usage);
    for (int64_t k = 1;; ++k) {
      const double nodes =
          std::round(static_cast<double>(k) * f * static_cast<double>(given_nodes));
      if (nodes > largest) break;
      if (nodes >= 1 && (out.empty() || out.back() != static_cast<int64_t>(nodes)))
        out.push_back(static_cast<int64_t>(nodes));
      if (k > 1000000) return Status::Error(usage + " (too many candidates)");
    }
  } else if (rest.empty() && v >= 1 && v == std::floor(v)) {
    const int64_t n = static_cast<int64_t>(v);
    for (int64_t nodes = n; nodes <= largest; nodes += n) out.push_back(nodes);
  } else {
    return Status::Error(usage);
  }
  if (out.empty())
    return Status::Error("--step: " + step + " is larger than --max-scale x the cluster (" +
                         std::to_string(static_cast<int64_t>(largest)) + " nodes)");
  if (out.size() > 100000) return Status::Error("--step: more than 100000 candidate sizes");
  return out;
}

Result<PlanResult> Plan(const Inputs& in, const PolicyRegistry& reg, const PlanOptions& opt,
                        const RunSpec& settings) {
  if (opt.policies.empty()) return Status::Error("--policies: at least one policy");
  if (opt.targets.empty()) return Status::Error("--target: at least one target");
  if (opt.ladder < 1) return Status::Error("--ladder: expected an integer >= 1");
  if (opt.refine < 1) return Status::Error("--refine: expected an integer >= 1");
  for (const auto& p : opt.policies)
    if (auto s = reg.Make(p); !s.ok()) return Status::Error("--policies: " + s.status().message());
  auto cand = PlanCandidates(in.cluster.total_nodes(), opt.step, opt.max_scale);
  if (!cand.ok()) return cand.status();

  PlanResult res;
  res.workload_source = in.workload.source;
  res.jobs = static_cast<int64_t>(in.workload.jobs.size());
  res.cluster_name = in.cluster.name;
  res.given_nodes = in.cluster.total_nodes();
  res.given_gpus = in.cluster.total_gpus();
  res.candidates = cand.value();
  res.targets = opt.targets;
  res.step = opt.step;
  res.max_scale = opt.max_scale;
  res.price_per_gpu_h = settings.price_per_gpu_h;
  res.window = WindowName(settings.window);
  std::vector<ClusterSpec> clusters;
  for (int64_t nodes : res.candidates) {
    auto c = ScaleCluster(in.cluster, nodes);
    if (!c.ok()) return Status::Error("plan: " + c.status().message());
    res.candidate_gpus.push_back(c.value().total_gpus());
    clusters.push_back(std::move(c).value());
  }
  const int K = static_cast<int>(res.candidates.size());
  const std::string workload_digest = traces::DigestWorkload(in.workload);

  struct State {
    std::map<int, PlanPoint> points;
    std::map<int, RunResult> runs;  // kept: the current best and the largest
    bool done = false;
  };
  std::vector<State> st(opt.policies.size());
  struct Task {
    size_t policy;
    int idx;
  };
  // First round: an evenly spaced ladder, the largest candidate included.
  std::vector<Task> tasks;
  {
    std::vector<int> ladder;
    for (int i = 1; i <= opt.ladder; ++i) {
      const int idx =
          static_cast<int>((static_cast<int64_t>(i) * K + opt.ladder - 1) / opt.ladder) - 1;
      if (ladder.empty() || ladder.back() != idx) ladder.push_back(idx);
    }
    for (size_t p = 0; p < opt.policies.size(); ++p)
      for (int idx : ladder) tasks.push_back({p, idx});
  }
  const bool early_ok = !settings.horizon;
  while (!tasks.empty()) {
    if (opt.progress) opt.progress->ExpectRuns(static_cast<size_t>(res.runs) + tasks.size());
    struct Out {
      PlanPoint point;
      std::optional<RunResult> run;
      Status error;
    };
    std::vector<Out> outs(tasks.size());
    const size_t threads = opt.threads > 0 ? static_cast<size_t>(opt.threads) : 0;
    ParallelFor(tasks.size(), threads, [&](size_t i) {
      const Task& t = tasks[i];
      const std::string& policy = opt.policies[t.policy];
      Out& o = outs[i];
      o.point.nodes = res.candidates[t.idx];
      o.point.gpus = res.candidate_gpus[t.idx];
      RunSpec s = settings;
      s.threads = 1;
      s.progress = opt.progress;
      std::shared_ptr<EarlyStop> stop;
      // The largest candidate always runs to the end: it is the best size
      // when nothing meets the target, and its rejected count is the bar.
      if (early_ok && t.idx != K - 1 && policy.rfind("as-recorded", 0) != 0) {
        stop = std::make_shared<EarlyStop>(in.workload, opt.targets);
        s.observer = [stop, user = settings.observer](const EngineEvent& e, RunControl& run) {
          if (user) user(e, run);
          stop->Observe(e, run);
        };
      }
      try {
        auto r = RunPoliciesOn(in, clusters[t.idx], reg, {policy}, s);
        if (stop && stop->stopped()) {
          o.point.stopped_early = true;
          o.point.stopped_at_s = stop->stopped_at_s();
          o.point.figures.assign(opt.targets.size(), NAN);
          return;
        }
        if (!r.ok()) {
          o.error = Status::Error("policy '" + policy + "' at " + std::to_string(o.point.nodes) +
                                  " nodes: " + r.status().message());
          return;
        }
        RunResult run = std::move(r.value().front());
        o.point.summary = run.summary;
        for (const auto& tg : opt.targets) o.point.figures.push_back(TargetFigure(run.summary, tg));
        run.meta.input_digest = workload_digest + "-" + traces::DigestCluster(clusters[t.idx]);
        run.meta.label = policy + " @ " + std::to_string(o.point.gpus) + " GPUs";
        o.run = std::move(run);
      } catch (const std::exception& e) {
        o.error = Status::Error("policy '" + policy + "': " + e.what());
      }
    });
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (!outs[i].error.ok()) return outs[i].error;
      State& s = st[tasks[i].policy];
      s.points[tasks[i].idx] = std::move(outs[i].point);
      if (outs[i].run) s.runs[tasks[i].idx] = std::move(*outs[i].run);
    }
    res.runs += static_cast<int64_t>(tasks.size());

    // Next round: per policy, refine between the smallest meeting candidate
    // (hi) and the largest evaluated candidate below it (lo).
    std::vector<Task> next_tasks;
    for (size_t p = 0; p < st.size(); ++p) {
      State& s = st[p];
      if (s.done) continue;
      const int64_t bar = NotRun(s.points.at(K - 1).summary);
      for (auto& [idx, pt] : s.points) {
        pt.runs_all = pt.stopped_early || NotRun(pt.summary) <= bar;
        pt.meets = Meets(pt, opt.targets) && pt.runs_all;
      }
      int hi = -1;
      for (const auto& [idx, pt] : s.points)
        if (pt.meets) {
          hi = idx;
          break;
        }
      for (auto it = s.runs.begin(); it != s.runs.end();)
        it = (it->first == hi || it->first == K - 1) ? std::next(it) : s.runs.erase(it);
      if (hi < 0) {
        s.done = true;  // nothing meets, not even the largest
        continue;
      }
      int lo = -1;
      for (const auto& [idx, pt] : s.points)
        if (idx < hi) lo = idx;
      if (hi - lo <= 1) {
        s.done = true;
        continue;
      }
      std::vector<int> pts;
      for (int i = 1; i <= opt.refine; ++i) {
        const int x = lo + static_cast<int>(
                               std::llround(static_cast<double>(i) * (hi - lo) / (opt.refine + 1)));
        if (x > lo && x < hi && (pts.empty() || pts.back() != x)) pts.push_back(x);
      }
      for (int x : pts) next_tasks.push_back({p, x});
    }
    tasks = std::move(next_tasks);
  }

  for (size_t p = 0; p < st.size(); ++p) {
    State& s = st[p];
    PolicyPlan pp;
    pp.policy = opt.policies[p];
    int hi = -1;
    for (const auto& [idx, pt] : s.points)
      if (pt.meets) {
        hi = idx;
        break;
      }
    pp.met = hi >= 0;
    const int chosen = pp.met ? hi : K - 1;
    pp.chosen = s.points.at(chosen);
    if (pp.met && chosen > 0) pp.below = s.points.at(chosen - 1);
    for (const auto& [idx, pt] : s.points) pp.evaluated.push_back(pt);
    pp.run = std::move(s.runs.at(chosen));
    res.policies.push_back(std::move(pp));
  }
  return res;
}

}  // namespace utilsim
