// Borg's original scoring, E-PVM (it spreads). Formula in packing.h and
// docs/packing.md; the stranding hybrid is in epvm_hybrid.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "utilsim/engine/units.h"
#include "utilsim/policies/packing.h"
#include "utilsim/policies/params.h"

namespace utilsim {
namespace {

int64_t FreeGpuMilli(const ClusterState& c, NodeIndex n) {
  int64_t free = 0;
  for (int g = 0; g < c.node(n).gpus; ++g) free += c.gpu_free_milli(n, g);
  return free;
}

// E-PVM. Exact search without visiting every feasible node: nodes are
// found left to right with ClusterState::FindFirst, asking for at least the
// free CPU and memory that a node of any shape needs to beat the best cost so
// far (each term is nondecreasing in its utilization, and a later node must
// be strictly better: ties keep the lower index).
class Epvm final : public PlacementPolicy {
 public:
  static constexpr int kSteps = 10000;  // utilization resolution
  static constexpr size_t kMaxShapes = 64;
  static constexpr int kSeedFirst = 8;  // nodes of a top bucket considered before floors

  explicit Epvm(std::optional<double> base) : base_(base) {}
  PolicyId id() const override {
    return {"epvm", "1", "base=" + (base_ ? FormatParamNumber(*base_) : std::string("nodes"))};
  }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    EnsureTable(c.num_nodes());
    packing_internal::DistinctShapes(c, kMaxShapes, &shapes_);
    return PlaceTasks(job, mask, c,
                      [this](const TaskDemand& d, ModelMask m, const ClusterState& s) {
                        return Choose(d, m, s);
                      });
  }

 private:
  // Marginal cost of one resource: B^{u} (B^{delta} - 1), which is
  // B^{u + delta} - B^{u} exactly, with u = used / cap on the kSteps grid
  // (rounded half up) and delta = demand / cap exact; fixed point 1e6.
  struct Term {
    double inv = 0;     // kSteps / cap
    double factor = 0;  // (B^{demand / cap} - 1) x 1e6
  };
  struct Terms {
    packing_internal::NodeShape shape;
    Term gpu, cpu, mem;
  };

  void EnsureTable(size_t nodes) {  // table_[i] = B^{i / kSteps}
    if (nodes == table_nodes_ && !table_.empty()) return;
    table_nodes_ = nodes;
    log_base_ = std::log(base_ ? *base_ : std::max<double>(2.0, static_cast<double>(nodes)));
    table_.resize(kSteps + 1);
    for (int i = 0; i <= kSteps; ++i) table_[i] = std::exp(log_base_ * i / kSteps);
  }
  Term MakeTerm(int64_t demand, int64_t cap) const {
    if (cap <= 0) return {};
    const double delta = static_cast<double>(demand) / static_cast<double>(cap);
    return {kSteps / static_cast<double>(cap), std::expm1(log_base_ * delta) * 1e6};
  }
  Terms MakeTerms(const TaskDemand& d, const packing_internal::NodeShape& s) const {
    return {s, MakeTerm(d.gpus > 0 ? d.total_gpu_milli() : 0, int64_t{kMilliPerUnit} * s.gpus),
            MakeTerm(d.cpu_milli, s.cpu), MakeTerm(d.mem_bytes, s.mem)};
  }
  static int64_t Step(int64_t used, const Term& t) {
    return std::min<int64_t>(kSteps, static_cast<int64_t>(static_cast<double>(used) * t.inv + 0.5));
  }
  int64_t TermAt(int64_t step, const Term& t) const {
    return static_cast<int64_t>(table_[static_cast<size_t>(step)] * t.factor + 0.5);
  }
  int64_t Marginal(int64_t used, const Term& t) const { return TermAt(Step(used, t), t); }

  // Least free amount (of capacity cap) for which the term is <= slack;
  // cap + 1 when even an idle resource exceeds it. The largest step is found
  // from the logarithm and corrected on the table (the term is
  // nondecreasing in the step), then turned into a used amount.
  int64_t MinFree(int64_t slack, int64_t cap, const Term& t) const {
    if (TermAt(0, t) > slack) return cap + 1;
    const int64_t top = Step(cap, t);
    int64_t u = top;
    if (t.factor > 0 && slack > 0) {
      const double x = static_cast<double>(kSteps) * std::log(slack / t.factor) / log_base_;
      u = std::clamp<int64_t>(static_cast<int64_t>(x), 0, top);
    }
    while (u > 0 && TermAt(u, t) > slack) --u;
    while (u < top && TermAt(u + 1, t) <= slack) ++u;
    if (u == top) return 0;
    int64_t used =
        std::clamp<int64_t>(static_cast<int64_t>((static_cast<double>(u) + 0.5) / t.inv), 0, cap);
    while (used > 0 && Step(used, t) > u) --used;
    while (used < cap && Step(used + 1, t) <= u) ++used;
    return cap - used;
  }

