#include "utilsim/analysis/fgd_experiment.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "utilsim/analysis/progress.h"
#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/parallel.h"
#include "utilsim/engine/rng.h"
#include "utilsim/engine/units.h"
#include "utilsim/policies/fgd.h"
#include "utilsim/policies/fgd_sim.h"
#include "utilsim/policies/registry.h"

namespace utilsim {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The experiment is no simulation: its progress observer gets this control,
// whose clock is the fraction placed.
class PlacedFraction final : public RunControl {
 public:
  void RequestStop() override {}
  Micros Now() const override { return now; }
  Micros now{0};
};

int64_t MilliOf(const Job& j) { return j.task.total_gpu_milli() * j.tasks; }

// The arrival sequence of one seed (indices into w.jobs), fgd_experiment.h.
std::vector<size_t> Arrivals(const Workload& w, double target, const FgdExperimentOptions& opt,
                             uint64_t seed) {
  Rng rng(seed, 0, "fgd-arrivals");
  const int64_t n = static_cast<int64_t>(w.jobs.size());
  std::vector<size_t> seq;
  double total = 0;
  if (opt.arrivals == FgdArrivals::kSample) {
    while (total < target) {
      const size_t i = static_cast<size_t>(rng.UniformInt(0, n - 1));
      seq.push_back(i);
      total += static_cast<double>(MilliOf(w.jobs[i]));
    }
    return seq;
  }
  seq.resize(w.jobs.size());
  for (size_t i = 0; i < seq.size(); ++i) seq[i] = i;
  for (size_t i = seq.size(); i > 1; --i)
    std::swap(seq[i - 1], seq[static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(i) - 1))]);
  for (size_t i : seq) total += static_cast<double>(MilliOf(w.jobs[i]));
  if (total > target) {
    while (total > target && !seq.empty()) {
      const size_t at =
          static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(seq.size()) - 1));
      total -= static_cast<double>(MilliOf(w.jobs[seq[at]]));
      seq.erase(seq.begin() + static_cast<std::ptrdiff_t>(at));
    }
  } else {
    for (;;) {
      const size_t i = static_cast<size_t>(rng.UniformInt(0, n - 1));
      const Job& j = w.jobs[i];
      // tuneUpPods tests the per-GPU share (MilliGpu), then adds the total.
      const int64_t per_gpu = j.task.gpus > 0 ? j.task.gpu_milli : 0;
      if (total + static_cast<double>(per_gpu) > target) break;
      total += static_cast<double>(MilliOf(j));
      seq.push_back(i);
    }
  }
  return seq;
}

struct Record {
  double arrived_pct, alloc_pct, frag_milli, frag_ratio_pct, failed_pct;
};

Result<FgdSeedCurve> RunOne(const Workload& w, const ClusterSpec& spec, const std::string& policy,
                            uint64_t seed, const FgdExperimentOptions& opt,
                            const TaskClassDist& dist, const EventObserver& progress) {
  PlacedFraction clock;
  auto state = ClusterState::Build(spec);
  if (!state.ok()) return state.status();
  ClusterState& c = state.value();
  std::unique_ptr<PlacementPolicy> owned;
  if (auto s = FgdSimScoreOf(policy)) {
    FgdSimOptions o{.score = *s, .seed = seed, .popularity_pct = opt.popularity_pct};
    if (opt.node_order == FgdNodeOrder::kRandom)
      o.tie_rank = FgdSimRandomRanks(c.num_nodes(), seed);
    owned = MakeFgdSim(std::move(o));
  } else {
    auto placement = BuiltinPolicies().MakePlacement(policy, seed);
    if (!placement.ok()) return placement.status();
    owned = std::move(placement).value();
  }
  PlacementPolicy& pl = *owned;
  pl.Init(w);
  const FragmentationMeter meter(dist, c);
  const double capacity = static_cast<double>(c.total_gpus()) * kMilliPerUnit;
  const std::vector<size_t> seq = Arrivals(w, opt.max_arrived * capacity, opt, seed);
  // Per-node F, kept current: only the nodes a pod lands on change.
  std::vector<double> node_frag(c.num_nodes());
  double frag = 0;
  for (NodeIndex n = 0; n < c.num_nodes(); ++n) frag += node_frag[n] = meter.Node(c, n);
  FgdSeedCurve out;
  out.seed = seed;
  out.pods = static_cast<int64_t>(seq.size());
  std::vector<Record> rec;
  rec.reserve(seq.size());
  double arrived = 0, failed = 0;
  for (size_t i : seq) {
    const Job& job = w.jobs[i];
    const double milli = static_cast<double>(MilliOf(job));
    auto p = pl.Place(job, c.ResolveModels(job.gpu_models), c);
    if (p) {
      for (const auto& t : *p) {
        if (Status s = c.Allocate(t, job.task); !s.ok())
          return Status::Error("policy '" + policy + "' over-committed: " + s.message());
        frag -= node_frag[t.node];
        frag += node_frag[t.node] = meter.Node(c, t.node);
      }
    } else {
      failed += milli;
      ++out.failed_pods;
    }
    arrived += milli;
    const double idle = capacity - static_cast<double>(c.allocated_gpu_milli());
    rec.push_back({100 * arrived / capacity,
                   100 * static_cast<double>(c.allocated_gpu_milli()) / capacity, frag,
                   idle > 0 ? 100 * frag / idle : 0, arrived > 0 ? 100 * failed / arrived : 0});
    if (progress) {
      clock.now = Micros(static_cast<int64_t>(kMicrosPerSecond *
                                              std::min(1.0, arrived / capacity / opt.max_arrived)));
      progress(EngineEvent{clock.now, EventKind::kArrival, 0}, clock);
    }
  }
  // The simulator's discrete curves (merge_alloc_discrete_0920.py): the
  // records whose arrived share rounds to k %, else those within k +- 1.
  const int points = static_cast<int>(std::lround(100 * opt.max_arrived)) + 1;
  std::vector<int> bin(rec.size());
  for (size_t r = 0; r < rec.size(); ++r)
    bin[r] = static_cast<int>(std::nearbyint(rec[r].arrived_pct));
  out.alloc_pct.assign(static_cast<size_t>(points), kNaN);
  out.frag_pct = out.frag_ratio_pct = out.failed_pct = out.alloc_pct;
  for (int k = 0; k < points; ++k) {
    for (int width = 0; width <= 1; ++width) {
      double a = 0, f = 0, fr = 0, x = 0;
      int64_t cnt = 0;
      for (size_t r = 0; r < rec.size(); ++r) {
        if (std::abs(bin[r] - k) > width) continue;
        a += rec[r].alloc_pct;
        f += rec[r].frag_milli;
        fr += rec[r].frag_ratio_pct;
        x += rec[r].failed_pct;
        ++cnt;
      }
      if (cnt == 0) continue;
      const double d = static_cast<double>(cnt);
      const size_t kk = static_cast<size_t>(k);
      out.alloc_pct[kk] = a / d;
      out.frag_pct[kk] = 100 * f / d / capacity;
      out.frag_ratio_pct[kk] = fr / d;
      out.failed_pct[kk] = x / d;
      break;
    }
  }
  return out;
}

}  // namespace

