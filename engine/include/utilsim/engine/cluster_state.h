// Mutable resource state of a cluster during a run, with the indices that let
// placement policies find candidate nodes without scanning every node.
//
// Resources per node: CPU (milli-cores), memory (bytes) and per-GPU free share
// (milli-GPU, 1000 = whole GPU free) and per-GPU free GPU memory (bytes). A
// GPU is "whole-free" when its free share is 1000. Whole-GPU tasks take
// whole-free GPUs; a fractional task takes part of one GPU.
//
// GPU memory is a hard limit (docs/sharing.md "GPU memory"): the tasks on one
// GPU together never ask for more than its memory (TaskDemand::gpu_mem_bytes,
// per GPU). 0 means unknown and is not limited: a task of gpu_mem_bytes <= 0
// takes none, and on a node whose GPU model has memory 0 nothing is counted.
//
// Indices maintained on every change:
//  * per GPU model, buckets of nodes by their number of whole-free GPUs
//    (ascending node index inside a bucket) — best-fit / worst-fit on GPUs;
//  * a max segment tree over nodes of (whole-free GPUs, largest free GPU
//    share, free CPU, free memory) — leftmost feasible node (first-fit) in
//    O(log n) per visited subtree. GPU memory is not in the tree: the share
//    prunes, the leaf test (CanHost) is exact.
//
// Not thread-safe; one ClusterState per simulation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/node_set.h"
#include "utilsim/engine/placement.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/topology.h"

namespace utilsim {

struct NodeInfo {
  std::string name;
  int32_t group = 0;   // index into ClusterSpec::groups
  int32_t model = -1;  // index into ClusterSpec::models, -1 = CPU-only
  int32_t gpus = 0;
  int64_t cpu_milli = 0;
  int64_t mem_bytes = 0;
  int64_t gpu_mem_bytes = 0;  // per GPU
  double speed = 1.0;         // relative GPU speed of the model
  int32_t nvlink_domain = 0;  // GPUs per NVLink domain (== gpus when the whole node is one)
};

// Bit i set = model i allowed. kAnyModel allows every model.
using ModelMask = uint64_t;
inline constexpr ModelMask kAnyModel = ~ModelMask{0};

class ClusterState {
 public:
  // Validates the spec (at most 64 GPU models, 0..64 GPUs per node, positive
  // CPU and memory, known model names) and builds an empty cluster.
  static Result<ClusterState> Build(const ClusterSpec& spec);

  const ClusterSpec& spec() const { return *spec_; }
  // The topology built from the spec (shared by copies of this state).
  const Topology& topology() const { return *topology_; }
  size_t num_nodes() const { return nodes_.size(); }
  const NodeInfo& node(NodeIndex n) const { return nodes_[n]; }
  int num_models() const { return static_cast<int>(spec_->models.size()); }
  int max_gpus_per_node() const { return max_gpus_; }

  int32_t free_whole_gpus(NodeIndex n) const { return free_whole_[n]; }
  int64_t free_cpu(NodeIndex n) const { return free_cpu_[n]; }
  int64_t free_mem(NodeIndex n) const { return free_mem_[n]; }
  int32_t gpu_free_milli(NodeIndex n, int gpu) const { return gpu_free_[gpu_offset_[n] + gpu]; }
  // Free GPU memory of a GPU, bytes (0 on a node of unknown GPU memory).
  int64_t free_gpu_mem(NodeIndex n, int gpu) const { return gpu_mem_free_[gpu_offset_[n] + gpu]; }
  // True when GPU `gpu` of node n has both the share and the GPU memory one
  // task of d asks for (the per-GPU test of CanHost, PickGpus and Allocate).
  bool GpuFits(NodeIndex n, int gpu, const TaskDemand& d) const {
    const size_t i = static_cast<size_t>(gpu_offset_[n] + gpu);
    return gpu_free_[i] >= d.gpu_milli && (d.gpu_mem_bytes <= 0 || nodes_[n].gpu_mem_bytes <= 0 ||
                                           gpu_mem_free_[i] >= d.gpu_mem_bytes);
  }
  // Number of tasks currently holding resources on node n.
  int32_t tasks_on(NodeIndex n) const { return tasks_on_[n]; }

  // Resolves allowed model names to a mask; unknown names are ignored (a job
  // naming only unknown models gets mask 0 and fits nowhere).
  ModelMask ResolveModels(const std::vector<std::string>& names) const;
  bool ModelAllowed(NodeIndex n, ModelMask mask) const;

