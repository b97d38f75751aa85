// The FGD fragmentation measure (fgd.h): task classes and the meter.
#include "utilsim/policies/fgd.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "utilsim/engine/units.h"

namespace utilsim {

int64_t TaskClassDist::total_weight() const {
  int64_t t = 0;
  for (const TaskClass& m : classes) t += m.weight;
  return t;
}

TaskClassDist TaskClassesOf(const Workload& w) {
  // Counted in a hash table keyed by the demand and the interned, sorted
  // model list (no allocation per job: most jobs name no model), then put in
  // the order of (demand fields, model list), which is the result's order.
  std::map<std::vector<std::string>, uint32_t> list_ids{{{}, 0}};                // id 0: any model
  std::vector<const std::vector<std::string>*> lists{&list_ids.begin()->first};  // by id
  auto list_id = [&](const std::vector<std::string>& models) -> uint32_t {
    if (models.empty()) return 0;
    if (std::is_sorted(models.begin(), models.end())) {
      if (auto it = list_ids.find(models); it != list_ids.end()) return it->second;
    }
    std::vector<std::string> sorted = models;
    std::sort(sorted.begin(), sorted.end());
    auto [it, fresh] = list_ids.emplace(std::move(sorted), static_cast<uint32_t>(lists.size()));
    if (fresh) lists.push_back(&it->first);  // map keys stay where they are
    return it->second;
  };
  struct Key {
    int32_t gpus, gpu_milli;
    int64_t cpu, mem, gpu_mem;
    uint32_t list;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = static_cast<uint64_t>(k.cpu) * 0x9E3779B97F4A7C15ULL;
      h ^= static_cast<uint64_t>(k.mem) * 0xC2B2AE3D27D4EB4FULL;
      h ^= static_cast<uint64_t>(k.gpu_mem) * 0x165667B19E3779F9ULL;
      h ^= (static_cast<uint64_t>(static_cast<uint32_t>(k.gpus)) << 32 |
            static_cast<uint32_t>(k.gpu_milli)) *
           0x27D4EB2F165667C5ULL;
      h ^= k.list;
      return static_cast<size_t>(h ^ (h >> 31));
    }
  };
  std::unordered_map<Key, int64_t, KeyHash> count;
  for (const Job& j : w.jobs) {
    const TaskDemand& d = j.task;
    ++count[Key{d.gpus, d.gpu_milli, d.cpu_milli, d.mem_bytes, d.gpu_mem_bytes,
                list_id(j.gpu_models)}];
  }
  std::vector<std::pair<Key, int64_t>> sorted(count.begin(), count.end());
  std::sort(sorted.begin(), sorted.end(), [&](const auto& a, const auto& b) {
    const Key& x = a.first;
    const Key& y = b.first;
    return std::tie(x.gpus, x.gpu_milli, x.cpu, x.mem, x.gpu_mem, *lists[x.list]) <
           std::tie(y.gpus, y.gpu_milli, y.cpu, y.mem, y.gpu_mem, *lists[y.list]);
  });
  TaskClassDist dist;
  dist.classes.reserve(sorted.size());
  for (const auto& [k, n] : sorted) {
    TaskClass m;
    m.demand.gpus = k.gpus;
    m.demand.gpu_milli = k.gpu_milli;
    m.demand.cpu_milli = k.cpu;
    m.demand.mem_bytes = k.mem;
    m.demand.gpu_mem_bytes = k.gpu_mem;
    m.gpu_models = *lists[k.list];
    m.weight = n;
    dist.classes.push_back(std::move(m));
  }
  return dist;
}

