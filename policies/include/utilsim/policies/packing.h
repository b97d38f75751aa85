// Packing placement policies from the literature (docs/packing.md gives each
// formula, its source and the choices made where the source is silent):
//
//   epvm              Borg's original E-PVM: minimise the marginal exponential
//                     cost sum_r B^{u_r} over GPU, CPU and memory (spreads).
//   stranding-hybrid  Borg's hybrid (formula unpublished): best fit plus a
//                     penalty on resources stranded by an imbalanced node.
//   tetris            Tetris alignment: maximise the dot product of the task's
//                     demand and the node's free vector (both / capacity).
//   gpu-packing       FGD paper baseline: shared GPUs first, then idle GPUs of
//                     busy nodes, then idle nodes.
//   gpu-clustering    FGD paper baseline: put a task where tasks of the same
//                     GPU kind (share, 1-gpu, 2-gpu, ...) already run.
//   random            seeded uniform choice among the feasible nodes.
//
// FGD itself is in fgd.h. Every policy here:
//  * honours GPU-model constraints (ModelMask) and places gangs all or
//    nothing, task by task with the reserve step (PlaceTasks);
//  * breaks ties on its score by the lowest node index;
//  * is deterministic (random: for a given seed and call sequence);
//  * takes the GPUs a task uses on the chosen node from
//    ClusterState::PickGpus (whole tasks: lowest-indexed whole-free GPUs;
//    fractional tasks: the fitting GPU with the least free share).
// Scores are integers (fixed point) so that equal node states tie exactly.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/job.h"
#include "utilsim/policies/placement_policy.h"

namespace utilsim {

// E-PVM (Amir et al., TPDS 2000; Borg, EuroSys'15): node cost
// sum_{r in GPU, CPU, mem} B^{u_r}, u_r = used_r / capacity_r, B = max(2,
// number of nodes). Chooses the node with the least marginal cost
// cost(after) - cost(before), computed per resource as B^{u}(B^{delta} - 1)
// with u (before placing) on a 1/10000 grid, rounded half up, delta =
// demand / capacity, fixed point 1e-6. CPU-only nodes have no GPU term.
// Exact search through FindFirst with raised CPU/memory/GPU floors (no
// node that could win is skipped). PolicyId {"epvm", "1"}.
std::unique_ptr<PlacementPolicy> MakeEpvm();

// Borg-style hybrid: with f_r = free_r / capacity_r after placing, in
// millionths, cost = f_primary + sum_r (f_r - min_r f_r), where primary is the
// GPU for GPU tasks and the CPU for CPU-only tasks (the best-fit term), and
// the sum is what a balanced task mix could not use once the scarcest
// resource runs out (the stranding term). Least cost wins.
// PolicyId {"stranding-hybrid", "1"}.
std::unique_ptr<PlacementPolicy> MakeStrandingHybrid();

// Tetris alignment: sum_r (demand_r / cap_r) x (free_r / cap_r) over GPU
// (total milli-GPU; none for CPU-only tasks or nodes), CPU and memory, free
// measured before placing, fixed point 1e-12 (rounded half up). Largest
// alignment wins. PolicyId {"tetris", "1"}.
std::unique_ptr<PlacementPolicy> MakeTetris();

// GPU packing (FGD, ATC'23 baseline), lexicographic, best first:
//  1. a fractional task that fits on an already shared GPU (free < 1000):
//     the least free share on that GPU wins;
//  2. a node that is not GPU-idle (some GPU not whole-free): fewest
//     whole-free GPUs the task takes (all equal for whole-GPU tasks);
//  3. a GPU-idle node: fewest GPUs on the node.
// CPU-only tasks: lowest-indexed feasible node. PolicyId {"gpu-packing", "1"}.
std::unique_ptr<PlacementPolicy> MakeGpuPacking();

// GPU clustering (FGD, ATC'23 baseline). A task's kind is "share"
// (fractional), "k-gpu" (k whole GPUs) or none (CPU-only). Tiers, best
// first: the node runs only the task's kind; runs it among others; runs no
// GPU task; runs only other kinds. Within a tier: least free GPU (milli) on
// the node. CPU-only tasks: lowest-indexed feasible node.
// The kinds on a node are not in ClusterState: the policy keeps a ledger of
// the whole-GPU tasks it placed (a k-gpu entry lives while all its GPUs are
// fully used; entries are pruned whenever the node is placed on again) and
// sees "share" on any GPU used by a fraction or fully used without a live
// whole-GPU entry. Assumes every placement it returns is started (as
// ComposedScheduler does). PolicyId {"gpu-clustering", "1"}.
std::unique_ptr<PlacementPolicy> MakeGpuClustering();

// Uniform choice among the nodes that can host each task, drawn from
// Rng(seed, 0, "placement/random") in the order CollectCandidates lists
// them. PolicyId {"random", "1"}.
std::unique_ptr<PlacementPolicy> MakeRandomPlacement(uint64_t seed);

// Candidate nodes for one task, the common search of the policies above:
// every node that can host d now (the ClusterState::CanHost test), found
// through the per-model buckets of whole-free GPU counts, so a whole-GPU task
// never visits a node with fewer whole-free GPUs than it needs. Order: model
// (CPU-only nodes first), then whole-free count (ascending, or descending
// with `descending`), then node index ascending. With dedup_pristine, a node
// without tasks is left out when a lower-indexed node of the same shape
// (model, GPUs, CPU, memory), also without tasks, was visited: both score the
// same under any policy whose score depends only on the node's state and
// shape. enter_bucket(model, k) is called before each bucket's nodes and may
// return false to skip the bucket; visit(n) is called per candidate and may
// return false to stop the search.
template <typename EnterBucket, typename Visit>
void ForEachCandidate(const ClusterState& c, const TaskDemand& d, ModelMask mask,
                      bool dedup_pristine, bool descending, EnterBucket&& enter_bucket,
                      Visit&& visit);

// ForEachCandidate (ascending, every bucket) into *out (cleared first).
void CollectCandidates(const ClusterState& c, const TaskDemand& d, ModelMask mask,
                       bool dedup_pristine, std::vector<NodeIndex>* out);

// ---- implementation ----
namespace packing_internal {

// A node shape: what a score that is a function of utilization needs.
struct NodeShape {
  int32_t gpus = 0;
  int64_t cpu = 0, mem = 0;
  bool operator==(const NodeShape&) const = default;
};
// The distinct shapes of c's node groups (in group order), or an empty vector
// when there are more than `limit`. O(groups x shapes).
std::vector<NodeShape> DistinctShapes(const ClusterState& c, size_t limit);

// Shapes of the pristine nodes visited so far. A pristine node's free CPU and
// memory are its capacity, and its bucket gives its model and GPU count.
// Bounded: past 32 shapes, further pristine nodes are simply visited.
class PristineSeen {
 public:
  bool SeenOrAdd(int model, int k, int64_t cpu, int64_t mem) {
    for (int i = 0; i < size_; ++i)
      if (s_[i].model == model && s_[i].k == k && s_[i].cpu == cpu && s_[i].mem == mem) return true;
    if (size_ < 32) s_[size_++] = {model, k, cpu, mem};
    return false;
  }