  // True when node n can host one task of demand d now (model, GPUs, CPU, mem;
  // a fractional task needs one GPU where GpuFits; and the power budget, when
  // one is set, has room for it: PowerFits).
  bool CanHost(NodeIndex n, const TaskDemand& d, ModelMask mask) const {
    return HostsResources(n, d, mask) && PowerFits(n, d);
  }
  // CanHost without the power budget (what the resources alone allow); with
  // even_cordoned, what a cordoned node's free resources would allow.
  bool HostsResources(NodeIndex n, const TaskDemand& d, ModelMask mask,
                      bool even_cordoned = false) const;

  // Power budget (docs/energy.md, "Power budget"): an optional limit on the
  // power that allocated GPUs may add to the cluster's idle draw, for the
  // whole cluster and for each rack. Each allocated GPU counts its model's
  // budgeted watts above idle (pro rata for a share); a task fits only where
  // both headrooms hold it (CanHost, FindFirst). Allocate does not refuse
  // (a policy's tentative allocations and their undoing may pass through
  // states above it); the engine checks every start (CheckPowerBudget).
  struct PowerBudget {
    int64_t cluster_mw = -1;        // headroom of the cluster, mW; < 0 = no limit
    std::vector<int64_t> rack_mw;   // per Topology rack, mW; empty or < 0 = no limit
    std::vector<int64_t> model_mw;  // per GPU model: mW one whole allocated GPU counts
  };
  // Sets the budget, before any GPU is allocated (the engine does at Init).
  // Errors: a model_mw of the wrong size or negative, rack_mw of the wrong
  // size, GPUs already allocated.
  Status SetPowerBudget(PowerBudget b);
  bool power_budget_on() const { return budget_on_; }
  const PowerBudget& power_budget() const { return budget_; }
  // mW the allocated GPUs count now (0 without a budget).
  int64_t power_used_mw() const { return power_used_; }
  // What one task of d on node n counts against the budget, mW.
  int64_t TaskPowerMw(NodeIndex n, const TaskDemand& d) const;
  // Error when what is allocated now exceeds the cluster's headroom or that
  // of a rack holding a task of p (the engine's check after each start).
  Status CheckPowerBudget(const Placement& p) const;
  // True without a budget, else when one more task of d on n stays within
  // the cluster's and n's rack's headroom.
  bool PowerFits(NodeIndex n, const TaskDemand& d) const {
    return !budget_on_ || PowerFitsSlow(n, d);
  }
  // False when the budget has no room for `tasks` tasks of d on the
  // cheapest allowed model: the cluster's headroom left is short of all of
  // them, or every rack's of one; true without a budget. A necessary
  // condition only, for skipping a search when the budget is spent.
  bool PowerRoomAnywhere(const TaskDemand& d, ModelMask mask, int64_t tasks = 1) const;
  // Cordoning (Kubernetes' word): a cordoned node keeps what it holds
  // (Allocate and Release work as before, totals count it) but hosts
  // nothing new: CanHost is false and FindFirst skips it, so no policy
  // places a task there; it is in no Bucket(), so policies that scan
  // buckets never see it. For a caller asking "where among these nodes" (the live
  // extender's candidate list, utilsim/policies/placer.h). O(log nodes).
  void SetCordoned(NodeIndex n, bool cordoned);
  bool cordoned(NodeIndex n) const { return cordoned_[n] != 0; }
  size_t cordoned_count() const { return cordoned_count_; }
  // True when node n, empty, could host one task of d (cordoning aside).
  bool CouldEverHost(NodeIndex n, const TaskDemand& d, ModelMask mask) const;
  // GPUs a task of d would take on n if placed now: the lowest-indexed
  // whole-free GPUs for whole-GPU tasks — except on nodes of several NVLink
  // domains, where a task that fits in one domain takes the lowest-indexed
  // whole-free GPUs of the fullest domain that still fits it (best fit, ties
  // to the lowest domain; domain-locality keeps the task on NVLink), and a
  // larger task takes wholly free domains first; for a fractional task the GPU with
  // the least free share among those where GpuFits (ties: lowest index), which
  // keeps whole GPUs whole. Precondition: CanHost(n, d, mask).
  uint64_t PickGpus(NodeIndex n, const TaskDemand& d) const;