  int64_t NodeCost(const ClusterState& c, NodeIndex n, const Terms& t, bool no_partial) const {
    const NodeInfo& info = c.node(n);
    int64_t cost = Marginal(info.cpu_milli - c.free_cpu(n), t.cpu) +
                   Marginal(info.mem_bytes - c.free_mem(n), t.mem);
    if (info.gpus > 0) {
      const int64_t free =
          no_partial ? int64_t{kMilliPerUnit} * c.free_whole_gpus(n) : FreeGpuMilli(c, n);
      cost += Marginal(int64_t{kMilliPerUnit} * info.gpus - free, t.gpu);
    }
    return cost;
  }

  // Raises probe's CPU, memory (and whole-GPU) floors to what a node of any
  // shape needs for a cost <= target. False when no node can reach it.
  bool Floors(int64_t target, const TaskDemand& d, int top, bool whole_floor,
              TaskDemand* probe) const {
    int64_t min_cpu = INT64_MAX, min_mem = INT64_MAX;
    int min_whole = INT32_MAX;
    for (const Terms& t : terms_) {
      const int g = t.shape.gpus;
      if (d.gpus > g) continue;            // this shape never hosts the task
      const int avail = std::min(top, g);  // most whole-free GPUs it can have
      const int64_t gpu =
          g > 0 ? Marginal(whole_floor ? kMilliPerUnit * (g - avail) : 0, t.gpu) : 0;
      const int64_t cpu0 = TermAt(0, t.cpu), mem0 = TermAt(0, t.mem);
      if (gpu + cpu0 + mem0 > target) continue;
      min_cpu = std::min(min_cpu, MinFree(target - gpu - mem0, t.shape.cpu, t.cpu));
      min_mem = std::min(min_mem, MinFree(target - gpu - cpu0, t.shape.mem, t.mem));
      if (whole_floor) {  // fewest whole-free GPUs whose GPU term still fits
        int k = avail;
        while (k > d.gpus && Marginal(kMilliPerUnit * (g - k + 1), t.gpu) + cpu0 + mem0 <= target)
          --k;
        min_whole = std::min(min_whole, k);
      }
    }
    if (min_cpu == INT64_MAX) return false;
    probe->cpu_milli = std::max(d.cpu_milli, min_cpu);
    probe->mem_bytes = std::max(d.mem_bytes, min_mem);
    if (whole_floor) probe->gpus = std::max(d.gpus, min_whole);
    return true;
  }

