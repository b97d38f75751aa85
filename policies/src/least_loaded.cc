#include "utilsim/policies/least_loaded.h"

#include <bit>
#include <cmath>
#include <vector>

#include "utilsim/engine/sharing_progress.h"

namespace utilsim {
namespace {

class LeastLoaded final : public PlacementPolicy {
 public:
  LeastLoaded() : best_fit_(MakeBestFit()) {}
  PolicyId id() const override { return {"least-loaded", "1", ""}; }
  bool uses_running_jobs() const override { return true; }

  void BeginPass(PassContext& ctx) override {
    Shape(ctx.cluster());
    std::fill(load_.begin(), load_.end(), 0);
    const Workload& w = ctx.workload();
    for (JobIndex j : ctx.running()) Add(w.jobs[j], ctx.placement_of(j));
  }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    if (job.task.gpus == 0) return best_fit_->Place(job, mask, c);
    Shape(c);
    std::optional<Placement> p;
    if (job.task.fractional() && job.tasks == 1) {
      p = PlaceShare(job.task, mask, c);
    } else {
      p = PlaceTasks(job, mask, c, [this](const TaskDemand& d, ModelMask m, const ClusterState& s) {
        return ChooseNode(d, m, s);
      });
    }
    if (p) Add(job, *p);  // a pass starts what its placement returns
    return p;
  }

 private:
  // Fixed point: 1e-6 of a GPU's solo utilization.
  static int64_t Fixed(double u) { return std::llround(u * 1e6); }

  void Shape(const ClusterState& c) {
    if (offset_.size() == c.num_nodes() + 1) return;
    offset_.assign(c.num_nodes() + 1, 0);
    for (NodeIndex n = 0; n < c.num_nodes(); ++n)
      offset_[n + 1] = offset_[n] + static_cast<size_t>(c.node(n).gpus);
    load_.assign(offset_.back(), 0);
  }
  void Add(const Job& job, const Placement& p) {
    const int64_t u = Fixed(SoloGpuUtil(job));
    for (const TaskPlacement& t : p)
      for (uint64_t m = t.gpu_mask; m != 0; m &= m - 1)  // each set bit: a GPU
        load_[offset_[t.node] + static_cast<size_t>(std::countr_zero(m))] += u;
  }
  // Mean load of node n's GPUs, fixed point, compared as sum x (max GPUs /
  // gpus) so nodes of different sizes compare exactly.
  int64_t NodeLoad(NodeIndex n, const ClusterState& c) const {
    int64_t sum = 0;
    for (size_t i = offset_[n]; i < offset_[n + 1]; ++i) sum += load_[i];
    const int gpus = c.node(n).gpus;
    return gpus > 0 ? sum * c.max_gpus_per_node() / gpus : 0;
  }

  int64_t ChooseNode(const TaskDemand& d, ModelMask mask, const ClusterState& c) const {
    int64_t best = -1, best_load = 0;
    int32_t best_whole = 0;
    for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
      if (!c.CanHost(n, d, mask)) continue;
      const int64_t l = NodeLoad(n, c);
      const int32_t whole = c.free_whole_gpus(n);
      if (best < 0 || l < best_load || (l == best_load && whole < best_whole)) {
        best = static_cast<int64_t>(n);
        best_load = l;
        best_whole = whole;
      }
    }
    return best;
  }

  std::optional<Placement> PlaceShare(const TaskDemand& d, ModelMask mask,
                                      const ClusterState& c) const {
    int64_t best_load = 0;
    int32_t best_free = 0;
    NodeIndex best_node = 0;
    int best_gpu = -1;
    for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
      if (!c.CanHost(n, d, mask)) continue;
      for (int g = 0; g < c.node(n).gpus; ++g) {
        if (!c.GpuFits(n, g, d)) continue;
        const int64_t l = load_[offset_[n] + static_cast<size_t>(g)];
        const int32_t free = c.gpu_free_milli(n, g);
        if (best_gpu < 0 || l < best_load || (l == best_load && free < best_free)) {
          best_load = l;
          best_free = free;
          best_node = n;
          best_gpu = g;
        }
      }
    }
    if (best_gpu < 0) return std::nullopt;
    return Placement{TaskPlacement{best_node, uint64_t{1} << best_gpu}};
  }

  std::unique_ptr<PlacementPolicy> best_fit_;
  std::vector<size_t> offset_;  // first GPU slot of each node
  std::vector<int64_t> load_;   // per GPU, fixed point
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeLeastLoaded() { return std::make_unique<LeastLoaded>(); }

}  // namespace utilsim