  // Claims resources for one task. Fails without changing anything if the
  // task does not fit exactly (over-commit of CPU, memory, a GPU's share or
  // its GPU memory; wrong GPU count, bad mask).
  Status Allocate(const TaskPlacement& t, const TaskDemand& d);
  // Returns what Allocate claimed. Precondition: a matching Allocate.
  void Release(const TaskPlacement& t, const TaskDemand& d);

  // Many changes to one node at once: after DeferIndex(n), Allocate and
  // Release on node n update its own figures (free CPU, memory, each GPU's
  // share and memory, the totals) but not its indexes (free_whole_gpus(n),
  // its bucket, the search tree) until Reindex(n) brings them up to date in
  // one step. In between, only n's own figures may be read: no Bucket,
  // FindFirst, CanHost or free_whole_gpus(n). One node at a time;
  // precondition of Reindex: the matching DeferIndex.
  void DeferIndex(NodeIndex n);
  void Reindex(NodeIndex n);

  // --- indices ---
  // Nodes of `model` (-1 for CPU-only) with exactly k whole-free GPUs, not
  // cordoned.
  const NodeSet& Bucket(int model, int k) const;
  // Leftmost node with index >= from that can host d now, or -1; with
  // budget false, the power budget is ignored (HostsResources).
  int64_t FindFirst(NodeIndex from, const TaskDemand& d, ModelMask mask, bool budget = true) const;
  // The node that can host one task of d now (CanHost) with the greatest
  // score(free whole GPUs, free CPU, free memory), ties to the lowest index;
  // -1 if none. score(int32_t, int64_t, int64_t) returns int64_t and must be
  // nondecreasing in each argument; bound (same signature) must be >= score
  // for the same arguments (a cheaper, looser form of it; score itself will
  // do). A subtree of the segment tree is skipped when bound of its maxima
  // cannot beat the best so far (branch and bound), so the result equals
  // scoring every node that can host d. Precondition, as for FindFirst: no
  // DeferIndex open.
  template <typename Score, typename Bound>
  int64_t FindMax(const TaskDemand& d, ModelMask mask, Score&& score, Bound&& bound) const;

  // Totals.
  int64_t total_gpus() const { return total_gpus_; }
  int64_t total_cpu() const { return total_cpu_; }
  int64_t total_mem() const { return total_mem_; }
  int64_t allocated_gpu_milli() const { return alloc_gpu_milli_; }
  int64_t allocated_cpu() const { return alloc_cpu_; }
  int64_t allocated_mem() const { return alloc_mem_; }
  int64_t whole_free_gpus_total() const { return whole_free_total_; }
  // Grows with every successful Allocate, every Release and SetCordoned: the
  // state is unchanged while it is (a cheap test before a costly measure).
  uint64_t version() const { return version_; }

 private:
  struct Maxes {
    int32_t whole = 0;
    int32_t share = 0;
    int64_t cpu = 0;
    int64_t mem = 0;
  };
  void UpdateNode(NodeIndex n, int32_t old_whole);
  void UpdateTree(NodeIndex n);
  int64_t FindFirstRec(size_t pos, size_t lo, size_t hi, NodeIndex from, const TaskDemand& d,
                       ModelMask mask, bool budget) const;
  bool PowerFitsSlow(NodeIndex n, const TaskDemand& d) const;
  void ChargePower(NodeIndex n, const TaskDemand& d, int64_t sign);
  int32_t LargestShare(NodeIndex n) const;
  static uint64_t PickGpusByDomain(const int32_t* free_milli, int count, int dom, int need);

