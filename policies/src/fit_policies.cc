// first-fit, best-fit and worst-fit over the ClusterState indices.
#include <cstdint>

#include "utilsim/policies/placement_policy.h"

namespace utilsim {

std::optional<Placement> PlaceTasksWithGpus(const Job& job, ModelMask mask, ClusterState& c,
                                            const TaskChooser& choose) {
  if (job.tasks == 1) {  // nothing to reserve for: no later task to see it
    auto tp = choose(job.task, mask, c);
    if (!tp) return std::nullopt;
    return Placement{*tp};
  }
  Placement p;
  p.reserve(static_cast<size_t>(job.tasks));
  bool ok = true;
  for (int32_t t = 0; t < job.tasks; ++t) {
    auto tp = choose(job.task, mask, c);
    if (!tp || !c.Allocate(*tp, job.task).ok()) {
      ok = false;
      break;
    }
    p.push_back(*tp);
  }
  for (auto it = p.rbegin(); it != p.rend(); ++it) c.Release(*it, job.task);
  if (!ok) return std::nullopt;
  return p;
}

std::optional<Placement> PlaceTasks(const Job& job, ModelMask mask, ClusterState& c,
                                    const NodeChooser& choose) {
  return PlaceTasksWithGpus(
      job, mask, c,
      [&](const TaskDemand& d, ModelMask m, const ClusterState& s) -> std::optional<TaskPlacement> {
        const int64_t n = choose(d, m, s);
        if (n < 0) return std::nullopt;
        const NodeIndex node = static_cast<NodeIndex>(n);
        return TaskPlacement{node, s.PickGpus(node, d)};
      });
}

namespace {

// Scans every node; keeps the feasible node with the lowest `cost` (ties:
// lowest index). Used where no index applies (CPU-only and fractional tasks).
template <typename Cost>
int64_t ScanBest(const TaskDemand& d, ModelMask mask, const ClusterState& c, Cost cost) {
  int64_t best = -1;
  int64_t best_cost = INT64_MAX;
  for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
    if (!c.CanHost(n, d, mask)) continue;
    const int64_t k = cost(n);
    if (k < best_cost) {
      best = n;
      best_cost = k;
    }
  }
  return best;
}

// Smallest free share among the node's GPUs that fit d (share and GPU
// memory, ClusterState::GpuFits): the GPU PickGpus takes.
int64_t TightestShare(const ClusterState& c, NodeIndex n, const TaskDemand& d) {
  int64_t best = INT64_MAX;
  for (int g = 0; g < c.node(n).gpus; ++g) {
    const int32_t f = c.gpu_free_milli(n, g);
    if (f < best && c.GpuFits(n, g, d)) best = f;
  }
  return best;
}

// Largest free share among the node's GPUs that fit d.
int64_t LargestShare(const ClusterState& c, NodeIndex n, const TaskDemand& d) {
  int64_t best = 0;
  for (int g = 0; g < c.node(n).gpus; ++g) {
    const int32_t f = c.gpu_free_milli(n, g);
    if (f > best && c.GpuFits(n, g, d)) best = f;
  }
  return best;
}

// Whole-GPU tasks through the per-model buckets of whole-free GPU counts.
// tight=true walks buckets upward from d.gpus (best fit), else downward.
int64_t BucketSearch(const TaskDemand& d, ModelMask mask, const ClusterState& c, bool tight) {
  int64_t best = -1;
  const int max = c.max_gpus_per_node();
  auto consider_bucket = [&](int k) -> bool {  // true when found in this bucket
    for (int m = 0; m < c.num_models(); ++m) {
      if (mask != kAnyModel && !(mask >> m & 1)) continue;
      for (NodeIndex n : c.Bucket(m, k)) {
        if (best >= 0 && n >= best) break;  // bucket is ordered; cannot improve
        if (c.CanHost(n, d, mask)) {
          best = n;
          break;
        }
      }
    }
    return best >= 0;
  };
  if (tight) {
    for (int k = d.gpus; k <= max; ++k)
      if (consider_bucket(k)) return best;
  } else {
    for (int k = max; k >= d.gpus; --k)
      if (consider_bucket(k)) return best;
  }
  return -1;
}

class FitPolicy final : public PlacementPolicy {
 public:
  enum class Kind { kFirst, kBest, kWorst };
  explicit FitPolicy(Kind k) : kind_(k) {}

  PolicyId id() const override {
    switch (kind_) {
      case Kind::kFirst:
        return {"first-fit", "1"};
      case Kind::kBest:
        return {"best-fit", "1"};
      case Kind::kWorst:
        return {"worst-fit", "1"};
    }
    return {};
  }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    return PlaceTasks(job, mask, c,
                      [this](const TaskDemand& d, ModelMask m, const ClusterState& s) {
                        return Choose(d, m, s);
                      });
  }
  // Choose reads the task's demand, the mask and the cluster only.
  bool place_depends_on_shape_only() const override { return true; }

 private:
  int64_t Choose(const TaskDemand& d, ModelMask mask, const ClusterState& c) const {
    if (kind_ == Kind::kFirst) return c.FindFirst(0, d, mask);
    const bool best = kind_ == Kind::kBest;
    if (d.gpus == 0) {
      // CPU left as permille of the node's CPU (the cpu-*-leftover score).
      return ScanBest(d, mask, c, [&](NodeIndex n) {
        const int64_t left = 1000 * (c.free_cpu(n) - d.cpu_milli) / c.node(n).cpu_milli;
        return best ? left : -left;
      });
    }
    if (d.fractional()) {
      return ScanBest(d, mask, c, [&](NodeIndex n) {
        return best ? TightestShare(c, n, d) : -LargestShare(c, n, d);
      });
    }
    return BucketSearch(d, mask, c, best);
  }

  Kind kind_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeFirstFit() {
  return std::make_unique<FitPolicy>(FitPolicy::Kind::kFirst);
}
std::unique_ptr<PlacementPolicy> MakeBestFit() {
  return std::make_unique<FitPolicy>(FitPolicy::Kind::kBest);
}
std::unique_ptr<PlacementPolicy> MakeWorstFit() {
  return std::make_unique<FitPolicy>(FitPolicy::Kind::kWorst);
}

}  // namespace utilsim
