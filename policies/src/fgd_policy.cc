// The FGD placement policy (fgd.h): steepest descent of the fragmentation
// measure, task by task, with the GPU choice for fractional tasks.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "utilsim/policies/fgd.h"
#include "utilsim/policies/packing.h"

namespace utilsim {
namespace {

struct Choice {
  int64_t node = -1;
  uint64_t gpus = 0;
};

class Fgd final : public PlacementPolicy {
 public:
  Fgd() = default;
  explicit Fgd(TaskClassDist dist) : dist_(std::move(dist)), fixed_(!dist_.classes.empty()) {}

  PolicyId id() const override { return {"fgd", "1"}; }

  void Init(const Workload& w) override {
    if (fixed_) return;
    dist_ = TaskClassesOf(w);
    meter_.reset();  // rebuilt for the new distribution at the next Place
  }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    EnsureMeter(c);
    return PlaceTasksWithGpus(job, mask, c,
                              [&](const TaskDemand& d, ModelMask m,
                                  const ClusterState& s) -> std::optional<TaskPlacement> {
                                const Choice ch = Choose(d, m, s);
                                if (ch.node < 0) return std::nullopt;
                                return TaskPlacement{static_cast<NodeIndex>(ch.node), ch.gpus};
                              });
  }

 private:
  // The meter resolves model names, so it is rebuilt for a cluster with other
  // GPU models (never within a run).
  void EnsureMeter(const ClusterState& c) {
    const std::vector<GpuModelSpec>& now = c.spec().models;
    if (meter_ && now.size() == models_.size() &&
        std::equal(now.begin(), now.end(), models_.begin(),
                   [](const GpuModelSpec& a, const std::pair<std::string, int64_t>& b) {
                     return a.memory_bytes == b.second && a.name == b.first;
                   }))
      return;
    std::vector<std::pair<std::string, int64_t>> models;
    for (const GpuModelSpec& m : now) models.emplace_back(m.name, m.memory_bytes);
    models_ = std::move(models);
    meter_.emplace(dist_, c);
    cache_.clear();
    whole_cache_.clear();
  }

  // Nodes without partly used GPUs whose (model, whole-free GPUs, free CPU,
  // free memory) repeat an earlier candidate's have the same F before and
  // after: only the first (the lowest index, candidates of one bucket come
  // in index order) is scored. The states of a task: a short list, then
  // (past kFew) a small open-addressing set, reset per task (StartStates).
  static constexpr int kFew = 16;
  void StartStates(size_t nodes) {
    few_ = 0;
    state_nodes_ = nodes;
  }
  bool SeenState(int32_t model, int32_t whole, int64_t cpu, int64_t mem) {
    const SeenKey key{0, model, whole, cpu, mem};
    if (few_ < kFew) {
      for (int i = 0; i < few_; ++i) {
        const SeenKey& e = few_keys_[i];
        if (e.model == model && e.whole == whole && e.cpu == cpu && e.mem == mem) return true;
      }
      few_keys_[few_++] = key;
      return false;
    }
    if (few_ == kFew) {  // the list is full: on to the set, with the list in it
      ++few_;
      round_base_ = ++rounds_;
      if (seen_.size() < 2 * state_nodes_ + 16) {  // room for every node
        size_t cap = 64;
        while (cap < 2 * state_nodes_ + 16) cap *= 2;
        seen_.assign(cap, SeenKey{});
      }
      for (const SeenKey& e : few_keys_) InSet(e.model, e.whole, e.cpu, e.mem);
    }
    return InSet(model, whole, cpu, mem);
  }
  bool InSet(int32_t model, int32_t whole, int64_t cpu, int64_t mem) {
    uint64_t h = static_cast<uint64_t>(cpu) * 0x9E3779B97F4A7C15ULL ^
                 static_cast<uint64_t>(mem) * 0xC2B2AE3D27D4EB4FULL ^
                 (static_cast<uint64_t>(model) << 8 | static_cast<uint64_t>(whole));
    h ^= h >> 29;
    for (size_t i = h & (seen_.size() - 1);; i = (i + 1) & (seen_.size() - 1)) {
      SeenKey& e = seen_[i];
      if (e.round != round_base_) {
        e = {round_base_, model, whole, cpu, mem};
        return false;
      }
      if (e.model == model && e.whole == whole && e.cpu == cpu && e.mem == mem) return true;
    }
  }

