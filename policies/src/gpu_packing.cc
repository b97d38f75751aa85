// GPU packing, the FGD paper's (Weng et al., ATC'23) packing baseline: shared
// GPUs first, then idle GPUs on busy nodes, then idle nodes. Read from the
// authors' simulator (gpu_packing_score.go); the tiers are kept, the score
// inside a tier is exact (docs/packing.md).
#include <cstdint>
#include <vector>

#include "utilsim/engine/units.h"
#include "utilsim/policies/packing.h"

namespace utilsim {
namespace {

constexpr int64_t kTier = 1000000;  // > any in-tier key (milli-GPU, GPU count)

class GpuPacking final : public PlacementPolicy {
 public:
  PolicyId id() const override { return {"gpu-packing", "1"}; }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    return PlaceTasks(job, mask, c,
                      [this](const TaskDemand& d, ModelMask m, const ClusterState& s) {
                        return Choose(d, m, s);
                      });
  }

  // Lower is better. Precondition: c.CanHost(n, d, ...) and d.gpus > 0.
  static int64_t Cost(const TaskDemand& d, const ClusterState& c, NodeIndex n) {
    const NodeInfo& info = c.node(n);
    const bool idle = c.free_whole_gpus(n) == info.gpus;
    if (d.fractional()) {
      int32_t tightest = INT32_MAX;
      for (int g = 0; g < info.gpus; ++g) {
        const int32_t f = c.gpu_free_milli(n, g);
        if (f < tightest && c.GpuFits(n, g, d)) tightest = f;
      }
      if (tightest < kMilliPerUnit) return tightest;  // tier 1: an already shared GPU
      return idle ? 2 * kTier + info.gpus : kTier + 1;
    }
    return idle ? 2 * kTier + info.gpus : kTier + d.gpus;
  }

 private:
  int64_t Choose(const TaskDemand& d, ModelMask mask, const ClusterState& c) {
    if (d.gpus == 0) return c.FindFirst(0, d, mask);  // every node scores the same
    CollectCandidates(c, d, mask, /*dedup_pristine=*/true, &cand_);
    int64_t best = -1, best_cost = INT64_MAX;
    for (NodeIndex n : cand_) {
      const int64_t cost = Cost(d, c, n);
      if (cost < best_cost || (cost == best_cost && n < best)) {
        best = n;
        best_cost = cost;
      }
    }
    return best;
  }

  std::vector<NodeIndex> cand_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeGpuPacking() { return std::make_unique<GpuPacking>(); }

}  // namespace utilsim
