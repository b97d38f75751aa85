// Tetris alignment placement (Grandl et al., SIGCOMM'14): the node whose free
// resources line up best with the task's demand. Formula in packing.h and
// docs/packing.md.
//
// Search: with one node shape and no GPU partly used, branch and bound over
// the cluster's segment tree (ClusterState::FindMax). Otherwise every
// candidate (ForEachCandidate, pristine duplicates skipped) is scored;
// buckets are visited from the most whole-free GPUs down and a bucket is
// skipped when even full CPU and memory could not lift its GPU term to the
// best so far. (A FindFirst sweep with per-resource floors, as E-PVM uses,
// was slower here: the three terms trade off linearly, so the per-resource
// floors prune little.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "utilsim/engine/units.h"
#include "utilsim/policies/packing.h"

namespace utilsim {
namespace {

using packing_internal::NodeShape;

class Tetris final : public PlacementPolicy {
 public:
  static constexpr size_t kMaxShapes = 64;

  PolicyId id() const override { return {"tetris", "1"}; }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    packing_internal::DistinctShapes(c, kMaxShapes, &shapes_);
    return PlaceTasks(job, mask, c,
                      [this](const TaskDemand& d, ModelMask m, const ClusterState& s) {
                        return Choose(d, m, s);
                      });
  }

 private:
  // The task's demand as shares of one shape's capacities.
  struct Shares {
    NodeShape shape;
    double gpu = 0, cpu = 0, mem = 0;
  };
  static Shares SharesFor(const TaskDemand& d, const NodeShape& s) {
    Shares a{s, 0, static_cast<double>(d.cpu_milli) / static_cast<double>(s.cpu),
             static_cast<double>(d.mem_bytes) / static_cast<double>(s.mem)};
    if (s.gpus > 0 && d.gpus > 0)
      a.gpu = static_cast<double>(d.total_gpu_milli()) / (kMilliPerUnit * s.gpus);
    return a;
  }

  // sum_r (d_r / cap_r)(free_r / cap_r), free before placing, in 1e-12
  // units rounded half up (equal node states give equal scores).
  static int64_t Alignment(const ClusterState& c, NodeIndex n, const Shares& a, bool no_partial) {
    const NodeInfo& info = c.node(n);
    double x = a.cpu * (static_cast<double>(c.free_cpu(n)) / static_cast<double>(info.cpu_milli)) +
               a.mem * (static_cast<double>(c.free_mem(n)) / static_cast<double>(info.mem_bytes));
    if (a.gpu > 0) {
      int64_t free = int64_t{kMilliPerUnit} * c.free_whole_gpus(n);
      if (!no_partial) {
        free = 0;
        for (int g = 0; g < info.gpus; ++g) free += c.gpu_free_milli(n, g);
      }
      x += a.gpu * (static_cast<double>(free) / (kMilliPerUnit * info.gpus));
    }
    return static_cast<int64_t>(x * 1e12 + 0.5);
  }

  // Most any node of bucket k (of any shape) could score: its GPU term at k
  // whole-free GPUs (all free without that knowledge) plus full CPU and
  // memory terms. In 1e-12 units, rounded up.
  int64_t BucketBound(int k, bool no_partial) const {
    double ub = 0;
    for (const Shares& a : shares_) {
      const int g = a.shape.gpus;
      const double gpu = g > 0 && no_partial ? a.gpu * std::min(k, g) / g : a.gpu;
      ub = std::max(ub, gpu + a.cpu + a.mem);
    }
    return static_cast<int64_t>(ub * 1e12) + 2;
  }

  // Exact most a node of bucket k could score (every GPU whole-free or fully
  // used): the shapes' scores at k whole-free GPUs and all CPU and memory
  // free. Alignment is nondecreasing in each free amount (every operation
  // is monotone), so no node of the bucket scores more. INT64_MAX: unknown.
  int64_t ExactBucketMax(int k) const {
    if (shapes_.empty()) return INT64_MAX;
    int64_t ub = INT64_MIN;
    for (const Shares& a : shares_) {
      if (a.shape.gpus < k) continue;  // a node of bucket k has >= k GPUs
      ub = std::max(ub,
                    ScoreAt(a, a.shape.cpu, a.shape.mem, GpuTerm(a, int64_t{kMilliPerUnit} * k)));
    }
    return ub == INT64_MIN ? INT64_MAX : ub;
  }
  // The GPU term of Alignment for `free` milli-GPU (0 without one).
  static double GpuTerm(const Shares& a, int64_t free) {
    return a.gpu > 0 ? a.gpu * (static_cast<double>(free) / (kMilliPerUnit * a.shape.gpus)) : 0.0;
  }
  // Alignment's arithmetic, operation for operation (equal to Alignment).
  static int64_t ScoreAt(const Shares& a, int64_t free_cpu, int64_t free_mem, double gpu_term) {
    double x = a.cpu * (static_cast<double>(free_cpu) / static_cast<double>(a.shape.cpu)) +
               a.mem * (static_cast<double>(free_mem) / static_cast<double>(a.shape.mem));
    if (a.gpu > 0) x += gpu_term;
    return static_cast<int64_t>(x * 1e12 + 0.5);
  }

