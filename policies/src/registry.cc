#include "utilsim/policies/registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "utilsim/policies/backfill.h"
#include "utilsim/policies/colocate.h"
#include "utilsim/policies/composed_scheduler.h"
#include "utilsim/policies/fgd.h"
#include "utilsim/policies/fgd_sim.h"
#include "utilsim/policies/framework.h"
#include "utilsim/policies/least_loaded.h"
#include "utilsim/policies/packing.h"
#include "utilsim/policies/queues_extra.h"
#include "utilsim/policies/recorded_hosts.h"

namespace utilsim {

namespace {

// The '+' of QUEUE+PLACEMENT: the first one not followed by a digit (one
// followed by a digit is an exponent's sign, 1e+06).
size_t QueueSeparator(const std::string& name) {
  for (size_t i = 0; i < name.size(); ++i)
    if (name[i] == '+' && !(i + 1 < name.size() && name[i + 1] >= '0' && name[i + 1] <= '9'))
      return i;
  return std::string::npos;
}

Status NoParams(const PolicyInfo& info) {
  if (info.params.empty()) return Status::Ok();
  return Status::Error("policy '" + info.name +
                       "' declares parameters, but its factory takes no ParamValues");
}

}  // namespace

Status PolicyRegistry::Insert(Entry e, OnDuplicate dup) {
  e.info.version.clear();  // read from an instance when listed (VersionOf)
  const std::string name = e.info.name;
  if (name.empty()) return Status::Error("a policy needs a name");
  if (Status s = ValidateParamSpecs(name, e.info.params); !s.ok()) return s;
  if (auto it = entries_.find(name); it != entries_.end() && dup == OnDuplicate::kError)
    return Status::Error("policy '" + name + "' is registered already (as a " +
                         it->second.info.kind + ")");
  entries_[name] = std::move(e);
  return Status::Ok();
}

Status PolicyRegistry::AddQueue(PolicyInfo info, ParamQueueFactory f, OnDuplicate dup) {
  info.kind = "queue";
  Entry e{std::move(info), std::move(f), nullptr, "", nullptr};
  return Insert(std::move(e), dup);
}

Status PolicyRegistry::AddQueue(PolicyInfo info, QueueFactory f, OnDuplicate dup) {
  if (Status s = NoParams(info); !s.ok()) return s;
  return AddQueue(
      std::move(info), [f = std::move(f)](const ParamValues&) { return f(); }, dup);
}

Status PolicyRegistry::AddPlacement(PolicyInfo info, ParamPlacementFactory f, OnDuplicate dup) {
  info.kind = "placement";
  return Insert(Entry{std::move(info), nullptr, std::move(f), "", nullptr}, dup);
}

Status PolicyRegistry::AddPlacement(PolicyInfo info, PlacementFactory f, OnDuplicate dup) {
  if (Status s = NoParams(info); !s.ok()) return s;
  return AddPlacement(
      std::move(info), [f = std::move(f)](const ParamValues&, uint64_t) { return f(); }, dup);
}

Status PolicyRegistry::AddSeededPlacement(PolicyInfo info, SeededPlacementFactory f,
                                          OnDuplicate dup) {
  if (Status s = NoParams(info); !s.ok()) return s;
  return AddPlacement(
      std::move(info), [f = std::move(f)](const ParamValues&, uint64_t seed) { return f(seed); },
      dup);
}

Status PolicyRegistry::AddBatch(PolicyInfo info, ParamBatchFactory f, OnDuplicate dup) {
  info.kind = "queue";
  return Insert(Entry{std::move(info), nullptr, nullptr, "", std::move(f)}, dup);
}

Status PolicyRegistry::AddBatch(PolicyInfo info, BatchFactory f, OnDuplicate dup) {
  if (Status s = NoParams(info); !s.ok()) return s;
  return AddBatch(
      std::move(info),
      [f = std::move(f)](std::string label, std::unique_ptr<PlacementPolicy> p,
                         const ParamValues&) { return f(std::move(label), std::move(p)); },
      dup);
}

Status PolicyRegistry::AddProfile(PolicyInfo info, std::string queue, ParamPlacementFactory f,
                                  OnDuplicate dup) {
  info.kind = "profile";
  return Insert(Entry{std::move(info), nullptr, std::move(f), std::move(queue), nullptr}, dup);
}

Status PolicyRegistry::AddProfile(PolicyInfo info, std::string queue, PlacementFactory f,
                                  OnDuplicate dup) {
  if (Status s = NoParams(info); !s.ok()) return s;
  return AddProfile(
      std::move(info), std::move(queue),
      [f = std::move(f)](const ParamValues&, uint64_t) { return f(); }, dup);
}

bool PolicyRegistry::Has(const std::string& name) const { return entries_.count(name) > 0; }

namespace {

template <typename F>
Status AddPlugin(std::map<std::string, F>* m, const char* kind, const std::string& name, F f,
                 PolicyRegistry::OnDuplicate dup) {
  if (name.empty())
    return Status::Error(StatusCode::kInvalidArgument,
                         std::string(kind) + " plugin with an empty name");
  if (!f)
    return Status::Error(StatusCode::kInvalidArgument,
                         std::string(kind) + " plugin '" + name + "': no factory");
  if (m->count(name) && dup == PolicyRegistry::OnDuplicate::kError)
    return Status::Error(StatusCode::kInvalidArgument,
                         std::string(kind) + " plugin '" + name + "' is registered already");
  (*m)[name] = std::move(f);
  return Status::Ok();
}

template <typename F>
std::vector<std::string> Names(const std::map<std::string, F>& m) {
  std::vector<std::string> out;
  for (const auto& [name, f] : m) out.push_back(name);
  return out;
}

}  // namespace

Status PolicyRegistry::AddFilterPlugin(const std::string& name, FilterFactory f, OnDuplicate dup) {
  return AddPlugin(&filters_, "filter", name, std::move(f), dup);
}
Status PolicyRegistry::AddScorePlugin(const std::string& name, ScoreFactory f, OnDuplicate dup) {
  return AddPlugin(&scores_, "score", name, std::move(f), dup);
}
std::unique_ptr<FilterPlugin> PolicyRegistry::MakeFilter(const std::string& name) const {
  auto it = filters_.find(name);
  return it == filters_.end() ? nullptr : it->second();
}
std::unique_ptr<ScorePlugin> PolicyRegistry::MakeScore(const std::string& name) const {
  auto it = scores_.find(name);
  return it == scores_.end() ? nullptr : it->second();
}
PolicyRegistry::FilterFactory PolicyRegistry::FilterFactoryOf(const std::string& name) const {
  auto it = filters_.find(name);
  return it == filters_.end() ? FilterFactory() : it->second;
}
PolicyRegistry::ScoreFactory PolicyRegistry::ScoreFactoryOf(const std::string& name) const {
  auto it = scores_.find(name);
  return it == scores_.end() ? ScoreFactory() : it->second;
}
std::vector<std::string> PolicyRegistry::FilterNames() const { return Names(filters_); }
std::vector<std::string> PolicyRegistry::ScoreNames() const { return Names(scores_); }

// Built on demand, not at registration: decorators count the instances
// their factories make (mig_run.cc), and most registries are never listed.
// Built with the default parameters.
std::string PolicyRegistry::VersionOf(const Entry& e) const {
  auto values = ParseParams(e.info.name, e.info.params, "");
  if (!values.ok()) return "";  // cannot happen: Insert checked the defaults
  const ParamValues& v = values.value();
  if (e.queue) return e.queue(v)->id().version;
  if (e.batch) return e.batch(e.info.name, MakeFirstFit(), v)->queue_policy().version;
  if (e.has_placement()) return e.placement(v, 1)->id().version;
  return "";
}

std::vector<PolicyInfo> PolicyRegistry::List() const {
  std::vector<PolicyInfo> out;
  for (const auto& [name, e] : entries_) {
    out.push_back(e.info);
    out.back().version = VersionOf(e);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const PolicyInfo& a, const PolicyInfo& b) { return a.kind < b.kind; });
  return out;
}