  int64_t Choose(const TaskDemand& d, ModelMask mask, const ClusterState& c) {
    const bool no_partial =
        c.allocated_gpu_milli() == kMilliPerUnit * (c.total_gpus() - c.whole_free_gpus_total());
    // Without partly used GPUs a node's GPU use is set by its whole-free
    // count, so whole-GPU tasks also get a floor on whole-free GPUs.
    const bool whole_floor = no_partial && d.gpus > 0 && !d.fractional();
    int top = 0;  // most whole-free GPUs on any node
    for (int m = 0; m < c.num_models(); ++m)
      for (int k = c.max_gpus_per_node(); k > top; --k)
        if (!c.Bucket(m, k).empty()) top = k;
    if (top < d.gpus && whole_floor) return -1;  // no node has the whole-free GPUs
    // The floors raise the demand, which would raise its power too: with a
    // power budget, the plain scan (ForEachCandidate tests power with d).
    if (c.power_budget_on()) return ScanChoose(d, mask, c, no_partial);
    // The terms depend on the demand, the shapes and the base only: kept
    // while those repeat (the tasks of a gang, a job retried).
    if (!(terms_demand_ == d && terms_shapes_ == shapes_ && terms_base_ == log_base_)) {
      terms_.clear();
      for (const auto& s : shapes_) terms_.push_back(MakeTerms(d, s));
      terms_demand_ = d;
      terms_shapes_ = shapes_;
      terms_base_ = log_base_;
    }
    const Terms* memo = nullptr;
    int64_t best = -1, best_cost = INT64_MAX;
    auto consider = [&](NodeIndex node) -> bool {  // false: shape list unusable
      const NodeInfo& info = c.node(node);
      const packing_internal::NodeShape shape{info.gpus, info.cpu_milli, info.mem_bytes};
      if (!memo || memo->shape != shape) {
        memo = nullptr;
        for (const Terms& t : terms_)
          if (t.shape == shape) memo = &t;
        if (!memo) return false;
      }
      const int64_t cost = NodeCost(c, node, *memo, no_partial);
      if (cost < best_cost || (cost == best_cost && node < best)) {
        best = node;
        best_cost = cost;
      }
      return true;
    };
    // Seed: the nodes with the most whole-free GPUs, which usually have the
    // least GPU term (the winner is nearly always among them), so the floors
    // start tight. Every candidate of those buckets is considered unless it
    // fails the floors for a cost <= the best so far (ties included), which
    // it cannot then reach; the buckets' first nodes set the first floors,
    // the rest are gathered against them (CollectFits) and checked against
    // the floors of the best as it improves. (Any seed leaves the sweep's
    // result unchanged: it is the least (cost, index) over the candidates.)
    TaskDemand probe = d;
    if (whole_floor && top >= d.gpus) {
      bool usable = true;
      TaskDemand floors = d;  // for a cost <= best_cost
      int64_t floors_cost = -1;
      auto refresh = [&]() {  // false: no node can reach best_cost any more
        if (best_cost == floors_cost) return true;
        floors_cost = best_cost;
        floors = d;
        return Floors(best_cost, d, top, whole_floor, &floors);
      };
      bool reachable = true;
      const NodeIndex end = static_cast<NodeIndex>(c.num_nodes());
      packing_internal::ForEachCandidateBucket(
          c, d, mask, /*descending=*/true, [&](int, int k, const NodeSet& nodes) {
            if (k != top) return true;
            NodeIndex n = nodes.Next(0);
            for (int i = 0; n < end && (best < 0 || i < kSeedFirst); ++i, n = nodes.Next(n + 1))
              if (packing_internal::CandidateFits(c, d, mask, k, n) && !(usable = consider(n)))
                return false;
            if (n >= end || best < 0) return true;
            if (!(reachable = refresh())) return false;
            if (fits_.size() < end) fits_.resize(end);
            const size_t len =
                packing_internal::CollectFits(c, floors, mask, k, nodes, n, end, fits_.data());
            for (size_t i = 0; i < len; ++i) {
              const NodeIndex x = fits_[i];
              if (c.free_cpu(x) < floors.cpu_milli || c.free_mem(x) < floors.mem_bytes) continue;
              if (!(usable = consider(x))) return false;
              if (!(reachable = refresh())) return false;
            }
            return true;
          });
      if (!usable) return ScanChoose(d, mask, c, no_partial);
      // Every candidate with the most whole-free GPUs that could reach the
      // best was considered. When no node can reach it, or the floors ask
      // for that many whole-free GPUs, no other node can win.
      if (best >= 0 && (!reachable || !refresh() || floors.gpus >= top)) return best;
    }
    // Sweep left to right. A node left of the best may tie it (it would win
    // on index); right of it, only a strictly lower cost counts.
    int64_t floors_cost = -1;
    bool floors_strict = false;
    for (NodeIndex from = 0; from < c.num_nodes();) {
      if (best >= 0) {
        const bool strict = static_cast<int64_t>(from) > best;
        if (best_cost != floors_cost || strict != floors_strict) {
          floors_cost = best_cost;
          floors_strict = strict;
          probe = d;
          if (!Floors(best_cost - (strict ? 1 : 0), d, top, whole_floor, &probe)) break;
        }
      }
      const int64_t n = c.FindFirst(from, probe, mask);
      if (n < 0) break;
      if (!consider(static_cast<NodeIndex>(n))) return ScanChoose(d, mask, c, no_partial);
      from = static_cast<NodeIndex>(n) + 1;
    }
    return best;
  }

  // Plain scan of every candidate (clusters with more than kMaxShapes node
  // shapes, where the floors are not computed).
  int64_t ScanChoose(const TaskDemand& d, ModelMask mask, const ClusterState& c,
                     bool no_partial) const {
    int64_t best = -1, best_cost = INT64_MAX;
    ForEachCandidate(
        c, d, mask, /*dedup_pristine=*/true, /*descending=*/false, [](int, int) { return true; },
        [&](NodeIndex n) {
          const NodeInfo& info = c.node(n);
          const int64_t cost =
              NodeCost(c, n, MakeTerms(d, {info.gpus, info.cpu_milli, info.mem_bytes}), no_partial);
          if (cost < best_cost || (cost == best_cost && n < best)) {
            best = n;
            best_cost = cost;
          }
          return true;
        });
    return best;
  }

  std::optional<double> base_;  // B; unset: max(2, number of nodes)
  size_t table_nodes_ = 0;
  double log_base_ = 0;
  std::vector<double> table_;
  std::vector<packing_internal::NodeShape> shapes_;
  std::vector<Terms> terms_;
  TaskDemand terms_demand_;  // what terms_ was made for
  std::vector<packing_internal::NodeShape> terms_shapes_;
  double terms_base_ = 0;
  std::vector<NodeIndex> fits_;  // CollectFits' room
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeEpvm(std::optional<double> base) {
  return std::make_unique<Epvm>(base);
}

}  // namespace utilsim
