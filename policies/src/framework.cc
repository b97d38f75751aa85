#include "utilsim/policies/framework.h"

#include <algorithm>

namespace utilsim {
namespace {

class ResourcesFit final : public FilterPlugin {
 public:
  std::string name() const override { return "resources-fit"; }
  bool Pass(NodeIndex n, const TaskDemand& d, ModelMask, const ClusterState& c) const override {
    // Model checks belong to gpu-model; pass kAnyModel here.
    return c.CanHost(n, d, kAnyModel);
  }
};

class GpuModel final : public FilterPlugin {
 public:
  std::string name() const override { return "gpu-model"; }
  bool Pass(NodeIndex n, const TaskDemand& d, ModelMask mask,
            const ClusterState& c) const override {
    if (mask == kAnyModel) return true;
    if (d.gpus == 0) return c.ModelAllowed(n, mask);
    return c.ModelAllowed(n, mask);
  }
};

int64_t WholeLeft(NodeIndex n, const TaskDemand& d, const ClusterState& c) {
  return c.free_whole_gpus(n) - (d.fractional() ? 0 : d.gpus);
}

class GpuLeastLeftover final : public ScorePlugin {
 public:
  std::string name() const override { return "gpu-least-leftover"; }
  int64_t Score(NodeIndex n, const TaskDemand& d, const ClusterState& c) const override {
    return c.max_gpus_per_node() - WholeLeft(n, d, c);
  }
};

class GpuMostLeftover final : public ScorePlugin {
 public:
  std::string name() const override { return "gpu-most-leftover"; }
  int64_t Score(NodeIndex n, const TaskDemand& d, const ClusterState& c) const override {
    return WholeLeft(n, d, c);
  }
};

class CpuLeftover final : public ScorePlugin {
 public:
  explicit CpuLeftover(bool least) : least_(least) {}
  std::string name() const override { return least_ ? "cpu-least-leftover" : "cpu-most-leftover"; }
  int64_t Score(NodeIndex n, const TaskDemand& d, const ClusterState& c) const override {
    const int64_t left = 1000 * (c.free_cpu(n) - d.cpu_milli) / c.node(n).cpu_milli;
    return least_ ? 1000 - left : left;
  }

 private:
  bool least_;
};

class ShareTightest final : public ScorePlugin {
 public:
  std::string name() const override { return "share-tightest"; }
  int64_t Score(NodeIndex n, const TaskDemand& d, const ClusterState& c) const override {
    int64_t best = 1000;
    for (int g = 0; g < c.node(n).gpus; ++g) {
      const int32_t f = c.gpu_free_milli(n, g);
      if (f < best && c.GpuFits(n, g, d)) best = f;
    }
    return 1000 - best;
  }
};

}  // namespace

std::unique_ptr<FilterPlugin> MakeFilterPlugin(const std::string& name) {
  if (name == "resources-fit") return std::make_unique<ResourcesFit>();
  if (name == "gpu-model") return std::make_unique<GpuModel>();
  return nullptr;
}

std::unique_ptr<ScorePlugin> MakeScorePlugin(const std::string& name) {
  if (name == "gpu-least-leftover") return std::make_unique<GpuLeastLeftover>();
  if (name == "gpu-most-leftover") return std::make_unique<GpuMostLeftover>();
  if (name == "cpu-least-leftover") return std::make_unique<CpuLeftover>(true);
  if (name == "cpu-most-leftover") return std::make_unique<CpuLeftover>(false);
  if (name == "share-tightest") return std::make_unique<ShareTightest>();
  if (name == "gang-locality") return MakeGangLocality();
  return nullptr;
}

std::vector<std::string> FilterPluginNames() { return {"resources-fit", "gpu-model"}; }
std::vector<std::string> ScorePluginNames() {
  return {"gpu-least-leftover", "gpu-most-leftover", "cpu-least-leftover",
          "cpu-most-leftover",  "share-tightest",    "gang-locality"};
}

FrameworkPlacement::FrameworkPlacement(std::string name, std::string version,
                                       std::vector<std::unique_ptr<FilterPlugin>> filters,
                                       std::vector<WeightedScore> scores)
    : name_(std::move(name)),
      version_(std::move(version)),
      filters_(std::move(filters)),
      scores_(std::move(scores)) {
  for (const auto& s : scores_) gang_aware_ = gang_aware_ || s.plugin->gang_aware();
  // resources-fit and gpu-model together pass exactly the nodes that
  // ClusterState::CanHost(n, d, mask) accepts, which FindFirst finds in
  // index order through the cluster's index.
  bool fit = false, model = false;
  for (const auto& f : filters_) {
    fit = fit || f->name() == "resources-fit";
    model = model || f->name() == "gpu-model";
  }
  indexed_ = fit && model && filters_.size() == 2;
}

int64_t FrameworkPlacement::Choose(const TaskDemand& d, ModelMask mask,
                                   const ClusterState& c) const {
  int64_t best = -1;
  int64_t best_score = INT64_MIN;
  auto consider = [&](NodeIndex n) {  // n passed the filters
    int64_t score = 0;
    for (const auto& s : scores_) score += s.weight * s.plugin->Score(n, d, c);
    if (score > best_score) {
      best = n;
      best_score = score;
    }
  };
  if (indexed_) {
    // The same nodes in the same order as the scan below, without visiting
    // those that cannot host the task.
    for (int64_t n = c.FindFirst(0, d, mask); n >= 0;
         n = n + 1 < static_cast<int64_t>(c.num_nodes())
                 ? c.FindFirst(static_cast<NodeIndex>(n + 1), d, mask)
                 : -1)
      consider(static_cast<NodeIndex>(n));
    return best;
  }
  for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
    bool ok = true;
    for (const auto& f : filters_)
      if (!f->Pass(n, d, mask, c)) {
        ok = false;
        break;
      }
    if (ok) consider(n);
  }
  return best;
}

std::optional<Placement> FrameworkPlacement::Place(const Job& job, ModelMask mask,
                                                   ClusterState& c) {
  if (gang_aware_) {
    // PlaceTasks' reserve loop, with each plugin told what is placed so far.
    Placement p;
    bool ok = true;
    for (int32_t t = 0; t < job.tasks && ok; ++t) {
      for (auto& s : scores_) s.plugin->Prepare(p, job.tasks - 1 - t, job.task, c);
      const int64_t n = Choose(job.task, mask, c);
      TaskPlacement tp{static_cast<NodeIndex>(std::max<int64_t>(n, 0)), 0};
      if (n >= 0) tp.gpu_mask = c.PickGpus(tp.node, job.task);
      ok = n >= 0 && c.Allocate(tp, job.task).ok();
      if (ok) p.push_back(tp);
    }
    for (auto it = p.rbegin(); it != p.rend(); ++it) c.Release(*it, job.task);
    if (!ok) return std::nullopt;
    return p;
  }
  return PlaceTasks(job, mask, c, [this](const TaskDemand& d, ModelMask m, const ClusterState& s) {
    return Choose(d, m, s);
  });
}

}  // namespace utilsim
