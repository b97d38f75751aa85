// The FGD simulator's six score plugins (fgd_sim.h).
#include "utilsim/policies/fgd_sim.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "utilsim/engine/rng.h"
#include "utilsim/engine/units.h"

namespace utilsim {
namespace {

constexpr double kMaxSpecCpu = 128000;  // pkg/type/open-gpu-share/utils/const.go
constexpr double kMaxSpecGpu = 8000;
constexpr int64_t kMaxSpecGpuInt = 8000;

// The node's free GPU share, summed.
int64_t FreeGpuMilli(const ClusterState& c, NodeIndex n) {
  int64_t s = 0;
  for (int i = 0; i < c.node(n).gpus; ++i) s += c.gpu_free_milli(n, i);
  return s;
}

// The lowest-indexed whole-free GPUs for d (AllocateExclusiveGpuId), none
// for a CPU-only task.
uint64_t LowestWholeGpus(const ClusterState& c, NodeIndex n, const TaskDemand& d) {
  uint64_t mask = 0;
  int need = d.gpus;
  for (int i = 0; i < c.node(n).gpus && need > 0; ++i)
    if (c.gpu_free_milli(n, i) == kMilliPerUnit && c.GpuFits(n, i, d)) {
      mask |= uint64_t{1} << i;
      --need;
    }
  return mask;
}

// allocateGpuIdBasedOnBestFit: a fractional task's fitting GPU with the least
// free share (the first among equals); whole GPUs as above.
uint64_t BestFitGpus(const ClusterState& c, NodeIndex n, const TaskDemand& d) {
  if (!d.fractional()) return LowestWholeGpus(c, n, d);
  int best = -1;
  for (int i = 0; i < c.node(n).gpus; ++i)
    if (c.GpuFits(n, i, d) && (best < 0 || c.gpu_free_milli(n, i) < c.gpu_free_milli(n, best)))
      best = i;
  return best < 0 ? 0 : uint64_t{1} << best;
}

// A GPU-demand kind for clustering: 0 = share, k = k whole GPUs, -1 = none.
int KindOf(const TaskDemand& d) {
  if (d.gpus == 0) return -1;
  return d.fractional() ? 0 : d.gpus;
}

class FgdSim final : public PlacementPolicy {
 public:
  explicit FgdSim(FgdSimOptions opt)
      : opt_(std::move(opt)), rng_(opt_.seed, 0, "placement/fgdsim-random") {}

  PolicyId id() const override {
    return {std::string("fgdsim-") + FgdSimScoreName(opt_.score), "1"};
  }

  void Init(const Workload& w) override {
    if (opt_.score != FgdSimScore::kFgd) return;
    dist_ = FgdSimTypicalClasses(w, opt_.popularity_pct);
    meter_.reset();
    memo_.clear();
  }

  bool uses_running_jobs() const override { return opt_.score == FgdSimScore::kGpuClustering; }

  void BeginPass(PassContext& ctx) override {
    if (opt_.score != FgdSimScore::kGpuClustering) return;
    kinds_.assign(ctx.cluster().num_nodes(), {});
    const Workload& w = ctx.workload();
    for (JobIndex j : ctx.running()) {
      const int kind = KindOf(w.jobs[j].task);
      if (kind < 0) continue;
      for (const TaskPlacement& t : ctx.placement_of(j)) ++kinds_[t.node][kind];
    }
  }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    if (kinds_.size() != c.num_nodes()) kinds_.assign(c.num_nodes(), {});
    auto p = PlaceTasksWithGpus(job, mask, c,
                                [this](const TaskDemand& d, ModelMask m, const ClusterState& s) {
                                  return Choose(d, m, s);
                                });
    if (!p) return std::nullopt;
    // The clustering ledger assumes the placement is started (as the
    // composed scheduler and the FGD experiment do); a simulation rebuilds it
    // from the running jobs at every pass.
    const int kind = KindOf(job.task);
    if (opt_.score == FgdSimScore::kGpuClustering && kind >= 0)
      for (const TaskPlacement& t : *p) ++kinds_[t.node][kind];
    return p;
  }

 private:
  uint32_t Rank(NodeIndex n) const {
    return opt_.tie_rank.size() == rank_nodes_ ? opt_.tie_rank[n] : static_cast<uint32_t>(n);
  }