Result<std::unique_ptr<Scheduler>> PolicyRegistry::Make(const std::string& name,
                                                        uint64_t seed) const {
  auto known = [&](const std::string& kind) {
    std::string s;
    for (const auto& [n, e] : entries_)
      if (e.info.kind == kind) s += (s.empty() ? "" : ", ") + n;
    return s;
  };
  auto unknown = [&](const std::string& what, const std::string& n, const std::string& kind) {
    return Status::Error("unknown " + what + " '" + n + "' (known: " + known(kind) + ")");
  };
  std::string queue_text = "fifo", placement_text = name;
  const size_t plus = QueueSeparator(name);
  const std::string lone = SplitPolicyRef(name).name;
  if (plus != std::string::npos) {
    queue_text = name.substr(0, plus);
    placement_text = name.substr(plus + 1);
  } else if (lone == "as-recorded") {
    queue_text = name;
    placement_text = "recorded-hosts";
  } else if (auto it = entries_.find(lone);
             it != entries_.end() && it->second.info.kind == "profile") {
    queue_text = it->second.profile_queue;
  } else if (auto q = entries_.find(lone); q != entries_.end() && q->second.info.kind == "queue") {
    placement_text = "first-fit";
    queue_text = name;
  }
  const PolicyRef qref = SplitPolicyRef(queue_text), pref = SplitPolicyRef(placement_text);
  auto q = entries_.find(qref.name);
  if (q == entries_.end() || q->second.info.kind != "queue")
    return unknown("queue policy", qref.name, "queue");
  auto p = entries_.find(pref.name);
  if (p == entries_.end() || !p->second.has_placement()) {
    if (plus == std::string::npos) {
      // Profiles come from --profiles files; without any, the list is left out.
      const std::string profiles = known("profile");
      return Status::Error("unknown policy '" + lone + "' (placements: " + known("placement") +
                           (profiles.empty() ? "" : "; profiles: " + profiles) +
                           "; queues: " + known("queue") + "; or QUEUE+PLACEMENT)");
    }
    return unknown("placement policy", pref.name, "placement");
  }
  auto qv = ParseParamsOf(qref, q->second.info.params);
  if (!qv.ok()) return qv.status();
  auto pv = ParseParamsOf(pref, p->second.info.params);
  if (!pv.ok()) return pv.status();
  std::unique_ptr<PlacementPolicy> placement = p->second.placement(pv.value(), seed);
  if (q->second.batch) return q->second.batch(name, std::move(placement), qv.value());
  return std::unique_ptr<Scheduler>(
      std::make_unique<ComposedScheduler>(name, q->second.queue(qv.value()), std::move(placement)));
}

