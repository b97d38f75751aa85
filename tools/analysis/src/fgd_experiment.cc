#include "utilsim/analysis/fgd_experiment.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "utilsim/analysis/progress.h"
#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/parallel.h"
#include "utilsim/engine/rng.h"
#include "utilsim/engine/units.h"
#include "utilsim/policies/fgd.h"
#include "utilsim/policies/registry.h"

namespace utilsim {

namespace {

struct SeedCurve {
  std::vector<double> alloc, frag, failed;
};

// The experiment is no simulation: its progress observer gets this control,
// whose clock is the fraction placed.
class PlacedFraction final : public RunControl {
 public:
  void RequestStop() override {}
  Micros Now() const override { return now; }
  Micros now{0};
};

Result<SeedCurve> RunOne(const Workload& w, const ClusterSpec& spec, const std::string& policy,
                         uint64_t seed, const FgdExperimentOptions& opt, const TaskClassDist& dist,
                         const EventObserver& progress) {
  PlacedFraction clock;
  auto placement = BuiltinPolicies().MakePlacement(policy, seed);
  if (!placement.ok()) return placement.status();
  PlacementPolicy& pl = *placement.value();
  pl.Init(w);
  auto state = ClusterState::Build(spec);
  if (!state.ok()) return state.status();
  ClusterState& c = state.value();
  const FragmentationMeter meter(dist, c);
  const double capacity = static_cast<double>(c.total_gpus()) * kMilliPerUnit;
  Rng rng(seed, seed, "fgd-arrivals");
  SeedCurve out;
  double arrived = 0, failed = 0;
  double next = opt.step;
  const int64_t n = static_cast<int64_t>(w.jobs.size());
  while (next <= opt.max_arrived + 1e-9) {
    const Job& job = w.jobs[static_cast<size_t>(rng.UniformInt(0, n - 1))];
    const double milli = static_cast<double>(job.task.total_gpu_milli() * job.tasks);
    auto p = pl.Place(job, c.ResolveModels(job.gpu_models), c);
    if (p) {
      for (const auto& t : *p)
        if (Status s = c.Allocate(t, job.task); !s.ok())
          return Status::Error("policy '" + policy + "' over-committed: " + s.message());
    } else {
      failed += milli;
    }
    arrived += milli;
    if (progress) {
      clock.now =
          Micros(static_cast<int64_t>(kMicrosPerSecond * arrived / capacity / opt.max_arrived));
      progress(EngineEvent{clock.now, EventKind::kArrival, 0}, clock);
    }
    while (next <= opt.max_arrived + 1e-9 && arrived >= next * capacity) {
      out.alloc.push_back(static_cast<double>(c.allocated_gpu_milli()) / capacity);
      out.frag.push_back(meter.Cluster(c) / capacity);
      out.failed.push_back(arrived > 0 ? failed / arrived : 0);
      next += opt.step;
    }
  }
  return out;
}

}  // namespace

Result<std::vector<FgdCurve>> RunFgdExperiment(const Workload& w, const ClusterSpec& cluster,
                                               const FgdExperimentOptions& opt) {
  if (w.jobs.empty()) return Status::Error("--trace: no pods");
  if (opt.seeds < 1) return Status::Error("--seeds: expected >= 1");
  if (!(opt.max_arrived > 0) || !(opt.step > 0))
    return Status::Error("--max-arrived: expected a share of capacity > 0");
  const TaskClassDist dist = TaskClassesOf(w);
  const size_t P = opt.policies.size(), S = static_cast<size_t>(opt.seeds);
  std::vector<Result<SeedCurve>> res(P * S, Status::Error("not run"));
  const size_t slot0 = opt.progress ? opt.progress->AddRuns(P * S, {Micros(0), Seconds(1)}) : 0;
  ParallelFor(P * S, 0, [&](size_t i) {
    EventObserver observe;
    if (opt.progress) observe = opt.progress->Observer(slot0 + i, nullptr);
    res[i] = RunOne(w, cluster, opt.policies[i / S], i % S + 1, opt, dist, observe);
    if (opt.progress) opt.progress->Done(slot0 + i);
  });
  std::vector<FgdCurve> curves;
  for (size_t p = 0; p < P; ++p) {
    FgdCurve c;
    c.policy = opt.policies[p];
    for (size_t s = 0; s < S; ++s)
      if (!res[p * S + s].ok()) return res[p * S + s].status();
    const size_t points = res[p * S].value().alloc.size();
    for (size_t k = 0; k < points; ++k) {
      double sum = 0, fsum = 0, xsum = 0, lo = 1e300, hi = -1e300;
      for (size_t s = 0; s < S; ++s) {
        const SeedCurve& sc = res[p * S + s].value();
        sum += sc.alloc[k];
        fsum += sc.frag[k];
        xsum += sc.failed[k];
        lo = std::min(lo, sc.alloc[k]);
        hi = std::max(hi, sc.alloc[k]);
      }
      c.arrived.push_back(opt.step * static_cast<double>(k + 1));
      c.alloc_mean.push_back(sum / static_cast<double>(S));
      c.alloc_min.push_back(lo);
      c.alloc_max.push_back(hi);
      c.frag_mean.push_back(fsum / static_cast<double>(S));
      c.failed_mean.push_back(xsum / static_cast<double>(S));
    }
    curves.push_back(std::move(c));
  }
  return curves;
}

std::string FormatFgdTable(const std::vector<FgdCurve>& curves, const std::vector<double>& at) {
  auto idx = [](const FgdCurve& c, double share) -> int {
    for (size_t k = 0; k < c.arrived.size(); ++k)
      if (std::fabs(c.arrived[k] - share) < 1e-6) return static_cast<int>(k);
    return -1;
  };
  std::vector<const FgdCurve*> order;
  for (const auto& c : curves) order.push_back(&c);
  const double last = at.empty() ? 0 : at.back();
  std::stable_sort(order.begin(), order.end(), [&](const FgdCurve* a, const FgdCurve* b) {
    const int ia = idx(*a, last), ib = idx(*b, last);
    return (ia >= 0 ? a->alloc_mean[ia] : 0) > (ib >= 0 ? b->alloc_mean[ib] : 0);
  });
  std::string out = "rank  policy            ";
  char buf[256];
  for (double a : at) {
    std::snprintf(buf, sizeof buf, "  alloc@%3.0f%% (min..max)  frag@%3.0f%%", a * 100, a * 100);
    out += buf;
  }
  out += "\n";
  int rank = 1;
  for (const FgdCurve* c : order) {
    std::snprintf(buf, sizeof buf, "%4d  %-18s", rank++, c->policy.c_str());
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
