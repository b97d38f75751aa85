// The extender's model of the live cluster (docs/live-k8s.md, "How a pod
// becomes a decision"): nodes and pods from the Kubernetes cache
// (KubeListener events), measured utilization from Prometheus snapshots,
// and a Placer (utilsim/policies/placer.h) over them running the same
// policy code as the simulator. Filter and Prioritize answer the extender
// verbs from it.
//
// Model:
//  - a node is a ClusterSpec node of its own: GPUs = allocatable of the
//    first node-count resource present (nvidia.com/gpu, aliyun.com/gpu-count;
//    ResourceNames::node_count), GPU model = the nvidia.com/gpu.product label
//    ("gpu" when absent), GPU memory = the nvidia.com/gpu.memory label (MiB),
//    else aliyun.com/gpu-mem allocatable (GiB) / GPUs, else unknown (0);
//    CPU and memory = allocatable cpu and memory. Nodes with no CPU or
//    memory, or more than 64 GPUs, are left out (warnings()).
//  - a pod holds resources while bound (spec.nodeName set) and not
//    terminal; its demand is DemandOf() below; its utilization is the
//    measured busy of its own series (pod/namespace labels), else the mean
//    of its node's fresh GPU readings, else options.fallback_util (stated:
//    1.0 = assume busy, the conservative choice for spreading).
//  - a change of the node set or of a node's resources rebuilds the Placer
//    (O(nodes + bound pods)) on the cache's thread: at the first sync and
//    at each node change after it, so requests rarely pay for it (one that
//    waits past its deadline answers "no opinion"); pod events update it in
//    place (O(1) each).
// Thread-safety: every public method locks; listener calls, snapshots and
// decisions may come from different threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/live/k8s_objects.h"
#include "utilsim/live/kube_client.h"
#include "utilsim/live/measured.h"
#include "utilsim/policies/placer.h"
#include "utilsim/policies/registry.h"

namespace utilsim::live {

// A resource that asks for part of one GPU.
struct ShareResource {
  enum class Unit {
    kPercent,    // 100 = one whole GPU (HAMi nvidia.com/gpucores, Koordinator gpu-core)
    kGpuMemMiB,  // GPU memory in MiB (HAMi nvidia.com/gpumem)
    kGpuMemGiB,  // GPU memory in GiB (gpushare aliyun.com/gpu-mem)
  };
  std::string name;
  Unit unit = Unit::kPercent;
};

// The GPU resource names of the cluster's device plugins.
struct ResourceNames {
  // Whole GPUs a pod asks for (summed).
  std::vector<std::string> whole = {"nvidia.com/gpu"};
  // Parts of a GPU: percent resources give the share, memory resources the
  // GPU memory (and a share of ceil(1000 x memory / the largest GPU memory
  // of the cluster), so the memory limit decides).
  std::vector<ShareResource> share = {{"nvidia.com/gpucores", ShareResource::Unit::kPercent},
                                      {"koordinator.sh/gpu-core", ShareResource::Unit::kPercent},
                                      {"nvidia.com/gpumem", ShareResource::Unit::kGpuMemMiB},
                                      {"aliyun.com/gpu-mem", ShareResource::Unit::kGpuMemGiB}};
  // A node's GPU count: the first of these in its allocatable.
  std::vector<std::string> node_count = {"nvidia.com/gpu", "aliyun.com/gpu-count"};
};

// A pod's per-task demand (one pod = one task), or an error saying why
// utilsim cannot model it (a fractional share on several GPUs).
// `largest_gpu_mem` for memory-unit shares (0 = unknown: share 1000).
Result<TaskDemand> DemandOf(const K8sPod& pod, const ResourceNames& names,
                            int64_t largest_gpu_mem = 0);
// True when the pod requests any of `resources` (a managedResources list).
bool RequestsAny(const K8sPod& pod, const std::vector<std::string>& resources);

struct LiveStateOptions {
  std::string policy = "least-loaded";       // a placement policy or profile of `registry`
  const PolicyRegistry* registry = nullptr;  // null: the built-ins
  uint64_t seed = 1;
  ResourceNames resources;
  float fallback_util = 1.0f;  // a pod's utilization when nothing fresh is measured
  int32_t rank_depth = 5;      // prioritize scores the policy's first rank_depth choices
};

// One decision: which of the asked nodes pass (filter) or how they score
// (prioritize), and the facts the shadow log records.
struct Decision {
  bool opinion = false;  // false: "no opinion" (reason says why)
  std::string reason;
  std::vector<std::string> passed;                      // filter: nodes kept, in request order
  std::map<std::string, std::string> failed;            // filter: node -> why not
  std::vector<std::pair<std::string, int64_t>> scores;  // prioritize: every asked node, 0..10
  std::string top;  // the policy's choice among the nodes ("" none)
  TaskDemand demand;
  float pod_util = -1;  // the pod's own measured utilization, -1 unknown
};

// What the cache saw the scheduler do (for the shadow log).
struct BindingSeen {
  std::string pod_key, uid, node;
  TaskDemand demand;
  int64_t unix_ms = 0;
};

class LiveState : public KubeListener {
 public:
  // Error: an unknown policy.
  static Result<std::unique_ptr<LiveState>> Create(LiveStateOptions options);