namespace {
constexpr size_t kMaxGridCells = size_t{8} << 20;

// Number of values in sorted v that are <= x (branch-free binary search).
int32_t RankLE(const std::vector<int64_t>& v, int64_t x) {
  if (v.empty()) return 0;
  const int64_t* b = v.data();
  size_t n = v.size();
  while (n > 1) {
    const size_t h = n / 2;
    b = b[h] <= x ? b + h : b;
    n -= h;
  }
  return static_cast<int32_t>(b - v.data()) + (*b <= x ? 1 : 0);
}

// RankLE over fixed thresholds in O(1) for spread-out values: a table over
// x >> shift (at most 4Ki entries, to stay in L1) gives the rank at the
// start of x's slot, and a short walk finishes it.
class Ranker {
 public:
  void Build(std::vector<int64_t> v) {
    v_ = std::move(v);
    if (v_.empty()) return;
    shift_ = 0;
    while ((std::max<int64_t>(v_.back(), 0) >> shift_) >= 4095) ++shift_;
    const int64_t slots = (std::max<int64_t>(v_.back(), 0) >> shift_) + 1;
    start_.resize(static_cast<size_t>(slots));
    for (int64_t i = 0; i < slots; ++i)
      start_[static_cast<size_t>(i)] =
          static_cast<int32_t>(std::lower_bound(v_.begin(), v_.end(), i << shift_) - v_.begin());
  }
  int32_t operator()(int64_t x) const {
    if (v_.empty()) return 0;
    if (x < 0) return RankLE(v_, x);
    if (x >= v_.back()) return static_cast<int32_t>(v_.size());
    int32_t r = start_[static_cast<size_t>(x >> shift_)];
    while (v_[static_cast<size_t>(r)] <= x) ++r;
    return r;
  }
  const std::vector<int64_t>& values() const { return v_; }

 private:
  std::vector<int64_t> v_;
  std::vector<int32_t> start_;
  int shift_ = 0;
};
}  // namespace

// Classes needing GPUs, grouped by what decides GPU fit and access; inside a
// group, the weight of the classes whose CPU <= c and memory <= m is a 2-D
// dominance sum, served by a prefix-sum grid over the group's own thresholds.
struct FragmentationMeter::Impl {
  struct Member {
    int64_t cpu, mem, weight;
  };
  struct Group {
    int32_t k = 0, milli = 0;
    ModelMask mask = 0;
    int64_t gpu_mem = 0;
    std::vector<Member> members;  // sorted by cpu (fallback scan)
    std::vector<int32_t> lc, lm;  // global rank -> local rank
    std::vector<int32_t> grid;    // (dc+1) x (dm+1), empty = scan
    size_t stride = 0;
  };

  int64_t total = 0;
  std::vector<int64_t> cpu_vals, mem_vals;  // global sorted thresholds
  Ranker cpu_rank, mem_rank;
  std::vector<Group> groups;
  std::vector<std::vector<int32_t>> access;  // per model: groups it can serve

  int64_t Weight(const Group& g, int64_t cpu, int64_t mem, int32_t rc, int32_t rm) const {
    if (!g.grid.empty()) return g.grid[static_cast<size_t>(g.lc[rc]) * g.stride + g.lm[rm]];
    int64_t w = 0;
    for (const Member& x : g.members) {
      if (x.cpu > cpu) break;
      if (x.mem <= mem) w += x.weight;
    }
    return w;
  }

  void BuildGrid(Group& g) {
    std::vector<int64_t> lcpu, lmem;
    for (const Member& x : g.members) {
      lcpu.push_back(x.cpu);
      lmem.push_back(x.mem);
    }
    std::sort(lcpu.begin(), lcpu.end());
    lcpu.erase(std::unique(lcpu.begin(), lcpu.end()), lcpu.end());
    std::sort(lmem.begin(), lmem.end());
    lmem.erase(std::unique(lmem.begin(), lmem.end()), lmem.end());
    g.lc.assign(cpu_vals.size() + 1, 0);
    g.lm.assign(mem_vals.size() + 1, 0);
    for (size_t r = 1; r <= cpu_vals.size(); ++r) g.lc[r] = RankLE(lcpu, cpu_vals[r - 1]);
    for (size_t r = 1; r <= mem_vals.size(); ++r) g.lm[r] = RankLE(lmem, mem_vals[r - 1]);
    g.stride = lmem.size() + 1;
    g.grid.assign((lcpu.size() + 1) * g.stride, 0);
    for (const Member& x : g.members)
      g.grid[static_cast<size_t>(RankLE(lcpu, x.cpu)) * g.stride + RankLE(lmem, x.mem)] +=
          static_cast<int32_t>(x.weight);
    for (size_t i = 1; i <= lcpu.size(); ++i)  // 2-D prefix sums
      for (size_t j = 1; j < g.stride; ++j)
        g.grid[i * g.stride + j] += g.grid[(i - 1) * g.stride + j] + g.grid[i * g.stride + j - 1] -
                                    g.grid[(i - 1) * g.stride + j - 1];
  }

