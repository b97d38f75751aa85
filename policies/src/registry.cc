#include "utilsim/policies/registry.h"

#include <algorithm>

#include "utilsim/policies/backfill.h"
#include "utilsim/policies/colocate.h"
#include "utilsim/policies/composed_scheduler.h"
#include "utilsim/policies/fgd.h"
#include "utilsim/policies/framework.h"
#include "utilsim/policies/packing.h"
#include "utilsim/policies/queues_extra.h"

namespace utilsim {

void PolicyRegistry::AddQueue(PolicyInfo info, QueueFactory f) {
  info.kind = "queue";
  std::string name = info.name;
  entries_[name] = Entry{std::move(info), std::move(f), nullptr, "", nullptr, nullptr};
}

void PolicyRegistry::AddPlacement(PolicyInfo info, PlacementFactory f) {
  info.kind = "placement";
  std::string name = info.name;
  entries_[name] = Entry{std::move(info), nullptr, std::move(f), "", nullptr, nullptr};
}

void PolicyRegistry::AddSeededPlacement(PolicyInfo info, SeededPlacementFactory f) {
  info.kind = "placement";
  std::string name = info.name;
  Entry e{std::move(info), nullptr, nullptr, "", nullptr, nullptr};
  e.seeded = std::move(f);
  entries_[name] = std::move(e);
}

void PolicyRegistry::AddBatch(PolicyInfo info, BatchFactory f) {
  info.kind = "queue";
  std::string name = info.name;
  entries_[name] = Entry{std::move(info), nullptr, nullptr, "", std::move(f), nullptr};
}

void PolicyRegistry::AddProfile(PolicyInfo info, std::string queue, PlacementFactory f) {
  info.kind = "profile";
  std::string name = info.name;
  entries_[name] = Entry{std::move(info), nullptr, std::move(f), std::move(queue), nullptr, nullptr};
}

bool PolicyRegistry::Has(const std::string& name) const { return entries_.count(name) > 0; }

std::vector<PolicyInfo> PolicyRegistry::List() const {
  std::vector<PolicyInfo> out;
  for (const auto& [name, e] : entries_) out.push_back(e.info);
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
  } else if (auto it = entries_.find(name); it != entries_.end() && it->second.info.kind == "profile") {
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
  return std::unique_ptr<Scheduler>(std::make_unique<ComposedScheduler>(
      name, q->second.queue(), p->second.MakePlacement(seed)));
}

Result<std::unique_ptr<PlacementPolicy>> PolicyRegistry::MakePlacement(
    const std::string& name, uint64_t seed) const {
  auto it = entries_.find(name);
  if (it == entries_.end() || !it->second.has_placement()) {
    std::string known;
    for (const auto& [n, e] : entries_)
      if (e.has_placement()) known += (known.empty() ? "" : ", ") + n;
    return Status::Error("unknown placement policy '" + name + "' (known: " + known + ")");
  }
  return it->second.MakePlacement(seed);
}

PolicyRegistry BuiltinPolicies() {
  PolicyRegistry r;
  r.AddQueue({"fifo", "", "1", "first come first served by submit time; the head blocks the queue"},
             MakeFifoQueue);
  r.AddQueue({"fifo-skip", "", "1",
              "submit order, but jobs that cannot start are skipped (kube-scheduler style)"},
             MakeFifoSkipQueue);
  r.AddQueue({"as-recorded", "", "1",
              "starts each job at its recorded start time (identity replay for validation)"},
             MakeAsRecordedQueue);
  r.AddBatch({"easy-backfill", "", "1",
              "FIFO with EASY backfilling: the head gets a reservation; later jobs start if they "
              "do not delay it (estimate: the user's walltime request, else the run time)"},
             MakeEasyBackfill);
  r.AddBatch({"conservative-backfill", "", "1",
              "FIFO with conservative backfilling: every queued job gets a reservation; a job "
              "starts early only if it delays none of them (estimate as easy-backfill)"},
             MakeConservativeBackfill);
  r.AddQueue({"sjf", "", "1",
              "shortest job first by the user's estimate (walltime request, else run time); "
              "skips jobs that do not fit"},
             MakeSjfQueue);
  r.AddQueue({"sjf-oracle", "", "1",
              "shortest job first by the recorded run time (an oracle: not knowable online)"},
             MakeSjfOracleQueue);
  r.AddQueue({"priority", "", "1", "higher priority first, then submit time; non-blocking"},
             MakePriorityQueue);
  r.AddBatch({"drf", "", "1",
              "Dominant Resource Fairness across tenants: the tenant with the lowest dominant "
              "share (GPU, CPU, memory) goes first"},
             MakeDrf);
  r.AddBatch({"tiresias", "", "1",
              "Tiresias discretised 2D-LAS: queues by attained GPU-service (3600, 36000 GPU-s), "
              "FIFO within a queue, preempts lower queues"},
             [](std::string label, std::unique_ptr<PlacementPolicy> p) {
               return MakeTiresias(std::move(label), std::move(p), DefaultTiresiasThresholds());
             });
  r.AddBatch({"priority-preempt", "", "1",
              "priority order; a job that cannot fit preempts strictly lower-priority jobs "
              "(restart cost: --restart-cost)"},
             MakePriorityPreempt);
  r.AddPlacement({"first-fit", "", "1", "lowest-indexed node that fits"}, MakeFirstFit);
  r.AddPlacement({"best-fit", "", "1",
                  "Borg-style tightest fit: node left with the fewest free GPUs"},
                 MakeBestFit);
  r.AddPlacement({"worst-fit", "", "1", "spread: node left with the most free GPUs"},
                 MakeWorstFit);
  r.AddPlacement({"epvm", "", "1",
                  "Borg's original E-PVM: minimise the marginal exponential cost of GPU, CPU "
                  "and memory utilisation (spreads)"},
                 MakeEpvm);
  r.AddPlacement({"stranding-hybrid", "", "1",
                  "best fit that penalises leaving GPUs stranded by exhausted CPU or memory "
                  "(Borg's hybrid idea; formula in docs/packing.md)"},
                 MakeStrandingHybrid);
  r.AddPlacement({"tetris", "", "1",
                  "Tetris alignment: max dot product of normalised demand and free vectors"},
                 MakeTetris);
  r.AddPlacement({"gpu-packing", "", "1", "FGD paper baseline: pack GPUs (docs/packing.md)"},
                 MakeGpuPacking);
  r.AddPlacement({"gpu-clustering", "", "1",
                  "FGD paper baseline: cluster tasks of the same GPU demand kind (docs/packing.md)"},
                 MakeGpuClustering);
  r.AddPlacement({"fgd", "", "1",
                  "Fragmentation Gradient Descent (Weng et al., ATC'23): least growth of "
                  "fragmentation for the workload's task classes"},
                 [] { return MakeFgd(TaskClassDist{}); });
  r.AddPlacement({"colocate", "", "1",
                  "utilization-aware co-location: a fractional job joins a shared GPU while "
                  "summed solo utilization <= 1.0 and GPU memory fit, else best fit "
                  "(docs/sharing.md)"},
                 [] { return MakeColocate(); });
  r.AddSeededPlacement(
      {"random", "", "2", "uniform choice among feasible nodes, drawn from the run's --seed"},
      [](uint64_t seed) { return MakeRandomPlacement(seed); });
  r.AddPlacement({"topology-aware", "", "1",
                  "best fit for single tasks; gangs kept close (same node, then rack, then "
                  "switch) by the gang-locality plugin over best fit on GPUs (docs/topology.md)"},
                 [] { return MakeTopologyAware(); });
  return r;
}

}  // namespace utilsim