  // Every GPU whole-free or fully used, and a whole-GPU or CPU-only task: F
  // is a function of (model, w, CPU, memory), w = the bucket's whole-free
  // count. The candidates of ForEachCandidate, walked in its order without
  // collecting them; the least change wins, ties to the lowest index.
  Choice ChooseWhole(const TaskDemand& d, ModelMask mask, const ClusterState& c) {
    StartStates(c.num_nodes());
    Choice best;
    int64_t best_delta = INT64_MAX;
    ForEachCandidate(
        c, d, mask, /*dedup_pristine=*/true, /*descending=*/false, [](int, int) { return true; },
        [&](NodeIndex n) {
          const NodeInfo& info = c.node(n);
          const int32_t w = c.free_whole_gpus(n);
          const int64_t fc = c.free_cpu(n), fm = c.free_mem(n);
          const WholeEntry& e = BeforeWhole(c, n, info, w, fc, fm);
          // F = 1000 w R, R the weight of the classes that do not fit; R can
          // only grow when k GPUs, CPU and memory are taken, so the change
          // is >= 1000 (w - k) R - 1000 w R = -k F(before) / w. A node whose
          // bound exceeds the best change cannot win (nor tie).
          if (d.gpus > 0 && -e.per_gpu * d.gpus > best_delta) return true;
          // A node whose state repeats an earlier candidate's (the same
          // bucket, so a lower index) scores the same and loses the tie.
          if (SeenState(info.model, w, fc, fm)) return true;
          const int64_t delta =
              meter_->ScaledWholeGpus(info, w - d.gpus, fc - d.cpu_milli, fm - d.mem_bytes) - e.f;
          if (delta < best_delta || (delta == best_delta && n < best.node)) {
            best = {n, 0};
            best_delta = delta;
          }
          return true;
        });
    // The lowest-indexed whole-free GPUs.
    if (best.node >= 0) best.gpus = c.PickGpus(static_cast<NodeIndex>(best.node), d);
    return best;
  }

  Choice Choose(const TaskDemand& d, ModelMask mask, const ClusterState& c) {
    const bool no_partial =
        c.allocated_gpu_milli() == 1000 * (c.total_gpus() - c.whole_free_gpus_total());
    if (no_partial && !d.fractional()) return ChooseWhole(d, mask, c);
    CollectCandidates(c, d, mask, /*dedup_pristine=*/true, &cand_);
    Choice best;
    int64_t best_delta = INT64_MAX;
    int32_t free[64];
    for (NodeIndex n : cand_) {
      const NodeInfo& info = c.node(n);
      const int g = info.gpus;
      for (int i = 0; i < g; ++i) free[i] = c.gpu_free_milli(n, i);
      const std::span<const int32_t> view(free, static_cast<size_t>(g));
      const int64_t cpu = c.free_cpu(n) - d.cpu_milli, mem = c.free_mem(n) - d.mem_bytes;
      const int64_t before = Before(c, n, view);
      auto consider = [&](int64_t after, uint64_t gpus) {
        const int64_t delta = after - before;
        if (delta < best_delta || (delta == best_delta && n < best.node)) {
          best = {n, gpus};
          best_delta = delta;
        }
      };
      if (!d.fractional()) {  // CPU-only or whole GPUs: which GPUs is immaterial
        for (int i = 0, left = d.gpus; i < g && left > 0; ++i)
          if (free[i] == 1000) {
            free[i] = 0;
            --left;
          }
        consider(meter_->ScaledAt(info, view, cpu, mem), 0);
        continue;
      }
      // Fractional: each distinct free share among the GPUs that fit (share
      // and GPU memory, ClusterState::GpuFits), on its lowest such GPU.
      // Within a node a later GPU replaces the choice only when strictly
      // better, so ties keep the lowest GPU index.
      for (int i = 0; i < g; ++i) {
        const int32_t v = c.gpu_free_milli(n, i);
        if (!c.GpuFits(n, i, d)) continue;
        bool seen = false;
        for (int j = 0; j < i && !seen; ++j)
          seen = c.gpu_free_milli(n, j) == v && c.GpuFits(n, j, d);
        if (seen) continue;
        free[i] = v - d.gpu_milli;
        consider(meter_->ScaledAt(info, view, cpu, mem), uint64_t{1} << i);
        free[i] = v;
      }
    }
    // Whole-GPU and CPU-only tasks: the lowest-indexed whole-free GPUs.
    if (best.node >= 0 && !d.fractional())
      best.gpus = c.PickGpus(static_cast<NodeIndex>(best.node), d);
    return best;
  }

