#include "utilsim/policies/registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "utilsim/policies/backfill.h"
#include "utilsim/policies/colocate.h"
#include "utilsim/policies/composed_scheduler.h"
#include "utilsim/policies/fgd.h"
#include "utilsim/policies/framework.h"
#include "utilsim/policies/packing.h"
#include "utilsim/policies/queues_extra.h"

namespace utilsim {

Status PolicyRegistry::Insert(Entry e, OnDuplicate dup) {
  e.info.version.clear();  // read from an instance when listed (VersionOf)
  const std::string name = e.info.name;
  if (name.empty()) return Status::Error("a policy needs a name");
  if (auto it = entries_.find(name); it != entries_.end() && dup == OnDuplicate::kError)
    return Status::Error("policy '" + name + "' is registered already (as a " +
                         it->second.info.kind + ")");
  entries_[name] = std::move(e);
  return Status::Ok();
}

Status PolicyRegistry::AddQueue(PolicyInfo info, QueueFactory f, OnDuplicate dup) {
  info.kind = "queue";
  return Insert(Entry{std::move(info), std::move(f), nullptr, "", nullptr, nullptr}, dup);
}

Status PolicyRegistry::AddPlacement(PolicyInfo info, PlacementFactory f, OnDuplicate dup) {
  info.kind = "placement";
  return Insert(Entry{std::move(info), nullptr, std::move(f), "", nullptr, nullptr}, dup);
}

Status PolicyRegistry::AddSeededPlacement(PolicyInfo info, SeededPlacementFactory f,
                                          OnDuplicate dup) {
  info.kind = "placement";
  Entry e{std::move(info), nullptr, nullptr, "", nullptr, nullptr};
  e.seeded = std::move(f);
  return Insert(std::move(e), dup);
}

Status PolicyRegistry::AddBatch(PolicyInfo info, BatchFactory f, OnDuplicate dup) {
  info.kind = "queue";
  return Insert(Entry{std::move(info), nullptr, nullptr, "", std::move(f), nullptr}, dup);
}

Status PolicyRegistry::AddProfile(PolicyInfo info, std::string queue, PlacementFactory f,
                                  OnDuplicate dup) {
  info.kind = "profile";
  return Insert(Entry{std::move(info), nullptr, std::move(f), std::move(queue), nullptr, nullptr},
                dup);
}

bool PolicyRegistry::Has(const std::string& name) const { return entries_.count(name) > 0; }

// Built on demand, not at registration: decorators count the instances
// their factories make (mig_run.cc), and most registries are never listed.
std::string PolicyRegistry::VersionOf(const Entry& e) const {
  if (e.queue) return e.queue()->id().version;
  if (e.batch) return e.batch(e.info.name, MakeFirstFit())->queue_policy().version;
  if (e.has_placement()) return e.MakePlacement(1)->id().version;
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
  std::string queue_name = "fifo", placement_name = name;
  if (auto plus = name.find('+'); plus != std::string::npos) {
    queue_name = name.substr(0, plus);
    placement_name = name.substr(plus + 1);
  } else if (name == "as-recorded") {
    queue_name = "as-recorded";
    placement_name = "first-fit";
  } else if (auto it = entries_.find(name);
             it != entries_.end() && it->second.info.kind == "profile") {
    queue_name = it->second.profile_queue;
  } else if (auto q = entries_.find(name); q != entries_.end() && q->second.info.kind == "queue") {
    placement_name = "first-fit";
    queue_name = name;
  }
  auto q = entries_.find(queue_name);
  if (q == entries_.end() || q->second.info.kind != "queue")
    return unknown("queue policy", queue_name, "queue");
  auto p = entries_.find(placement_name);
  if (p == entries_.end() || !p->second.has_placement()) {
    if (name.find('+') == std::string::npos)
      return Status::Error("unknown policy '" + name + "' (placements: " + known("placement") +
                           "; profiles: " + known("profile") + "; queues: " + known("queue") +
                           "; or QUEUE+PLACEMENT)");
    return unknown("placement policy", placement_name, "placement");
  }
  if (q->second.batch) return q->second.batch(name, p->second.MakePlacement(seed));
  return std::unique_ptr<Scheduler>(
      std::make_unique<ComposedScheduler>(name, q->second.queue(), p->second.MakePlacement(seed)));
}

Result<std::unique_ptr<PlacementPolicy>> PolicyRegistry::MakePlacement(const std::string& name,
                                                                       uint64_t seed) const {
  auto it = entries_.find(name);
  if (it == entries_.end() || !it->second.has_placement()) {
    std::string known;
    for (const auto& [n, e] : entries_)
      if (e.has_placement()) known += (known.empty() ? "" : ", ") + n;
    return Status::Error("unknown placement policy '" + name + "' (known: " + known + ")");
  }
  return it->second.MakePlacement(seed);
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
  Must(r.AddBatch({"conservative-backfill", "", "",
                   "FIFO with conservative backfilling: every queued job gets a reservation; a job "
                   "starts early only if it delays none of them (estimate as easy-backfill)"},
                  MakeConservativeBackfill));
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
      {"tiresias", "", "",
       "Tiresias discretised 2D-LAS: queues by attained GPU-service (3600, 36000 GPU-s), "
       "FIFO within a queue, preempts lower queues"},
      [](std::string label, std::unique_ptr<PlacementPolicy> p) {
        return MakeTiresias(std::move(label), std::move(p), DefaultTiresiasThresholds());
      }));
  Must(r.AddBatch({"priority-preempt", "", "",
                   "priority order; a job that cannot fit preempts strictly lower-priority jobs "
                   "(restart cost: --restart-cost)"},
                  MakePriorityPreempt));
  Must(r.AddPlacement({"first-fit", "", "", "lowest-indexed node that fits"}, MakeFirstFit));
  Must(r.AddPlacement(
      {"best-fit", "", "", "Borg-style tightest fit: node left with the fewest free GPUs"},
      MakeBestFit));
  Must(r.AddPlacement({"worst-fit", "", "", "spread: node left with the most free GPUs"},
                      MakeWorstFit));
  Must(r.AddPlacement({"epvm", "", "",
                       "Borg's original E-PVM: minimise the marginal exponential cost of GPU, CPU "
                       "and memory utilisation (spreads)"},
                      MakeEpvm));
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
  Must(r.AddPlacement({"colocate", "", "",
                       "utilization-aware co-location: a fractional job joins a shared GPU while "
                       "summed solo utilization <= 1.0 and GPU memory fit, else best fit "
                       "(docs/sharing.md)"},
                      [] { return MakeColocate(); }));
  Must(r.AddSeededPlacement(
      {"random", "", "", "uniform choice among feasible nodes, drawn from the run's --seed"},
      [](uint64_t seed) { return MakeRandomPlacement(seed); }));
  Must(r.AddPlacement(
      {"topology-aware", "", "",
       "best fit for single tasks; gangs kept close (same node, then rack, then "
       "switch) by the gang-locality plugin over best fit on GPUs (docs/topology.md)"},
      [] { return MakeTopologyAware(); }));
  return r;
}

}  // namespace utilsim
