// The decision API for a scheduler that lives outside utilsim (an embedder,
// the live modes): a cluster state the caller keeps in step with the real
// cluster through explicit updates, and a placement policy asked where a job
// would go now. No simulation and no clock: the same policy code, and so the
// same decision, as inside a simulation given the same state.
//
//   auto placer = Placer::Create(cluster_spec, "best-fit");
//   auto where = placer.value()->Place(job);          // a Placement or none
//   placer.value()->Started("job-17", job, *where);    // the job really started
//   placer.value()->Finished("job-17");                // and later ended
//
// Jobs are named by the caller's ids. Policies that look at the running jobs
// (colocate's and least-loaded's GPU loads: PlacementPolicy::
// uses_running_jobs) see the jobs started here, each with the utilization
// it was started with or last given by SetUtil, through a pass begun before
// every Place, exactly as a simulation's scheduling pass shows them.
// Thread-safety: none; one thread at a time per Placer (several Placers may
// be used on separate threads).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/placement.h"
#include "utilsim/engine/status.h"
#include "utilsim/policies/placement_policy.h"
#include "utilsim/policies/registry.h"

namespace utilsim {

class Placer {
 public:
  // `placement`: a placement policy or profile name of `registry` (see
  // `utilsim policies`). `stats`: a workload whose statistics policies such
  // as fgd use (PlacementPolicy::Init); null = an empty workload. Errors: an
  // invalid cluster, an unknown policy.
  static Result<std::unique_ptr<Placer>> Create(const ClusterSpec& cluster,
                                                const std::string& placement,
                                                const PolicyRegistry& registry = BuiltinPolicies(),
                                                uint64_t seed = 1, const Workload* stats = nullptr);

  // Where the policy would place every task of `job` now, or nullopt when it
  // cannot start now (on drained nodes nothing new is placed). The state is
  // left as it was. O(the policy's Place).
  std::optional<Placement> Place(const Job& job);

  // Up to k placements in the policy's order of preference: its choice, its
  // choice with the first choice's nodes drained, and so on (so for a
  // single-task job, the k best nodes by the policy's own criterion). Stops
  // early when nothing more fits. O(k x Place).
  std::vector<Placement> Rank(const Job& job, size_t k);
  // Rank restricted to `candidates` (node indices; the others are cordoned
  // for the call: ClusterState::SetCordoned), as a scheduler asks "which of
  // these nodes". Unknown indices are ignored. O(nodes + k x Place).
  std::vector<Placement> RankAmong(const Job& job, size_t k,
                                   const std::vector<NodeIndex>& candidates);
  // True when one task of `job` fits node n now (its model, free resources;
  // false on a drained node). O(1).
  bool Fits(const Job& job, NodeIndex n) const;

  // The job with id `id` started on `p` with demand `job.task` (the caller's
  // scheduler decided; it need not be what Place said). Errors: the id is
  // running already, the placement does not fit or names unknown nodes.
  Status Started(const std::string& id, const Job& job, const Placement& p);
  // The job ended: its resources are free again. Error: unknown id.
  Status Finished(const std::string& id);
  // A running job's utilization changed (a new measurement): util in 0..1,
  // as Job::util. Error: unknown id, util outside 0..1.
  Status SetUtil(const std::string& id, float util);
  // A drained node keeps its running jobs but gets nothing new; undraining
  // makes its free resources placeable again. Error: unknown node.
  Status SetDrained(const std::string& node, bool drained);

  // The node's index by name, or -1. O(1).
  int64_t NodeIndexOf(const std::string& node) const;
  // The running job `id`'s demand, utilization and placement, or null.
  const Job* job(const std::string& id) const;
  const Placement* placement(const std::string& id) const;
  // "node:gpu,gpu;node:gpu" (the results' placement format).
  std::string Describe(const Placement& p) const;
  // The state as the policy sees it, drained nodes' free resources shown as
  // held. Not for modification.
  const ClusterState& state() const { return state_; }
  size_t running() const { return running_.size(); }

 private:
  Placer(ClusterState state, std::unique_ptr<PlacementPolicy> policy);
  class Pass;  // the PassContext over the running jobs (placer.cc)
  void BeginPass();
  // What a held (drained) node's free resources are claimed as.
  using Holds = std::vector<std::pair<TaskPlacement, TaskDemand>>;
  Holds Hold(NodeIndex n);
  void Unhold(Holds* h);

  ClusterState state_;
  std::unique_ptr<PlacementPolicy> policy_;
  Workload no_stats_;
  std::unordered_map<std::string, NodeIndex> index_;
  // Running jobs in slots: pass_.jobs[slot] (the job as started, util as
  // last set), where_[slot]; running_ maps ids to slots, live_ lists the
  // occupied slots (the pass's running()), free_ the empty ones.
  Workload pass_;
  std::vector<Placement> where_;
  std::vector<JobIndex> live_, free_;
  std::vector<size_t> live_pos_;  // slot -> position in live_
  std::map<std::string, JobIndex> running_;
  std::map<NodeIndex, Holds> drained_;
};

}  // namespace utilsim