  Impl(const TaskClassDist& dist, const ClusterState& c) {
    using Key = std::tuple<int32_t, int32_t, ModelMask, int64_t>;
    std::map<Key, size_t> index;
    for (const TaskClass& m : dist.classes) {
      total += m.weight;
      const TaskDemand& d = m.demand;
      if (d.gpus == 0) continue;  // F_n(m) = all free GPU share: only in total
      const ModelMask mask = c.ResolveModels(m.gpu_models);
      const Key key{d.gpus, d.gpu_milli, mask, d.gpu_mem_bytes};
      auto [it, added] = index.emplace(key, groups.size());
      if (added)
        groups.push_back(Group{d.gpus, d.gpu_milli, mask, d.gpu_mem_bytes, {}, {}, {}, {}, 0});
      groups[it->second].members.push_back({d.cpu_milli, d.mem_bytes, m.weight});
      cpu_vals.push_back(d.cpu_milli);
      mem_vals.push_back(d.mem_bytes);
    }
    std::sort(cpu_vals.begin(), cpu_vals.end());
    cpu_vals.erase(std::unique(cpu_vals.begin(), cpu_vals.end()), cpu_vals.end());
    std::sort(mem_vals.begin(), mem_vals.end());
    mem_vals.erase(std::unique(mem_vals.begin(), mem_vals.end()), mem_vals.end());
    cpu_rank.Build(cpu_vals);
    mem_rank.Build(mem_vals);
    size_t cells = 0;
    for (Group& g : groups) {
      std::sort(g.members.begin(), g.members.end(),
                [](const Member& a, const Member& b) { return a.cpu < b.cpu; });
      // Upper bound on this grid's cells: (members + 1)^2, capped by globals.
      const size_t dc = std::min(g.members.size(), cpu_vals.size()) + 1;
      const size_t dm = std::min(g.members.size(), mem_vals.size()) + 1;
      if (total <= INT32_MAX && cells + dc * dm <= kMaxGridCells) {  // int32 cells
        BuildGrid(g);
        cells += g.grid.size();
      }
    }
    access.resize(static_cast<size_t>(c.num_models()));
    for (int m = 0; m < c.num_models(); ++m) {
      const int64_t model_mem = c.spec().models[m].memory_bytes;
      for (size_t i = 0; i < groups.size(); ++i) {
        const Group& g = groups[i];
        if (!(g.mask >> m & 1)) continue;
        if (g.gpu_mem > model_mem && model_mem > 0) continue;
        access[m].push_back(static_cast<int32_t>(i));
      }
      std::sort(access[m].begin(), access[m].end(), [&](int32_t a, int32_t b) {
        return std::pair(groups[a].k, groups[a].milli) < std::pair(groups[b].k, groups[b].milli);
      });
    }
  }

  // Every GPU whole-free or fully used: `whole` free GPUs fit every class
  // needing no more of them, and all the free share is usable by those.
  int64_t ScaledWhole(const NodeInfo& shape, int whole, int64_t cpu, int64_t mem) const {
    if (shape.model < 0 || whole <= 0) return 0;
    const int32_t rc = cpu_rank(cpu), rm = mem_rank(mem);
    int64_t weight = 0;
    for (int32_t gi : access[static_cast<size_t>(shape.model)]) {  // ascending GPU count
      const Group& g = groups[static_cast<size_t>(gi)];
      if (g.k > whole) break;
      weight += Weight(g, cpu, mem, rc, rm);
    }
    return (total - weight) * 1000 * whole;
  }