  // The task's shares for n's shape, memoized on the last shape seen.
  const Shares& SharesOf(const TaskDemand& d, const NodeInfo& info) {
    const NodeShape shape{info.gpus, info.cpu_milli, info.mem_bytes};
    if (memo_ && memo_->shape == shape) return *memo_;
    memo_ = nullptr;
    for (const Shares& a : shares_)
      if (a.shape == shape) memo_ = &a;
    if (!memo_) {  // more shapes than listed: keep one for this node
      spare_ = SharesFor(d, shape);
      memo_ = &spare_;
    }
    // Multipliers of the prefilter (see Choose).
    memo_cpu_ = memo_->cpu / static_cast<double>(shape.cpu);
    memo_mem_ = memo_->mem / static_cast<double>(shape.mem);
    return *memo_;
  }

  // Every candidate of ForEachCandidate (buckets from the most whole-free
  // GPUs down), best score wins, ties to the lowest index; the same argmax as
  // scoring each candidate with Alignment. Cheaper:
  //  * a bucket is skipped when even full CPU and memory could not lift its
  //    GPU term to the best (BucketBound), and left as soon as the best
  //    reaches the exact most any of its nodes scores (ExactBucketMax; nodes
  //    come in index order, so a tie there loses too);
  //  * without partly used GPUs a node's score is computed exactly only when
  //    a prefilter with precomputed multipliers, within 1e-14 of the exact
  //    value, is not two units (2e-12) below the best.
  int64_t Choose(const TaskDemand& d, ModelMask mask, const ClusterState& c) {
    // No GPU partly used anywhere: a node's free GPU share is its whole-free
    // count (exact GPU terms per bucket, no per-GPU sums).
    const bool no_partial =
        c.allocated_gpu_milli() == kMilliPerUnit * (c.total_gpus() - c.whole_free_gpus_total());
    shares_.clear();
    for (const NodeShape& s : shapes_) shares_.push_back(SharesFor(d, s));
    if (no_partial && shares_.size() == 1) {
      // One node shape, every GPU whole-free or fully used: a node's score is
      // a function of its free whole GPUs, CPU and memory, nondecreasing in
      // each (a fractional task too: its GPU term counts the whole-free GPUs,
      // the only ones it can use), so the cluster's segment tree finds the
      // argmax by branch and bound (the same node, ties to the lowest index,
      // as scoring every candidate).
      const Shares& a = shares_[0];
      // The bound: the same sum with precomputed multipliers, within 1e-14
      // of the exact value (as the prefilter below), so two units above it
      // are above the exact score.
      const double rc = a.cpu / static_cast<double>(a.shape.cpu);
      const double rm = a.mem / static_cast<double>(a.shape.mem);
      const double rg = a.gpu > 0 ? a.gpu / static_cast<double>(a.shape.gpus) : 0.0;
      return c.FindMax(
          d, mask,
          [&a](int32_t whole, int64_t cpu, int64_t mem) {
            return ScoreAt(a, cpu, mem, GpuTerm(a, int64_t{kMilliPerUnit} * whole));
          },
          [=](int32_t whole, int64_t cpu, int64_t mem) {
            const double x = static_cast<double>(cpu) * rc + static_cast<double>(mem) * rm +
                             static_cast<double>(whole) * rg;
            return static_cast<int64_t>(x * 1e12) + 2;
          });
    }
    memo_ = nullptr;
    int64_t best = -1, best_score = INT64_MIN;
    double threshold = -HUGE_VAL;  // prefilter: below it, a node cannot reach the best
    auto take = [&](NodeIndex n, int64_t score) {
      if (score > best_score || (score == best_score && n < best)) {
        best = n;
        best_score = score;
        threshold = (static_cast<double>(best_score) - 2.0) * 1e-12;
      }
    };
    packing_internal::ForEachCandidateBucket(
        c, d, mask, /*descending=*/true, [&](int, int k, const NodeSet& nodes) {
          if (!shares_.empty() && BucketBound(k, no_partial) < best_score) return true;
          const int64_t top = no_partial ? ExactBucketMax(k) : INT64_MAX;
          for (NodeIndex n : nodes) {
            if (best_score > top || (best_score == top && best < static_cast<int64_t>(n))) break;
            if (!packing_internal::CandidateFits(c, d, mask, k, n)) continue;
            const NodeInfo& info = c.node(n);
            const Shares& a = SharesOf(d, info);
            if (!no_partial) {
              take(n, Alignment(c, n, a, false));
              continue;
            }
            // Here free GPU share = 1000 x k (node in bucket k).
            const int64_t fc = c.free_cpu(n), fm = c.free_mem(n);
            const double gpu = GpuTerm(a, int64_t{kMilliPerUnit} * k);
            const double approx = static_cast<double>(fc) * memo_cpu_ +
                                  static_cast<double>(fm) * memo_mem_ + (a.gpu > 0 ? gpu : 0.0);
            if (approx < threshold) continue;
            take(n, ScoreAt(a, fc, fm, gpu));
          }
          return true;
        });
    return best;
  }

  const Shares* memo_ = nullptr;
  double memo_cpu_ = 0, memo_mem_ = 0;
  std::vector<NodeShape> shapes_;
  std::vector<Shares> shares_;
  Shares spare_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeTetris() { return std::make_unique<Tetris>(); }

}  // namespace utilsim