 private:
  struct Shape {
    int model, k;
    int64_t cpu, mem;
  };
  Shape s_[32];
  int size_ = 0;
};

}  // namespace packing_internal

template <typename EnterBucket, typename Visit>
void ForEachCandidate(const ClusterState& c, const TaskDemand& d, ModelMask mask,
                      bool dedup_pristine, bool descending, EnterBucket&& enter_bucket,
                      Visit&& visit) {
  const bool whole = d.gpus > 0 && !d.fractional();
  // Fractional and CPU-only tasks visit every bucket; the segment tree tells
  // cheaply when nothing fits at all.
  if (!whole && c.FindFirst(0, d, mask) < 0) return;
  packing_internal::PristineSeen seen;
  const int first_model = d.gpus == 0 && mask == kAnyModel ? -1 : 0;
  const int lo = whole ? d.gpus : 0;
  for (int m = first_model; m < c.num_models(); ++m) {
    if (m >= 0 && mask != kAnyModel && !(mask >> m & 1)) continue;
    if (d.gpus > 0) {  // the model's GPU memory must suffice (as in CanHost)
      const int64_t gm = c.spec().models[static_cast<size_t>(m)].memory_bytes;
      if (d.gpu_mem_bytes > gm && gm > 0) continue;
    }
    const int hi = m < 0 ? 0 : c.max_gpus_per_node();  // CPU-only nodes: bucket 0
    for (int i = 0; i <= hi - lo; ++i) {
      const int k = descending ? hi - i : lo + i;
      if (c.Bucket(m, k).empty() || !enter_bucket(m, k)) continue;
      for (NodeIndex n : c.Bucket(m, k)) {
        const int64_t cpu = c.free_cpu(n), mem = c.free_mem(n);
        if (cpu < d.cpu_milli || mem < d.mem_bytes) continue;
        if (k == 0 && d.gpus > 0 && !c.CanHost(n, d, mask)) continue;  // a share that fits
        if (dedup_pristine && c.tasks_on(n) == 0 && seen.SeenOrAdd(m, k, cpu, mem)) continue;
        if (!visit(n)) return;
      }
    }
  }
}

}  // namespace utilsim