  // Immutable and shared, so that copying a state (backfill's scratch copies)
  // copies only the mutable vectors.
  std::shared_ptr<const ClusterSpec> spec_;
  std::shared_ptr<const Topology> topology_;
  std::vector<NodeInfo> nodes_;
  std::vector<int32_t> gpu_offset_;
  std::vector<int32_t> gpu_free_;      // milli per GPU
  std::vector<int64_t> gpu_mem_free_;  // GPU memory bytes per GPU (0: unknown memory)
  std::vector<int32_t> free_whole_;
  std::vector<int64_t> free_cpu_, free_mem_;
  std::vector<int32_t> tasks_on_;
  std::vector<uint8_t> cordoned_;  // 1 = cordoned
  size_t cordoned_count_ = 0;
  // buckets_[(model + 1) * (max_gpus_ + 1) + k]
  std::vector<NodeSet> buckets_;
  std::vector<Maxes> tree_;
  size_t leaves_ = 1;
  int max_gpus_ = 0;
  int64_t total_gpus_ = 0, total_cpu_ = 0, total_mem_ = 0;
  int64_t alloc_gpu_milli_ = 0, alloc_cpu_ = 0, alloc_mem_ = 0;
  int64_t whole_free_total_ = 0;
  uint64_t version_ = 0;
  NodeIndex deferred_ = kNoDeferred;  // DeferIndex's node
  int32_t deferred_whole_ = 0;        // its free_whole_ before DeferIndex
  static constexpr NodeIndex kNoDeferred = static_cast<NodeIndex>(-1);
  bool budget_on_ = false;
  PowerBudget budget_;
  int64_t power_used_ = 0;
  std::vector<int64_t> rack_used_;  // per rack, mW
};

// Formats a placement as "node:gpu,gpu;node:gpu" (CPU-only tasks: "node:"),
// the results' placement format (docs/results.md).
std::string FormatPlacement(const Placement& p, const ClusterState& c);

// Branch and bound, depth first: a subtree's bound is bound() of its
// maxima, which cover d's CPU, memory and GPUs (whole ones, or the largest
// free share for a fractional task: FindFirst's pruning); no node in it
// scores more (score is nondecreasing, bound >= score). Of two children the one
// with the higher bound is entered first (the left one on a tie), the other
// kept on a stack and tested again when it comes up. The result does not
// depend on the order: a subtree is left out only when none of its nodes can
// beat the best, nor tie it at a lower index.
template <typename Score, typename Bound>
int64_t ClusterState::FindMax(const TaskDemand& d, ModelMask mask, Score&& score,
                              Bound&& bound) const {
  // kShare: d is fractional (prune on the largest free share, not the
  // whole-free GPUs), a compile-time choice kept off the hot loop.
  auto search = [&]<bool kShare>() -> int64_t {
    // The first node that can host d (none: no search) seeds the best: the
    // bounds then prune from the start, and a failing search costs one descent.
    const int64_t first = FindFirst(0, d, mask);
    if (first < 0) return -1;
    int64_t best = first;
    int64_t best_score =
        score(free_whole_[static_cast<NodeIndex>(first)], free_cpu_[static_cast<NodeIndex>(first)],
              free_mem_[static_cast<NodeIndex>(first)]);
    struct Item {
      size_t pos, lo, width;
      int64_t ub;
    };
    Item stack[64];  // one entry a level at most
    int top = 0;
    const Maxes& root = tree_[1];
    stack[top++] = {1, 0, leaves_, bound(root.whole, root.cpu, root.mem)};
    auto fits = [&](const Maxes& x) {
      return x.cpu >= d.cpu_milli && x.mem >= d.mem_bytes &&
             (kShare ? x.share >= d.gpu_milli : x.whole >= d.gpus);
    };
    while (top > 0) {
      Item it = stack[--top];
      for (;;) {
        if (it.lo >= nodes_.size()) break;
        if (it.ub < best_score || (it.ub == best_score && static_cast<int64_t>(it.lo) > best))
          break;
        if (it.width == 1) {  // a leaf: its maxima are the node's free figures
          const auto n = static_cast<NodeIndex>(it.lo);
          const int64_t s = score(free_whole_[n], free_cpu_[n], free_mem_[n]);
          if ((s > best_score || (s == best_score && static_cast<int64_t>(n) < best)) &&
              CanHost(n, d, mask)) {
            best = static_cast<int64_t>(n);
            best_score = s;
          }
          break;
        }
        const size_t half = it.width / 2, mid = it.lo + half;
        const Maxes& a = tree_[2 * it.pos];
        const Maxes& b = tree_[2 * it.pos + 1];
        const bool fa = fits(a), fb = mid < nodes_.size() && fits(b);
        const int64_t ua = fa ? bound(a.whole, a.cpu, a.mem) : 0;
        const int64_t ub = fb ? bound(b.whole, b.cpu, b.mem) : 0;
        const Item left{2 * it.pos, it.lo, half, ua}, right{2 * it.pos + 1, mid, half, ub};
        if (fb && (!fa || ub > ua)) {
          if (fa) stack[top++] = left;
          it = right;
        } else if (fa) {
          if (fb) stack[top++] = right;
          it = left;
        } else {
          break;
        }
      }
    }
    return best;
  };
  return d.fractional() ? search.template operator()<true>() : search.template operator()<false>();
}

}  // namespace utilsim