Result<std::unique_ptr<PlacementPolicy>> PolicyRegistry::MakePlacement(const std::string& name,
                                                                       uint64_t seed) const {
  const PolicyRef ref = SplitPolicyRef(name);
  auto it = entries_.find(ref.name);
  if (it == entries_.end() || !it->second.has_placement()) {
    std::string known;
    for (const auto& [n, e] : entries_)
      if (e.has_placement()) known += (known.empty() ? "" : ", ") + n;
    return Status::Error("unknown placement policy '" + ref.name + "' (known: " + known + ")");
  }
  auto v = ParseParamsOf(ref, it->second.info.params);
  if (!v.ok()) return v.status();
  return it->second.placement(v.value(), seed);
}

Result<ParamValues> PolicyRegistry::Params(const std::string& ref_text) const {
  const PolicyRef ref = SplitPolicyRef(ref_text);
  auto it = entries_.find(ref.name);
  if (it == entries_.end()) {
    std::string known;
    for (const auto& [n, e] : entries_) known += (known.empty() ? "" : ", ") + n;
    return Status::Error("unknown policy '" + ref.name + "' (known: " + known + ")");
  }
  return ParseParamsOf(ref, it->second.info.params);
}

namespace {
// The built-in table is fixed: a failed Add is a bug in it, caught by every
// test that builds it (registry_test checks the full list).
void Must(const Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "utilsim: built-in policy table: %s\n", s.message().c_str());
    std::abort();
  }
}
}  // namespace