  std::optional<TaskPlacement> Choose(const TaskDemand& d, ModelMask mask, const ClusterState& c) {
    rank_nodes_ = c.num_nodes();
    if (opt_.score == FgdSimScore::kRandom) return ChooseRandom(d, mask, c);
    if (opt_.score == FgdSimScore::kFgd) EnsureMeter(c);
    int64_t best = -1, best_score = 0;
    uint64_t best_gpus = 0;
    for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
      if (!c.CanHost(n, d, mask)) continue;
      uint64_t gpus = 0;
      const int64_t s = Score(d, c, n, &gpus);
      if (best < 0 || s > best_score || (s == best_score && Rank(n) < Rank(best))) {
        best = n;
        best_score = s;
        best_gpus = gpus;
      }
    }
    if (best < 0) return std::nullopt;
    const NodeIndex n = static_cast<NodeIndex>(best);
    if (opt_.score != FgdSimScore::kFgd || !d.fractional()) best_gpus = BestFitGpus(c, n, d);
    return TaskPlacement{n, best_gpus};
  }

  std::optional<TaskPlacement> ChooseRandom(const TaskDemand& d, ModelMask mask,
                                            const ClusterState& c) {
    cand_.clear();
    for (NodeIndex n = 0; n < c.num_nodes(); ++n)
      if (c.CanHost(n, d, mask)) cand_.push_back(n);
    if (cand_.empty()) return std::nullopt;
    const NodeIndex n =
        cand_[static_cast<size_t>(rng_.UniformInt(0, static_cast<int64_t>(cand_.size()) - 1))];
    if (!d.fractional()) return TaskPlacement{n, LowestWholeGpus(c, n, d)};
    // allocateGpuIdBasedOnRandomFit: reservoir sampling over the fitting GPUs.
    int chosen = -1, count = 0;
    for (int i = 0; i < c.node(n).gpus; ++i)
      if (c.GpuFits(n, i, d) && rng_.UniformInt(0, count++) == 0) chosen = i;
    return TaskPlacement{n, chosen < 0 ? 0 : uint64_t{1} << chosen};
  }

  int64_t Score(const TaskDemand& d, const ClusterState& c, NodeIndex n, uint64_t* gpus) {
    switch (opt_.score) {
      case FgdSimScore::kDotProd: {
        const double dot = (static_cast<double>(c.free_cpu(n)) / kMaxSpecCpu) *
                               (static_cast<double>(d.cpu_milli) / kMaxSpecCpu) +
                           (static_cast<double>(FreeGpuMilli(c, n)) / kMaxSpecGpu) *
                               (static_cast<double>(d.total_gpu_milli()) / kMaxSpecGpu);
        return static_cast<int64_t>(100.0 * (1.0 - dot / 2.0));
      }
      case FgdSimScore::kBestFit: {
        const double s =
            (static_cast<double>(c.free_cpu(n) - d.cpu_milli) / kMaxSpecCpu) * 0.5 +
            (static_cast<double>(FreeGpuMilli(c, n) - d.total_gpu_milli()) / kMaxSpecGpu) * 0.5;
        return static_cast<int64_t>((1.0 - s) * 100.0);
      }
      case FgdSimScore::kGpuPacking:
        return PackingScore(d, c, n);
      case FgdSimScore::kGpuClustering: {
        const int kind = KindOf(d);
        if (kind < 0) return 0;
        const int64_t base = 25 * (kMaxSpecGpuInt - FreeGpuMilli(c, n)) / kMaxSpecGpuInt;
        const std::map<int, int>& on = kinds_[n];
        const auto it = on.find(kind);
        if (it != on.end() && it->second > 0) return base + (on.size() == 1 ? 75 : 50);
        return base + (on.empty() ? 25 : 0);
      }
      case FgdSimScore::kFgd:
        return FgdScore(d, c, n, gpus);
      case FgdSimScore::kRandom:
        break;
    }
    return 0;
  }