  // F_n x weight of node n now, from a per-node cache keyed by everything F
  // depends on (model, free CPU, memory and per-GPU share): nodes change far
  // less often than they are scored.
  int64_t Before(const ClusterState& c, NodeIndex n, std::span<const int32_t> free) {
    const size_t stride = static_cast<size_t>(c.max_gpus_per_node());
    if (cache_.size() != c.num_nodes() || cache_stride_ != stride) {
      cache_.assign(c.num_nodes(), CacheEntry{});
      cache_gpu_.assign(c.num_nodes() * stride, 0);
      cache_stride_ = stride;
    }
    CacheEntry& e = cache_[n];
    int32_t* g = &cache_gpu_[n * stride];
    const NodeInfo& info = c.node(n);
    bool hit = e.model == info.model && e.gpus == info.gpus && e.cpu == c.free_cpu(n) &&
               e.mem == c.free_mem(n);
    for (size_t i = 0; hit && i < free.size(); ++i) hit = g[i] == free[i];
    if (hit) return e.f;
    e = {info.model, info.gpus, c.free_cpu(n), c.free_mem(n),
         meter_->ScaledAt(info, free, c.free_cpu(n), c.free_mem(n))};
    for (size_t i = 0; i < free.size(); ++i) g[i] = free[i];
    return e.f;
  }

  // F(before) x weight of a node whose GPUs are each whole-free or full,
  // cached per node by (model, whole-free GPUs, free CPU, free memory).
  struct WholeEntry {
    int32_t model = -2, whole = 0;  // model -2: empty
    int64_t cpu = 0, mem = 0, f = 0, per_gpu = 0;
  };
  // (per_gpu = f / whole, exact: f is a multiple of 1000 x whole.)
  const WholeEntry& BeforeWhole(const ClusterState& c, NodeIndex n, const NodeInfo& info, int32_t w,
                                int64_t cpu, int64_t mem) {
    if (whole_cache_.size() != c.num_nodes()) whole_cache_.assign(c.num_nodes(), WholeEntry{});
    WholeEntry& e = whole_cache_[n];
    if (e.model == info.model && e.whole == w && e.cpu == cpu && e.mem == mem) return e;
    const int64_t f = meter_->ScaledWholeGpus(info, w, cpu, mem);
    e = {info.model, w, cpu, mem, f, w > 0 ? f / w : 0};
    return e;
  }
  std::vector<WholeEntry> whole_cache_;

  struct SeenKey {
    uint64_t round = 0;
    int32_t model = 0, whole = 0;
    int64_t cpu = 0, mem = 0;
  };
  std::vector<SeenKey> seen_;
  uint64_t rounds_ = 0, round_base_ = 0;
  SeenKey few_keys_[kFew];
  int few_ = 0;
  size_t state_nodes_ = 0;

  struct CacheEntry {
    int32_t model = -2;  // -2: empty
    int32_t gpus = 0;
    int64_t cpu = 0, mem = 0, f = 0;
  };
  std::vector<CacheEntry> cache_;
  std::vector<int32_t> cache_gpu_;
  size_t cache_stride_ = 0;

  TaskClassDist dist_;
  bool fixed_ = false;  // a non-empty distribution given at construction
  std::vector<std::pair<std::string, int64_t>> models_;
  std::optional<FragmentationMeter> meter_;
  std::vector<NodeIndex> cand_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeFgd() { return std::make_unique<Fgd>(); }
std::unique_ptr<PlacementPolicy> MakeFgd(TaskClassDist dist) {
  return std::make_unique<Fgd>(std::move(dist));
}

}  // namespace utilsim
