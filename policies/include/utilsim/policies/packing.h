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
#include <optional>
#include <vector>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/job.h"
#include "utilsim/policies/placement_policy.h"

namespace utilsim {

// E-PVM (Amir et al., TPDS 2000; Borg, EuroSys'15): node cost
// sum_{r in GPU, CPU, mem} B^{u_r}, u_r = used_r / capacity_r, B = `base`
// (> 1; registry `epvm:base=B`), by default max(2, number of nodes)
// (`base=nodes`). Chooses the node with the least marginal cost
// cost(after) - cost(before), computed per resource as B^{u}(B^{delta} - 1)
// with u (before placing) on a 1/10000 grid, rounded half up, delta =
// demand / capacity, fixed point 1e-6. CPU-only nodes have no GPU term.
// Exact search through FindFirst with raised CPU/memory/GPU floors (no
// node that could win is skipped). PolicyId {"epvm", "1", "base=nodes"}
// ("base=<B>" with a base).
std::unique_ptr<PlacementPolicy> MakeEpvm(std::optional<double> base = std::nullopt);

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
// The same into *out (its storage reused).
void DistinctShapes(const ClusterState& c, size_t limit, std::vector<NodeShape>* out);

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
  bool full() const { return size_ == 32; }

 private:
  struct Shape {
    int model, k;
    int64_t cpu, mem;
  };
  Shape s_[32];
  int size_ = 0;
};

// The buckets ForEachCandidate walks, in its order, each non-empty one
// passed to bucket(m, k, nodes), which may return false to stop the walk.
// The policies that score nodes in their own loops walk buckets with this and
// test nodes with CandidateFits, so their candidates are ForEachCandidate's.
template <typename Bucket>
void ForEachCandidateBucket(const ClusterState& c, const TaskDemand& d, ModelMask mask,
                            bool descending, Bucket&& bucket) {
  const bool whole = d.gpus > 0 && !d.fractional();
  // Fractional and CPU-only tasks visit every bucket; the segment tree tells
  // cheaply when nothing fits at all.
  if (!whole && c.FindFirst(0, d, mask) < 0) return;
  if (!c.PowerRoomAnywhere(d, mask)) return;  // a power budget that is spent
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
      const NodeSet& nodes = c.Bucket(m, k);
      if (nodes.empty()) continue;
      if (!bucket(m, k, nodes)) return;
    }
  }
}

// ForEachCandidate's test of node n of bucket k: n can host d (the model and
// GPU memory were checked per bucket; a node of bucket 0 can host a GPU task
// only through a share), the power budget included. With a power budget on,
// every walk below tests each node with this, one by one (the branch-free
// paths test CPU and memory only).
inline bool CandidateFits(const ClusterState& c, const TaskDemand& d, ModelMask mask, int k,
                          NodeIndex n) {
  if (c.free_cpu(n) < d.cpu_milli || c.free_mem(n) < d.mem_bytes) return false;
  if (!c.PowerFits(n, d)) return false;  // the power budget's room (true without one)
  return !(k == 0 && d.gpus > 0) || c.CanHost(n, d, mask);
}

// The members n of bucket k (`nodes`) with from <= n < to that pass
// CandidateFits, ascending, into out[0..]; returns their number. out needs
// room for to - from entries. Each NodeSet::Next waits on the previous
// one's result, so on long ranges a dense bucket (at least half of the
// indices from its first member on) is read index by index, and a sparse
// one by four chains interleaved over quarters of the range; the
// CPU/memory test is branch-free (the state makes it unpredictable).
// dense_ok = false: never index by index (for a window of a sparse bucket,
// whose members in the window are unknown).
size_t CollectFits(const ClusterState& c, const TaskDemand& d, ModelMask mask, int k,
                   const NodeSet& nodes, NodeIndex from, NodeIndex to, NodeIndex* out,
                   bool dense_ok = true);

}  // namespace packing_internal

