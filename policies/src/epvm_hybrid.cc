// Borg's hybrid scoring, as defined here (the formula is unpublished): best
// fit plus a penalty on resources stranded by an imbalanced node. Formula in
// packing.h and docs/packing.md.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "utilsim/engine/units.h"
#include "utilsim/policies/packing.h"

namespace utilsim {
namespace {

int64_t FreeGpuMilli(const ClusterState& c, NodeIndex n) {
  int64_t free = 0;
  for (int g = 0; g < c.node(n).gpus; ++g) free += c.gpu_free_milli(n, g);
  return free;
}

// scale / capacity per resource of the last node shape seen (nodes of one
// group share it, so this saves the divisions on nearly every node).
struct Inverse {
  double scale = 1;
  int64_t cpu_cap = -1, mem_cap = -1;
  int32_t gpus = -1;
  double cpu = 0, mem = 0, gpu = 0;
  void For(const NodeInfo& info) {
    if (info.cpu_milli == cpu_cap && info.mem_bytes == mem_cap && info.gpus == gpus) return;
    cpu_cap = info.cpu_milli;
    mem_cap = info.mem_bytes;
    gpus = info.gpus;
    cpu = scale / static_cast<double>(cpu_cap);
    mem = scale / static_cast<double>(mem_cap);
    gpu = gpus > 0 ? scale / (kMilliPerUnit * gpus) : 0;
  }
};

class StrandingHybrid final : public PlacementPolicy {
 public:
  PolicyId id() const override { return {"stranding-hybrid", "1"}; }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    return PlaceTasks(job, mask, c,
                      [this](const TaskDemand& d, ModelMask m, const ClusterState& s) {
                        return Choose(d, m, s);
                      });
  }

 private:
  // x x inv (= x / capacity in millionths), floored; x >= 0.
  static int64_t Frac(int64_t x, double inv) {
    return static_cast<int64_t>(static_cast<double>(x) * inv);
  }

  int64_t Cost(const TaskDemand& d, const ClusterState& c, NodeIndex n, bool no_partial) {
    const NodeInfo& info = c.node(n);
    inv_.For(info);
    const int64_t f_cpu = Frac(c.free_cpu(n) - d.cpu_milli, inv_.cpu);
    const int64_t f_mem = Frac(c.free_mem(n) - d.mem_bytes, inv_.mem);
    if (info.gpus == 0) {  // CPU-only node: CPU is the primary resource
      const int64_t lo = std::min(f_cpu, f_mem);
      return f_cpu + (f_cpu - lo) + (f_mem - lo);
    }
    const int64_t free_gpu =
        no_partial ? int64_t{kMilliPerUnit} * c.free_whole_gpus(n) : FreeGpuMilli(c, n);
    const int64_t f_gpu = Frac(free_gpu - d.total_gpu_milli(), inv_.gpu);
    const int64_t lo = std::min({f_gpu, f_cpu, f_mem});
    const int64_t primary = d.gpus > 0 ? f_gpu : f_cpu;
    return primary + (f_gpu - lo) + (f_cpu - lo) + (f_mem - lo);
  }

  // Every candidate of ForEachCandidate, least cost wins, ties to the
  // lowest index. For GPU tasks without partly used GPUs, the primary term
  // of a node in bucket k is Frac(1000 k - demand, inv_gpu) (1000 k - demand
  // >= 0), at least its value for the most GPUs any node has (inv_gpu only
  // shrinks with more GPUs), and the cost is at least the primary term (the
  // stranding sum is >= 0); buckets come in ascending k, so the walk of a
  // model stops at the first bucket whose bound exceeds the best cost.
  int64_t Choose(const TaskDemand& d, ModelMask mask, const ClusterState& c) {
    inv_.scale = 1e6;
    const bool no_partial =
        c.allocated_gpu_milli() == kMilliPerUnit * (c.total_gpus() - c.whole_free_gpus_total());
    const bool bounded = no_partial && d.gpus > 0 && c.max_gpus_per_node() > 0;
    const double inv_most = bounded ? inv_.scale / (kMilliPerUnit * c.max_gpus_per_node()) : 0;
    int64_t best = -1, best_cost = INT64_MAX;
    int stop_model = INT32_MIN;  // buckets of this model past the bound are skipped
    packing_internal::ForEachCandidateBucket(
        c, d, mask, /*descending=*/false, [&](int m, int k, const NodeSet& nodes) {
          if (m == stop_model) return true;
          const int64_t left = int64_t{kMilliPerUnit} * k - d.total_gpu_milli();
          if (bounded && best >= 0 && left >= 0 && Frac(left, inv_most) > best_cost) {
            stop_model = m;
            return true;
          }
          if (no_partial && k > 0) {
            // Cost(), operation for operation, with the inverses and the GPU
            // term hoisted for the bucket's first node shape; nodes of
            // another shape go through Cost().
            inv_.For(c.node(nodes.Next(0)));
            const int32_t gpus = inv_.gpus;
            const int64_t cpu_cap = inv_.cpu_cap, mem_cap = inv_.mem_cap;
            const int64_t f_gpu = Frac(left, inv_.gpu);
            const int64_t dc = d.cpu_milli, dm = d.mem_bytes;
            const double ic = inv_.cpu, im = inv_.mem;
            const NodeIndex end = static_cast<NodeIndex>(c.num_nodes());
            if (fits_.size() < end) fits_.resize(end);
            const size_t len =
                packing_internal::CollectFits(c, d, mask, k, nodes, 0, end, fits_.data());
            for (size_t i = 0; i < len; ++i) {
              const NodeIndex n = fits_[i];
              const NodeInfo& info = c.node(n);
              if (info.gpus != gpus || info.cpu_milli != cpu_cap || info.mem_bytes != mem_cap) {
                const int64_t cost = Cost(d, c, n, no_partial);
                if (cost < best_cost || (cost == best_cost && n < best)) {
                  best = n;
                  best_cost = cost;
                }
                continue;
              }
              const int64_t f_cpu = Frac(c.free_cpu(n) - dc, ic);
              const int64_t f_mem = Frac(c.free_mem(n) - dm, im);
              const int64_t lo = std::min({f_gpu, f_cpu, f_mem});
              const int64_t primary = d.gpus > 0 ? f_gpu : f_cpu;
              const int64_t cost = primary + (f_gpu - lo) + (f_cpu - lo) + (f_mem - lo);
              if ((cost < best_cost) | ((cost == best_cost) & (n < best))) {
                best = n;
                best_cost = cost;
              }
            }
            return true;
          }
          for (NodeIndex n : nodes) {
            if (!packing_internal::CandidateFits(c, d, mask, k, n)) continue;
            const int64_t cost = Cost(d, c, n, no_partial);
            if (cost < best_cost || (cost == best_cost && n < best)) {
              best = n;
              best_cost = cost;
            }
          }
          return true;
        });
    return best;
  }

  Inverse inv_;
  std::vector<NodeIndex> fits_;  // CollectFits' room
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeStrandingHybrid() {
  return std::make_unique<StrandingHybrid>();
}

}  // namespace utilsim
