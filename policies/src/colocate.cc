#include "utilsim/policies/colocate.h"

#include <algorithm>
#include <bit>
#include <vector>

#include "utilsim/engine/sharing_progress.h"
#include "utilsim/policies/params.h"

namespace utilsim {
namespace {

class Colocate final : public PlacementPolicy {
 public:
  explicit Colocate(double threshold) : threshold_(threshold), best_fit_(MakeBestFit()) {}
  PolicyId id() const override {
    return {"colocate", "1", "threshold=" + FormatParamNumber(threshold_)};
  }
  void Init(const Workload& w) override { best_fit_->Init(w); }

  bool uses_running_jobs() const override { return true; }
  void BeginPass(PassContext& ctx) override {
    Shape(ctx.cluster());
    std::fill(load_.begin(), load_.end(), 0.0);
    const Workload& w = ctx.workload();
    for (JobIndex j : ctx.running()) {
      const Job& job = w.jobs[j];
      if (job.task.fractional()) Add(job, ctx.placement_of(j));
    }
  }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    if (!job.task.fractional() || job.tasks != 1) return best_fit_->Place(job, mask, c);
    Shape(c);
    const TaskDemand& d = job.task;
    const double own = SoloGpuUtil(job);
    // Best candidate so far: shared (tier 0) before whole-free (tier 1).
    int tier = 2;
    double best_load = 0;
    int32_t best_free = 0, best_whole = 0;
    NodeIndex best_node = 0;
    int best_gpu = -1;
    for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
      if (!c.CanHost(n, d, mask)) continue;
      const NodeInfo& info = c.node(n);
      for (int g = 0; g < info.gpus; ++g) {
        if (!c.GpuFits(n, g, d)) continue;  // share and GPU memory
        const int32_t free = c.gpu_free_milli(n, g);
        const size_t slot = offset_[n] + static_cast<size_t>(g);
        const bool shared = free < 1000;
        if (shared && load_[slot] + own > threshold_ + 1e-12) continue;
        bool better;
        if (shared) {
          better =
              tier > 0 || load_[slot] > best_load || (load_[slot] == best_load && free < best_free);
        } else {
          better = tier > 1 || (tier == 1 && c.free_whole_gpus(n) < best_whole);
        }
        if (!better) continue;
        tier = shared ? 0 : 1;
        best_load = load_[slot];
        best_free = free;
        best_whole = c.free_whole_gpus(n);
        best_node = n;
        best_gpu = g;
      }
    }
    if (best_gpu < 0) return std::nullopt;
    Placement p{{best_node, uint64_t{1} << best_gpu}};
    Add(job, p);  // the composed scheduler starts it now
    return p;
  }

 private:
  void Shape(const ClusterState& c) {
    if (offset_.size() == c.num_nodes() + 1) return;
    offset_.assign(c.num_nodes() + 1, 0);
    for (NodeIndex n = 0; n < c.num_nodes(); ++n)
      offset_[n + 1] = offset_[n] + static_cast<size_t>(c.node(n).gpus);
    load_.assign(offset_.back(), 0.0);
  }
  void Add(const Job& job, const Placement& p) {
    const double u = SoloGpuUtil(job);
    for (const TaskPlacement& t : p)
      for (uint64_t m = t.gpu_mask; m != 0; m &= m - 1)  // each set bit: a GPU
        load_[offset_[t.node] + static_cast<size_t>(std::countr_zero(m))] += u;
  }

  double threshold_;
  std::unique_ptr<PlacementPolicy> best_fit_;
  std::vector<size_t> offset_;  // first GPU slot of each node
  std::vector<double> load_;    // per GPU: summed solo utilization of its fractional jobs
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeColocate(double threshold) {
  return std::make_unique<Colocate>(threshold);
}

}  // namespace utilsim
