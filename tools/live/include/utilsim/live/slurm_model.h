// The Slurm advisor's model of the live cluster (docs/live-slurm.md, "How
// advice is computed"): Slurm's nodes and running jobs in a Placer
// (utilsim/policies/placer.h), the same policy code the simulator runs, and
// for every pending GPU job the placement the policy chooses and when the
// job could start.
//
// Model:
//  - a node is a ClusterSpec node of its own (group of count 1 named as in
//    Slurm): its gres GPUs of model <gres type> ("gpu" when untyped), CPUs,
//    RealMemory. A node that takes no new jobs (SlurmNodeInfo::Schedulable)
//    is drained: it keeps its jobs, gets no advice.
//  - a running job holds, on each of its nodes, the CPUs, memory and the
//    GPUs that job_resources and gres_detail give (the exact GPU indices
//    when Slurm lists them, else the lowest free). A holding that does not
//    fit the model (an unknown node, more than the node has) is left out
//    and counted in warnings().
//  - a pending job is `node_count` tasks of its per-node GPUs (tres_per_node,
//    else tres_per_job spread over the nodes), CPUs / nodes, and memory per
//    node (memory_per_node, else memory_per_cpu x CPUs per node). With
//    neither, Slurm gives the job whole nodes' memory (DefMemPerNode unset):
//    the advice then only uses nodes with no memory allocated and holds the
//    smallest such node's memory. The GPU type asked is a model constraint.
//    Candidates: schedulable nodes of its partition(s), minus its excluded
//    nodes, within its required nodes when it has some.
//
// Start estimates (SlurmAdvice::est_start_unix): a list schedule in Slurm's
// priority order (priority, then submit time, then job id) with time limits
// as run times: running jobs end at Slurm's end_time (start + limit); at now
// and then at each expected end, every pending job not yet started that
// fits starts, higher priority first, and ends at start + its time limit
// (unlimited: never). A job that fits nowhere even on the empty cluster has
// no estimate. Blocked jobs get no reservation (greedy backfill), so a wide
// job's estimate may be later than Slurm's backfill would make it; Slurm's
// own estimate is reported beside it (slurm_start_unix). Held jobs are
// listed without an estimate and take no part.
// Thread-safety: none (one thread builds and asks).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/live/measured.h"
#include "utilsim/live/slurm_objects.h"
#include "utilsim/policies/placer.h"
#include "utilsim/policies/registry.h"

namespace utilsim::live {

struct SlurmAdviceOptions {
  std::string policy = "best-fit";           // a placement policy or profile of `registry`
  const PolicyRegistry* registry = nullptr;  // null: the built-ins
  uint64_t seed = 1;
  int32_t rank_depth = 3;               // placements listed per job (the first is the advice)
  std::vector<std::string> partitions;  // advise only these partitions' jobs (empty: all)
  int32_t max_jobs = 2000;              // pending jobs advised per poll, in priority order
};

struct SlurmAdvice {
  std::string job;  // Slurm's id as printed ("123", "5_0", "17_[0-2]", "15+1")
  int64_t job_id = 0;
  std::string partition, user, account, slurm_reason;
  int64_t priority = 0;
  int32_t tasks = 1;
  TaskDemand task;        // per node
  std::string gpu_model;  // the model asked ("" any)
  bool whole_node_memory = false;
  bool held = false;
  // The policy's placement: now when `now`, else at est_start_unix. Empty
  // when there is none (see why).
  bool now = false;
  std::vector<std::string> nodes;                // one per task
  std::string placement;                         // "a1:0,1;b2:0" (GPU indices)
  std::vector<std::vector<std::string>> ranked;  // up to rank_depth node lists; [0] == nodes
  int32_t stranded_after = 0;                    // GPUs the placement leaves stranded on its nodes
  int64_t est_start_unix = -1;                   // -1: no estimate (why says)
  int64_t slurm_start_unix = -1;  // Slurm's own expected start (squeue start_time), -1 none
  std::string why;
};

// Allocated versus measured-busy GPUs.
struct SlurmUsage {
  int64_t gpus_total = 0, gpus_schedulable = 0, gpus_allocated = 0;
  int64_t gpus_measured = 0;  // allocated GPUs with a fresh reading
  double gpus_busy = 0;       // sum of the busy fraction over those
  struct Node {
    std::string name;
    int32_t gpus = 0, allocated = 0, measured = 0, stranded = 0;
    double busy = 0;  // over its measured allocated GPUs
  };
  struct Holding {  // one running job on one node
    std::string job, node, user;
    int32_t gpus = 0, measured = 0;
    double busy = 0;  // summed busy of its measured GPUs; idle = measured - busy
  };
  std::vector<Node> nodes;
  std::vector<Holding> holdings;
};

class SlurmModel {
 public:
  // Errors: an unknown policy, no node the model can hold (every node has
  // no CPUs, or none was listed).
  static Result<std::unique_ptr<SlurmModel>> Build(const std::vector<SlurmNodeInfo>& nodes,
                                                   const std::vector<SlurmJobInfo>& jobs,
                                                   const SlurmAdviceOptions& options);
  // Advice for every pending GPU job of the advised partitions, in priority
  // order, as of `now_unix`.
  std::vector<SlurmAdvice> Advise(int64_t now_unix);
  // Gives every running holding the measured busy of its GPUs (mean of the
  // fresh readings; unchanged where none), as policies that read running
  // jobs' utilization (least-loaded, colocate) then see it. Null: no change.
  void SetMeasured(const MeasuredSnapshot* measured);
  // GPUs allocated and, with a snapshot, measured busy: per node, per
  // running job and node, and in total. Readings join by node name and GPU
  // index.
  SlurmUsage Usage(const MeasuredSnapshot* measured) const;
  const ClusterSpec& spec() const { return spec_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Running holdings modelled, and those left out.
  size_t modelled() const { return held_.size(); }
  size_t unmodelled() const { return unmodelled_; }

 private:
  struct Holding {
    std::string id;  // "<job>@<node>"
    std::string job, node, user;
    Job demand;
    Placement where;
    int64_t end_unix = 0;  // 0 = unknown
  };
  struct Pending;
  SlurmModel() = default;
  Result<std::unique_ptr<Placer>> Fresh() const;
  std::vector<Pending> PendingJobs() const;

  SlurmAdviceOptions options_;
  ClusterSpec spec_;
  std::vector<SlurmNodeInfo> nodes_;
  std::vector<SlurmJobInfo> jobs_;
  std::vector<Holding> held_;
  std::vector<std::string> warnings_;
  size_t unmodelled_ = 0;
  std::unique_ptr<Placer> placer_;  // the cluster now
};

// Stranded GPUs of node n: whole-free GPUs on a node with under one core or
// 1 GiB of memory free (the notion of LiveState::NodeFacts and the results).
int32_t StrandedGpus(const ClusterState& state, NodeIndex n);

}  // namespace utilsim::live