  int64_t ScaledAt(const NodeInfo& shape, std::span<const int32_t> gpu_free, int64_t cpu,
                   int64_t mem) const {
    if (shape.model < 0 || shape.gpus == 0) return 0;
    // Fast path: every GPU whole-free or fully used. Then `whole` free GPUs
    // fit every class needing no more, and all the free share is usable.
    int whole = 0;
    bool whole_only = true;
    for (int32_t v : gpu_free) {
      whole += v == kMilliPerUnit;
      whole_only = whole_only && (v == 0 || v == kMilliPerUnit);
    }
    if (whole_only) return ScaledWhole(shape, whole, cpu, mem);
    int32_t sorted[64];
    const int n = static_cast<int>(gpu_free.size());
    int64_t t = 0;
    for (int i = 0; i < n; ++i) {  // insertion sort, descending
      int32_t v = gpu_free[i];
      t += v;
      int j = i;
      for (; j > 0 && sorted[j - 1] < v; --j) sorted[j] = sorted[j - 1];
      sorted[j] = v;
    }
    if (t == 0) return 0;
    int64_t prefix[65];
    prefix[0] = 0;
    for (int i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + sorted[i];
    int64_t f = total * t;
    const int32_t rc = cpu_rank(cpu), rm = mem_rank(mem);
    for (int32_t gi : access[static_cast<size_t>(shape.model)]) {
      const Group& g = groups[static_cast<size_t>(gi)];
      if (g.k > n || sorted[g.k - 1] < g.milli) continue;  // not k GPUs with >= milli
      int cnt = g.k;
      while (cnt < n && sorted[cnt] >= g.milli) ++cnt;
      const int64_t w = Weight(g, cpu, mem, rc, rm);
      f -= w * prefix[cnt];  // the free share usable by the class
    }
    return f;
  }
};

FragmentationMeter::FragmentationMeter(const TaskClassDist& dist, const ClusterState& cluster)
    : impl_(std::make_unique<Impl>(dist, cluster)) {}
FragmentationMeter::~FragmentationMeter() = default;
FragmentationMeter::FragmentationMeter(FragmentationMeter&&) noexcept = default;
FragmentationMeter& FragmentationMeter::operator=(FragmentationMeter&&) noexcept = default;

int64_t FragmentationMeter::total_weight() const { return impl_->total; }

int64_t FragmentationMeter::ScaledAt(const NodeInfo& shape, std::span<const int32_t> gpu_free,
                                     int64_t free_cpu, int64_t free_mem) const {
  return impl_->ScaledAt(shape, gpu_free, free_cpu, free_mem);
}

int64_t FragmentationMeter::ScaledWholeGpus(const NodeInfo& shape, int whole, int64_t free_cpu,
                                            int64_t free_mem) const {
  return impl_->ScaledWhole(shape, whole, free_cpu, free_mem);
}

int64_t FragmentationMeter::NodeScaled(const ClusterState& c, NodeIndex n) const {
  int32_t free[64];
  const int g = c.node(n).gpus;
  for (int i = 0; i < g; ++i) free[i] = c.gpu_free_milli(n, i);
  return impl_->ScaledAt(c.node(n), std::span<const int32_t>(free, static_cast<size_t>(g)),
                         c.free_cpu(n), c.free_mem(n));
}

double FragmentationMeter::Node(const ClusterState& c, NodeIndex n) const {
  if (impl_->total == 0) return 0;
  return static_cast<double>(NodeScaled(c, n)) / static_cast<double>(impl_->total);
}

double FragmentationMeter::Cluster(const ClusterState& c) const {
  if (impl_->total == 0) return 0;
  int64_t sum = 0;
  for (NodeIndex n = 0; n < c.num_nodes(); ++n) sum += NodeScaled(c, n);
  return static_cast<double>(sum) / static_cast<double>(impl_->total);
}

double NodeFragmentation(const ClusterState& c, NodeIndex n, const TaskClassDist& dist) {
  return FragmentationMeter(dist, c).Node(c, n);
}

double ClusterFragmentation(const ClusterState& c, const TaskClassDist& dist) {
  return FragmentationMeter(dist, c).Cluster(c);
}

}  // namespace utilsim