Result<std::vector<FgdCurve>> RunFgdExperiment(const Workload& w, const ClusterSpec& cluster,
                                               const FgdExperimentOptions& opt) {
  if (w.jobs.empty()) return Status::Error("--trace: no pods");
  if (cluster.total_gpus() <= 0) return Status::Error("--cluster: no GPUs");
  if (opt.seeds < 1) return Status::Error("--seeds: expected >= 1");
  if (!(opt.max_arrived > 0) || opt.max_arrived > 100)
    return Status::Error("--max-arrived: expected a share of capacity in (0, 100]");
  if (opt.popularity_pct < 1 || opt.popularity_pct > 100)
    return Status::Error("--popularity: expected a percentage 1..100");
  const TaskClassDist dist = FgdSimTypicalClasses(w, opt.popularity_pct);
  const size_t P = opt.policies.size(), S = static_cast<size_t>(opt.seeds);
  std::vector<Result<FgdSeedCurve>> res(P * S, Status::Error("not run"));
  const size_t slot0 = opt.progress ? opt.progress->AddRuns(P * S, {Micros(0), Seconds(1)}) : 0;
  ParallelFor(P * S, 0, [&](size_t i) {
    EventObserver observe;
    if (opt.progress) observe = opt.progress->Observer(slot0 + i, nullptr);
    res[i] = RunOne(w, cluster, opt.policies[i / S], opt.first_seed + i % S, opt, dist, observe);
    if (opt.progress) opt.progress->Done(slot0 + i);
  });
  std::vector<FgdCurve> curves;
  for (size_t p = 0; p < P; ++p) {
    FgdCurve c;
    c.policy = opt.policies[p];
    for (size_t s = 0; s < S; ++s) {
      if (!res[p * S + s].ok()) return res[p * S + s].status();
      c.runs.push_back(std::move(res[p * S + s]).value());
    }
    FgdFillMeans(c);
    curves.push_back(std::move(c));
  }
  return curves;
}

std::string FormatFgdTable(const std::vector<FgdCurve>& curves, const std::vector<double>& at) {
  auto idx = [](const FgdCurve& c, double share) -> int {
    for (size_t k = 0; k < c.arrived.size(); ++k)
      if (std::fabs(c.arrived[k] - share) < 1e-6 && !std::isnan(c.alloc_mean[k]))
        return static_cast<int>(k);
    return -1;
  };
  std::vector<const FgdCurve*> order;
  for (const auto& c : curves) order.push_back(&c);
  const double last = at.empty() ? 0 : at.back();
  std::stable_sort(order.begin(), order.end(), [&](const FgdCurve* a, const FgdCurve* b) {
    const int ia = idx(*a, last), ib = idx(*b, last);
    return (ia >= 0 ? a->alloc_mean[ia] : 0) > (ib >= 0 ? b->alloc_mean[ib] : 0);
  });
  std::string out = "rank  policy                ";
  char buf[256];
  for (double a : at) {
    std::snprintf(buf, sizeof buf, "  alloc@%3.0f%% (min..max)  frag@%3.0f%%", a * 100, a * 100);
    out += buf;
  }
  out += "\n";
  int rank = 1;
  for (const FgdCurve* c : order) {
    std::snprintf(buf, sizeof buf, "%4d  %-22s", rank++, c->policy.c_str());
    out += buf;
    for (double a : at) {
      const int k = idx(*c, a);
      if (k < 0) {
        out += "  (not reached)";
        continue;
      }
      std::snprintf(buf, sizeof buf, "  %6.2f%% (%5.2f..%5.2f)  %8.2f%%", 100 * c->alloc_mean[k],
                    100 * c->alloc_min[k], 100 * c->alloc_max[k], 100 * c->frag_mean[k]);
      out += buf;
    }
    out += "\n";
  }
  return out;
}

}  // namespace utilsim
