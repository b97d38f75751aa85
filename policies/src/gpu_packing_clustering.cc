// GPU clustering, the FGD paper's (Weng et al., ATC'23) affinity baseline:
// place a task where tasks of the same GPU kind already run. Read from the
// authors' simulator (gpu_clustering_score.go); tiers kept, in-tier key exact
// (docs/packing.md). The ledger of whole-GPU kinds is described in packing.h.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "utilsim/engine/units.h"
#include "utilsim/policies/packing.h"

namespace utilsim {
namespace {

constexpr int64_t kTier = 1000000;  // > any node's free milli-GPU (64 x 1000)

struct WholeEntry {
  uint64_t gpus;  // GPU mask on the node
  int32_t k;      // the task's GPU count: its kind is "k-gpu"
};

// The kinds on a node as last computed, valid while the node's task count
// and free resources are unchanged and the ledger was not touched there.
struct KindCache {
  int32_t tasks = -1, whole = 0;
  int64_t cpu = 0, mem = 0;
  uint32_t version = 0;
  uint64_t kinds = 0;
  bool share = false;
};

uint64_t KindBit(int32_t k) { return uint64_t{1} << (std::min(k, 64) - 1); }

class GpuClustering final : public PlacementPolicy {
 public:
  PolicyId id() const override { return {"gpu-clustering", "1"}; }

  void Init(const Workload&) override { ledger_.clear(); }  // a new run

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    ResetIfNewRun(c);
    pending_.clear();
    pending_nodes_.clear();
    auto p =
        PlaceTasks(job, mask, c, [this](const TaskDemand& d, ModelMask m, const ClusterState& s) {
          return Choose(d, m, s);
        });
    if (p && job.task.gpus > 0 && !job.task.fractional()) {
      // Prune first (the job's own GPUs are free again now), then record.
      for (const TaskPlacement& t : *p) Prune(c, t.node);
      for (const TaskPlacement& t : *p) {
        ledger_[t.node].push_back({t.gpu_mask, job.task.gpus});
        ++version_[t.node];
        ++entries_;
      }
    }
    return p;
  }

 private:
  // A new cluster, or one with nothing running: every entry is stale.
  void ResetIfNewRun(const ClusterState& c) {
    if (ledger_.size() != c.num_nodes()) {
      ledger_.assign(c.num_nodes(), {});
      version_.assign(c.num_nodes(), 0);
      cache_.assign(c.num_nodes(), KindCache{});
      entries_ = 0;
    } else if (entries_ > 0 && c.allocated_gpu_milli() == 0 && c.allocated_cpu() == 0 &&
               c.allocated_mem() == 0) {
      for (size_t n = 0; n < ledger_.size(); ++n) {
        ledger_[n].clear();
        ++version_[n];
      }
      entries_ = 0;
    }
  }

  // Drops whole-GPU entries of node n that no longer hold all their GPUs.
  void Prune(const ClusterState& c, NodeIndex n) {
    auto& l = ledger_[n];
    for (size_t i = 0; i < l.size();) {
      bool live = true;
      for (uint64_t m = l[i].gpus; m; m &= m - 1)
        if (c.gpu_free_milli(n, std::countr_zero(m)) != 0) live = false;
      if (live) {
        ++i;
      } else {
        l[i] = l.back();
        l.pop_back();
        ++version_[n];
        --entries_;
      }
    }
  }

  // Bit k-1 for each live "k-gpu" kind on n (bit 63: 64 or more); *share
  // when a GPU is partly used, or fully used without a live whole entry.
  uint64_t Kinds(const ClusterState& c, NodeIndex n, bool* share) {
    KindCache& e = cache_[n];
    if (e.tasks == c.tasks_on(n) && e.whole == c.free_whole_gpus(n) && e.cpu == c.free_cpu(n) &&
        e.mem == c.free_mem(n) && e.version == version_[n]) {
      *share = e.share;
      return e.kinds;
    }
    Prune(c, n);
    uint64_t kinds = 0, covered = 0;
    for (const WholeEntry& w : ledger_[n]) {
      kinds |= KindBit(w.k);
      covered |= w.gpus;
    }
    for (size_t i = 0; i < pending_.size(); ++i)
      if (pending_nodes_[i] == n) {
        kinds |= KindBit(pending_[i].k);
        covered |= pending_[i].gpus;
      }
    *share = false;
    for (int g = 0; g < c.node(n).gpus; ++g) {
      const int32_t f = c.gpu_free_milli(n, g);
      if ((f > 0 && f < kMilliPerUnit) || (f == 0 && !(covered >> g & 1))) *share = true;
    }
    e = {c.tasks_on(n), c.free_whole_gpus(n), c.free_cpu(n), c.free_mem(n), version_[n], kinds,
         *share};
    return kinds;
  }

  int64_t Choose(const TaskDemand& d, ModelMask mask, const ClusterState& c) {
    if (d.gpus == 0) return c.FindFirst(0, d, mask);  // CPU-only: no kind
    const bool no_partial =
        c.allocated_gpu_milli() == kMilliPerUnit * (c.total_gpus() - c.whole_free_gpus_total());
    const bool task_share = d.fractional();
    const uint64_t task_bit = task_share ? 0 : KindBit(d.gpus);
    int64_t best = -1, best_cost = INT64_MAX;
    ForEachCandidate(
        c, d, mask, /*dedup_pristine=*/true, /*descending=*/false, [](int, int) { return true; },
        [&](NodeIndex n) {
          bool share = false;
          const uint64_t kinds = Kinds(c, n, &share);
          const int count = std::popcount(kinds) + (share ? 1 : 0);
          const bool same = task_share ? share : (kinds & task_bit) != 0;
          const int tier = same ? (count == 1 ? 0 : 1) : (count == 0 ? 2 : 3);
          int64_t free = int64_t{kMilliPerUnit} * c.free_whole_gpus(n);
          if (!no_partial) {
            free = 0;
            for (int g = 0; g < c.node(n).gpus; ++g) free += c.gpu_free_milli(n, g);
          }
          const int64_t cost = tier * kTier + free;
          if (cost < best_cost || (cost == best_cost && n < best)) {
            best = n;
            best_cost = cost;
          }
          return true;
        });
    if (best >= 0 && !task_share) {  // the reserve step will take these GPUs
      pending_.push_back({c.PickGpus(static_cast<NodeIndex>(best), d), d.gpus});
      pending_nodes_.push_back(static_cast<NodeIndex>(best));
    }
    return best;
  }

  std::vector<std::vector<WholeEntry>> ledger_;
  std::vector<uint32_t> version_;  // bumped whenever a node's ledger changes
  std::vector<KindCache> cache_;
  int64_t entries_ = 0;
  std::vector<WholeEntry> pending_;  // this job's tasks reserved so far
  std::vector<NodeIndex> pending_nodes_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeGpuClustering() { return std::make_unique<GpuClustering>(); }

}  // namespace utilsim