namespace packing_internal {

// visit(n) for each candidate n of bucket (m, k) (`nodes`) in ascending
// order: CandidateFits, and with `seen` (dedup_pristine) not a node without
// tasks whose (m, k, free CPU, free memory) is already in *seen
// (PristineSeen::SeenOrAdd, in this order). visit may return false to stop
// (then false is returned). A bucket holding at least half of the indices
// from its first member on is read index by index, every test without a
// branch on its outcome (NodeSet::Next waits on the previous member; these
// tests do not wait on each other), in windows; in it a node without tasks
// in the state of one already in *seen is dropped in the same pass.
template <typename Visit>
bool ForEachBucketCandidate(const ClusterState& c, const TaskDemand& d, ModelMask mask, int m,
                            int k, const NodeSet& nodes, PristineSeen* seen, Visit&& visit) {
  const NodeIndex end = static_cast<NodeIndex>(c.num_nodes());
  NodeIndex n = nodes.Next(0);
  if (n >= end) return true;
  auto dedup = [&](NodeIndex v) {  // true: drop v as a pristine duplicate
    return seen && c.tasks_on(v) == 0 && seen->SeenOrAdd(m, k, c.free_cpu(v), c.free_mem(v));
  };
  if ((k == 0 && d.gpus > 0) || c.power_budget_on()) {  // shares, a power budget: one by one
    for (; n < end; n = nodes.Next(n + 1))
      if (CandidateFits(c, d, mask, k, n) && !dedup(n) && !visit(n)) return false;
    return true;
  }
  const int64_t cpu = d.cpu_milli, mem = d.mem_bytes;
  constexpr NodeIndex kWindow = 512;
  NodeIndex run[kWindow];
  if (nodes.size() < 64) {  // few members: the fitting ones first (no branch on the test)
    size_t len = 0;
    for (; n < end; n = nodes.Next(n + 1)) {
      run[len] = n;
      len += static_cast<size_t>((c.free_cpu(n) >= cpu) & (c.free_mem(n) >= mem));
    }
    for (size_t j = 0; j < len; ++j)
      if (!dedup(run[j]) && !visit(run[j])) return false;
    return true;
  }
  if (2 * nodes.size() < end - n) {  // sparse: interleaved chains, window by window
    while (n < end) {
      const NodeIndex to = end - n > kWindow ? n + kWindow : end;
      const size_t len = CollectFits(c, d, mask, k, nodes, n, to, run, /*dense_ok=*/false);
      for (size_t j = 0; j < len; ++j)
        if (!dedup(run[j]) && !visit(run[j])) return false;
      n = to < end ? nodes.Next(to) : end;
    }
    return true;
  }
  int64_t dup_cpu = -1, dup_mem = -1;  // a pristine state known to be in *seen (-1: none)
  while (n < end) {
    const NodeIndex to = end - n > kWindow ? n + kWindow : end;
    size_t len = 0;
    for (NodeIndex i = n; i < to; ++i) {
      const int64_t fc = c.free_cpu(i), fm = c.free_mem(i);
      run[len] = i;
      len += static_cast<size_t>((nodes.count(i) != 0) & (fc >= cpu) & (fm >= mem) &
                                 !((c.tasks_on(i) == 0) & (fc == dup_cpu) & (fm == dup_mem)));
    }
    for (size_t j = 0; j < len; ++j) {
      const NodeIndex v = run[j];
      if (seen && c.tasks_on(v) == 0) {
        const int64_t fc = c.free_cpu(v), fm = c.free_mem(v);
        if (fc == dup_cpu && fm == dup_mem) continue;
        const bool room = !seen->full();
        if (seen->SeenOrAdd(m, k, fc, fm)) {
          if (dup_cpu < 0) dup_cpu = fc, dup_mem = fm;
          continue;
        }
        if (room && dup_cpu < 0) dup_cpu = fc, dup_mem = fm;  // added: now in *seen
      }
      if (!visit(v)) return false;
    }
    n = to < end ? nodes.Next(to) : end;
  }
  return true;
}

}  // namespace packing_internal

template <typename EnterBucket, typename Visit>
void ForEachCandidate(const ClusterState& c, const TaskDemand& d, ModelMask mask,
                      bool dedup_pristine, bool descending, EnterBucket&& enter_bucket,
                      Visit&& visit) {
  packing_internal::PristineSeen seen;
  packing_internal::ForEachCandidateBucket(
      c, d, mask, descending, [&](int m, int k, const NodeSet& nodes) {
        if (!enter_bucket(m, k)) return true;
        return packing_internal::ForEachBucketCandidate(
            c, d, mask, m, k, nodes, dedup_pristine ? &seen : nullptr,
            [&](NodeIndex v) { return static_cast<bool>(visit(v)); });
      });
}

}  // namespace utilsim