  // gpu_packing_score.go getPackingScore.
  static int64_t PackingScore(const TaskDemand& d, const ClusterState& c, NodeIndex n) {
    if (d.gpus == 0) return 0;
    const int g = c.node(n).gpus;
    int whole = 0;
    int32_t free[64] = {};
    int order[64];
    for (int i = 0; i < g; ++i) {
      free[i] = c.gpu_free_milli(n, i);
      if (free[i] == kMilliPerUnit) ++whole;
      order[i] = i;
    }
    if (whole == g) return std::max<int64_t>(33 - whole, whole);
    std::stable_sort(order, order + g, [&](int a, int b) { return free[a] < free[b]; });
    int need = d.gpus, whole_used = 0;
    int64_t ratio_sum = 0;
    for (int k = 0; k < g && need > 0; ++k) {
      const int i = order[k];
      if (d.gpu_milli > free[i]) continue;
      --need;
      if (free[i] == kMilliPerUnit) ++whole_used;
      ratio_sum += int64_t{free[i]} * 100 / kMilliPerUnit;
    }
    if (need != 0) return 0;
    if (whole_used > 0) return std::max<int64_t>(50 - whole_used, 33);
    return std::max<int64_t>(100 - ratio_sum / 10, 50);
  }

  // fgd_score.go calculateGpuShareFragExtendScore.
  int64_t FgdScore(const TaskDemand& d, const ClusterState& c, NodeIndex n, uint64_t* gpus) {
    const NodeInfo& info = c.node(n);
    const int g = info.gpus;
    int32_t free[64] = {};
    for (int i = 0; i < g; ++i) free[i] = c.gpu_free_milli(n, i);
    const int64_t cpu = c.free_cpu(n);
    const double before = Frag(info, free, g, cpu);
    auto score = [&](double after) {
      const double x = (before - after) / 1000.0;
      return static_cast<int64_t>(1.0 / (1.0 + std::exp(-x)) * 100.0);
    };
    if (d.fractional()) {
      int64_t best = 0;
      int best_gpu = -1;
      for (int i = 0; i < g; ++i) {
        if (!c.GpuFits(n, i, d)) continue;  // the share, and GPU memory where known
        free[i] -= d.gpu_milli;
        const int64_t s = score(Frag(info, free, g, cpu - d.cpu_milli));
        free[i] += d.gpu_milli;
        if (best_gpu < 0 || s > best) {
          best = s;
          best_gpu = i;
        }
      }
      *gpus = best_gpu < 0 ? 0 : uint64_t{1} << best_gpu;
      return best;
    }
    // NodeResource.Sub: the least free GPUs that fit first, i.e. for whole
    // GPUs any whole-free ones (F depends on the multiset of free shares).
    for (int i = 0, left = d.gpus; i < g && left > 0; ++i)
      if (free[i] == kMilliPerUnit) {
        free[i] = 0;
        --left;
      }
    return score(Frag(info, free, g, cpu - d.cpu_milli));
  }

  void EnsureMeter(const ClusterState& c) {
    if (meter_ && meter_models_ == c.spec().models.size()) return;
    meter_.emplace(dist_, c);
    meter_models_ = c.spec().models.size();
    memo_.clear();
  }

  // F_n in milli-GPU of a node of info's shape with these free shares and
  // free CPU, memoised by (model, CPU, sorted shares): identical nodes are
  // scored once.
  double Frag(const NodeInfo& info, const int32_t* free, int g, int64_t cpu) {
    if (meter_->total_weight() == 0) return 0;
    int32_t sorted[64];
    std::copy(free, free + g, sorted);
    std::sort(sorted, sorted + g);
    key_.assign(reinterpret_cast<const char*>(&info.model), sizeof info.model);
    key_.append(reinterpret_cast<const char*>(&cpu), sizeof cpu);
    key_.append(reinterpret_cast<const char*>(sorted), sizeof(int32_t) * static_cast<size_t>(g));
    if (auto it = memo_.find(key_); it != memo_.end()) return it->second;
    if (memo_.size() > kMemoMax) memo_.clear();
    const double f = static_cast<double>(meter_->ScaledAt(
                         info, std::span<const int32_t>(sorted, static_cast<size_t>(g)), cpu,
                         /*free_mem=*/0)) /
                     static_cast<double>(meter_->total_weight());
    memo_.emplace(key_, f);
    return f;
  }

  static constexpr size_t kMemoMax = 1 << 20;