PolicyRegistry BuiltinPolicies() {
  PolicyRegistry r;
  for (const std::string& name : FilterPluginNames())
    Must(r.AddFilterPlugin(name, [name] { return MakeFilterPlugin(name); }));
  for (const std::string& name : ScorePluginNames())
    Must(r.AddScorePlugin(name, [name] { return MakeScorePlugin(name); }));
  Must(r.AddQueue(
      {"fifo", "", "", "first come first served by submit time; the head blocks the queue"},
      MakeFifoQueue));
  Must(r.AddQueue({"fifo-skip", "", "",
                   "submit order, but jobs that cannot start are skipped (kube-scheduler style)"},
                  MakeFifoSkipQueue));
  Must(r.AddQueue({"as-recorded", "", "",
                   "starts each job at its recorded start time (identity replay for validation)"},
                  MakeAsRecordedQueue));
  Must(r.AddBatch(
      {"easy-backfill", "", "",
       "FIFO with EASY backfilling: the head gets a reservation; later jobs start if they "
       "do not delay it (estimate: the user's walltime request, else the run time)"},
      MakeEasyBackfill));
  Must(r.AddBatch(
      {"conservative-backfill",
       "",
       "",
       "FIFO with conservative backfilling: every queued job gets a reservation; a job "
       "starts early only if it delays none of them (estimate as easy-backfill)",
       {{.name = "depth",
         .type = ParamType::kInt,
         .default_value = "256",
         .min = 0,
         .max = 1000000,
         .help = "reservation depth: the most future reservations made per pass; jobs behind "
                 "them start only where they touch no reservation (1 is close to "
                 "easy-backfill, 0 reserves nothing)"}}},
      [](std::string label, std::unique_ptr<PlacementPolicy> p, const ParamValues& v) {
        ConservativeBackfillOptions o;
        o.max_reservations = static_cast<size_t>(v.Int("depth"));
        return MakeConservativeBackfillWith(std::move(label), std::move(p), o);
      }));
  Must(r.AddQueue({"sjf", "", "",
                   "shortest job first by the user's estimate (walltime request, else run time); "
                   "skips jobs that do not fit"},
                  MakeSjfQueue));
  Must(r.AddQueue({"sjf-oracle", "", "",
                   "shortest job first by the recorded run time (an oracle: not knowable online)"},
                  MakeSjfOracleQueue));
  Must(r.AddQueue({"priority", "", "", "higher priority first, then submit time; non-blocking"},
                  MakePriorityQueue));
  Must(r.AddBatch({"drf", "", "",
                   "Dominant Resource Fairness across tenants: the tenant with the lowest dominant "
                   "share (GPU, CPU, memory) goes first"},
                  MakeDrf));
  Must(r.AddBatch(
      {"tiresias",
       "",
       "",
       "Tiresias discretised 2D-LAS: queues by attained GPU-service (thresholds, default "
       "3600, 36000 GPU-s), FIFO within a queue, preempts lower queues",
       {{.name = "thresholds",
         .type = ParamType::kSecondsList,
         .default_value = "3600/36000",
         .min = 1,
         .max = 1e10,
         .min_items = 1,
         .max_items = 16,
         .increasing = true,
         .help = "queue boundaries in attained GPU-seconds (GPUs x seconds run): k thresholds "
                 "make k + 1 queues"}}},
      [](std::string label, std::unique_ptr<PlacementPolicy> p, const ParamValues& v) {
        return MakeTiresias(std::move(label), std::move(p), v.List("thresholds"));
      }));
  Must(r.AddBatch({"priority-preempt", "", "",
                   "priority order; a job that cannot fit preempts strictly lower-priority jobs "
                   "(restart cost: --restart-cost)"},
                  MakePriorityPreempt));
  Must(r.AddPlacement({"first-fit", "", "", "lowest-indexed node that fits"}, MakeFirstFit));
  Must(r.AddPlacement({"recorded-hosts", "", "",
                       "each task on the host the trace recorded it on when it fits there, else "
                       "first fit (the default placement of as-recorded)"},
                      [] { return MakeRecordedHosts(MakeFirstFit()); }));
  Must(r.AddPlacement(
      {"best-fit", "", "", "Borg-style tightest fit: node left with the fewest free GPUs"},
      MakeBestFit));
  Must(r.AddPlacement({"worst-fit", "", "", "spread: node left with the most free GPUs"},
                      MakeWorstFit));
  Must(r.AddPlacement(
      {"epvm",
       "",
       "",
       "Borg's original E-PVM: minimise the marginal exponential cost of GPU, CPU "
       "and memory utilisation (spreads)",
       {{.name = "base",
         .type = ParamType::kDouble,
         .default_value = "nodes",
         .min = 1.01,
         .max = 1e6,
         .words = {"nodes"},
         .help = "base B of the per-resource cost B^utilization; 'nodes': the number of nodes "
                 "(at least 2); a larger B avoids fuller nodes more strongly"}}},
      [](const ParamValues& v, uint64_t) {
        return v.Word("base").empty() ? MakeEpvm(v.Double("base")) : MakeEpvm();
      }));
  Must(r.AddPlacement({"stranding-hybrid", "", "",
                       "best fit that penalises leaving GPUs stranded by exhausted CPU or memory "
                       "(Borg's hybrid idea; formula in docs/packing.md)"},
                      MakeStrandingHybrid));
  Must(r.AddPlacement(
      {"tetris", "", "", "Tetris alignment: max dot product of normalised demand and free vectors"},
      MakeTetris));
  Must(r.AddPlacement({"gpu-packing", "", "", "FGD paper baseline: pack GPUs (docs/packing.md)"},
                      MakeGpuPacking));
  Must(r.AddPlacement(
      {"gpu-clustering", "", "",
       "FGD paper baseline: cluster tasks of the same GPU demand kind (docs/packing.md)"},
      MakeGpuClustering));
  Must(r.AddPlacement({"fgd", "", "",
                       "Fragmentation Gradient Descent (Weng et al., ATC'23): least growth of "
                       "fragmentation for the workload's task classes"},
                      [] { return MakeFgd(TaskClassDist{}); }));
  Must(r.AddPlacement(
      {"colocate",
       "",
       "",
       "utilization-aware co-location: a fractional job joins a shared GPU while "
       "summed solo utilization <= threshold (default 1.0) and GPU memory fit, else best fit "
       "(docs/sharing.md)",
       {{.name = "threshold",
         .type = ParamType::kDouble,
         .default_value = "1",
         .min = 0,
         .max = 100,
         .help = "most summed solo GPU utilization (util x share) of the fractional jobs on "
                 "one shared GPU; 0 keeps busy fractional jobs apart"}}},
      [](const ParamValues& v, uint64_t) { return MakeColocate(v.Double("threshold")); }));
  Must(r.AddPlacement(
      {"least-loaded", "", "",
       "measured-load spreading: a task goes to the node (fractional: the GPU) whose GPUs run "
       "the least summed solo utilization of running jobs; ties best fit (docs/live-k8s.md)"},
      MakeLeastLoaded));
  Must(r.AddSeededPlacement(
      {"random", "", "", "uniform choice among feasible nodes, drawn from the run's --seed"},
      [](uint64_t seed) { return MakeRandomPlacement(seed); }));
  // The FGD authors' simulator's six score plugins (fgd_sim.h), for
  // reproducing the paper's experiment; ties to the lowest node index here
  // (fgd-experiment draws a random node order per seed, as the simulator).
  for (FgdSimScore s : {FgdSimScore::kDotProd, FgdSimScore::kGpuClustering,
                        FgdSimScore::kGpuPacking, FgdSimScore::kBestFit, FgdSimScore::kFgd}) {
    static const char* const kHelp[] = {
        "",
        "FGD simulator's DotProd (Tetris): smallest normalised dot product (fgd_sim.h)",
        "FGD simulator's GpuClustering score (fgd_sim.h)",
        "FGD simulator's GpuPacking score (fgd_sim.h)",
        "FGD simulator's BestFit: least CPU and GPU left, weighted equally (fgd_sim.h)",
        "FGD simulator's FGD score: sigmoid of the fragmentation change, rounded to 0..100, "
        "95% typical task classes (fgd_sim.h)"};
    Must(r.AddPlacement(
        {std::string("fgdsim-") + FgdSimScoreName(s), "", "", kHelp[static_cast<int>(s)]},
        [s] { return MakeFgdSim({.score = s}); }));
  }
  Must(r.AddSeededPlacement(
      {"fgdsim-random", "", "",
       "FGD simulator's Random: uniform node and uniform fitting GPU (fgd_sim.h)"},
      [](uint64_t seed) { return MakeFgdSim({.score = FgdSimScore::kRandom, .seed = seed}); }));
  Must(r.AddPlacement(
      {"topology-aware", "", "",
       "best fit for single tasks; gangs kept close (same node, then rack, then "
       "switch) by the gang-locality plugin over best fit on GPUs (docs/topology.md)"},
      [] { return MakeTopologyAware(); }));
  return r;
}

}  // namespace utilsim