  // KubeListener.
  void OnNode(WatchEvent::Type type, const K8sNode& node) override;
  void OnPod(WatchEvent::Type type, const K8sPod& pod) override;
  void OnSynced() override;
  // A new measurement; every bound pod's utilization follows it.
  void SetMeasured(std::shared_ptr<const MeasuredSnapshot> snapshot);

  // Decisions wait for the state at most until `deadline`; past it they
  // answer "no opinion" (reason "busy: deadline") rather than late.
  using Deadline = std::chrono::steady_clock::time_point;
  // Filter: of `nodes`, those where one task of the pod fits now; nodes
  // utilsim does not know pass (no opinion on them).
  Decision Filter(const K8sPod& pod, const std::vector<std::string>& nodes,
                  Deadline deadline = Deadline::max());
  // Prioritize: the policy's first rank_depth choices among `nodes` score
  // 10, 8, 6, 4, 2 (10 - 2i for depth 5; 10 - i x 10/depth in general,
  // at least 1), other nodes where the pod fits 1, the rest 0.
  Decision Prioritize(const K8sPod& pod, const std::vector<std::string>& nodes,
                      Deadline deadline = Deadline::max());
  // Preempt: of the scheduler's candidate nodes, those where the pod fits
  // once that node's victims (pod UIDs) are gone; victims of unknown UIDs
  // are kept as given. Returns node -> victims kept.
  std::map<std::string, std::vector<std::string>> Preempt(
      const K8sPod& pod, const std::map<std::string, std::vector<std::string>>& victims);

  // A node's facts as the model has them now, for the shadow log: measured
  // busy (mean of its fresh GPU readings, -1 unknown), free whole GPUs,
  // GPUs partly used (fragments), and stranded GPUs (whole-free GPUs on a
  // node with under one core or 1 GiB of memory free). nullopt: unknown node.
  struct NodeFacts {
    double busy = -1;
    int32_t free_gpus = 0, partial_gpus = 0, stranded_gpus = 0;
  };
  std::optional<NodeFacts> Facts(const std::string& node);

  // The cluster as modelled now (rebuilt first when the node set changed),
  // and a number that changes with every rebuild (0: never built).
  ClusterSpec Model(uint64_t* generation);
  uint64_t model_generation() const;

  // Called for each pod the cache first sees bound (outside the lock).
  void set_on_bound(std::function<void(const BindingSeen&)> f);
  // Called when a bound pod ends (terminal or deleted; outside the lock).
  void set_on_finished(std::function<void(const BindingSeen&)> f);

  bool synced() const;
  size_t nodes() const;
  size_t bound_pods() const;
  // Bound pods utilsim could not place on its model of the node (the
  // scheduler over-committed in utilsim's terms, or an unknown node).
  size_t unmodelled_pods() const;
  std::vector<std::string> warnings() const;
  int64_t last_measured_unix_ms() const;
  // When the cache last told something (an event or a completed list), ms
  // since the UNIX epoch; 0 = never.
  int64_t last_event_unix_ms() const;

 private:
  explicit LiveState(LiveStateOptions options);
  void RebuildLocked();
  // What every decision does first: takes *lock by `deadline`, checks the
  // state is synced and modelled, reads the pod's demand into out->demand.
  // False (out->reason set): answer "no opinion".
  bool BeginDecision(const K8sPod& pod, Deadline deadline, std::unique_lock<std::timed_mutex>* lock,
                     Decision* out);
  void StartLocked(const K8sPod& pod);
  void FinishLocked(const std::string& key);
  float UtilOfLocked(const K8sPod& pod) const;
  Job JobOf(const K8sPod& pod, const TaskDemand& d) const;
  std::vector<NodeIndex> IndicesLocked(const std::vector<std::string>& nodes) const;

  mutable std::timed_mutex mu_;
  LiveStateOptions options_;
  std::map<std::string, K8sNode> nodes_;
  std::map<std::string, K8sPod> pods_;            // bound, non-terminal pods by key
  std::set<std::string> placed_;                  // of those, the ones the Placer holds
  std::map<std::string, Placement> recommended_;  // pod key -> last top choice
  std::unique_ptr<Placer> placer_;
  bool dirty_ = true;  // the node set changed: rebuild before deciding
  uint64_t generation_ = 0;
  ClusterSpec spec_;  // what placer_ was built from
  bool synced_ = false;
  int64_t last_event_ms_ = 0;
  int64_t largest_gpu_mem_ = 0;
  std::shared_ptr<const MeasuredSnapshot> measured_;
  std::vector<std::string> warnings_;
  std::function<void(const BindingSeen&)> on_bound_, on_finished_;
};

}  // namespace utilsim::live