  FgdSimOptions opt_;
  Rng rng_;
  size_t rank_nodes_ = 0;
  std::vector<NodeIndex> cand_;
  std::vector<std::map<int, int>> kinds_;  // per node: GPU-demand kind -> tasks
  TaskClassDist dist_;
  std::optional<FragmentationMeter> meter_;
  size_t meter_models_ = 0;
  std::unordered_map<std::string, double> memo_;
  std::string key_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeFgdSim(FgdSimOptions opt) {
  return std::make_unique<FgdSim>(std::move(opt));
}

const char* FgdSimScoreName(FgdSimScore s) {
  switch (s) {
    case FgdSimScore::kRandom:
      return "random";
    case FgdSimScore::kDotProd:
      return "dotprod";
    case FgdSimScore::kGpuClustering:
      return "gpu-clustering";
    case FgdSimScore::kGpuPacking:
      return "gpu-packing";
    case FgdSimScore::kBestFit:
      return "best-fit";
    case FgdSimScore::kFgd:
      return "fgd";
  }
  return "?";
}

std::optional<FgdSimScore> FgdSimScoreOf(std::string_view policy_name) {
  constexpr std::string_view kPrefix = "fgdsim-";
  if (policy_name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view rest = policy_name.substr(kPrefix.size());
  for (FgdSimScore s : {FgdSimScore::kRandom, FgdSimScore::kDotProd, FgdSimScore::kGpuClustering,
                        FgdSimScore::kGpuPacking, FgdSimScore::kBestFit, FgdSimScore::kFgd})
    if (rest == FgdSimScoreName(s)) return s;
  return std::nullopt;
}

TaskClassDist FgdSimTypicalClasses(const Workload& w, int popularity_pct) {
  // (CPU, milli-GPU per GPU (0 for CPU-only), GPUs, models joined by '|':
  // the simulator's PodResource, whose GpuType string orders ties).
  using Key = std::tuple<int64_t, int32_t, int32_t, std::string>;
  struct Count {
    int64_t tasks = 0;
    const Job* first = nullptr;  // its demand and models
  };
  std::map<Key, Count> count;
  int64_t total = 0;
  for (const Job& j : w.jobs) {
    const TaskDemand& d = j.task;
    std::string models;
    if (d.gpus > 0)
      for (const std::string& m : j.gpu_models) models += (models.empty() ? "" : "|") + m;
    Count& c = count[Key{d.cpu_milli, d.gpus > 0 ? d.gpu_milli : 0, d.gpus, models}];
    c.tasks += j.tasks;
    if (!c.first) c.first = &j;
    total += j.tasks;
  }
  std::vector<std::pair<Key, Count>> order(count.begin(), count.end());
  // Largest count first; equal counts: the larger key first (the simulator
  // sorts TargetPodList by (share, PodResource.Less) and reverses it).
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second.tasks != b.second.tasks ? a.second.tasks > b.second.tasks : a.first > b.first;
  });
  TaskClassDist dist;
  const int pct = std::clamp(popularity_pct, 1, 100);
  int64_t cum = 0;
  for (const auto& [k, c] : order) {
    // The simulator adds classes while cum < pct% of total.
    if (cum * 100 >= static_cast<int64_t>(pct) * total) break;
    cum += c.tasks;
    TaskClass m;
    m.demand.cpu_milli = c.first->task.cpu_milli;
    m.demand.gpus = c.first->task.gpus;
    m.demand.gpu_milli = c.first->task.gpus > 0 ? c.first->task.gpu_milli : kMilliPerUnit;
    if (m.demand.gpus > 0) m.gpu_models = c.first->gpu_models;
    m.weight = c.tasks;  // memory is not a dimension: demand mem and GPU memory stay 0
    dist.classes.push_back(std::move(m));
  }
  return dist;
}

std::vector<uint32_t> FgdSimRandomRanks(size_t nodes, uint64_t seed) {
  std::vector<uint32_t> rank(nodes);
  for (size_t i = 0; i < nodes; ++i) rank[i] = static_cast<uint32_t>(i);
  Rng rng(seed, 0, "fgdsim/node-order");
  for (size_t i = nodes; i > 1; --i)
    std::swap(rank[i - 1],
              rank[static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(i) - 1))]);
  return rank;
}

}  // namespace utilsim
