// Tetris alignment placement (Grandl et al., SIGCOMM'14): the node whose free
// resources line up best with the task's demand. Formula in packing.h and
// docs/packing.md.
//
// Search: every candidate (ForEachCandidate, pristine duplicates skipped) is
// scored; buckets are visited from the most whole-free GPUs down and a
// bucket is skipped when even full CPU and memory could not lift its GPU
// term to the best so far. (A FindFirst sweep with per-resource floors, as
// E-PVM uses, was slower here: the three terms trade off linearly, so the
// per-resource floors prune little.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "utilsim/policies/packing.h"

namespace utilsim {
namespace {

using packing_internal::NodeShape;

class Tetris final : public PlacementPolicy {
 public:
  static constexpr size_t kMaxShapes = 64;

  PolicyId id() const override { return {"tetris", "1"}; }

  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    shapes_ = packing_internal::DistinctShapes(c, kMaxShapes);
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
      a.gpu = static_cast<double>(d.total_gpu_milli()) / (1000.0 * s.gpus);
    return a;
  }

  // sum_r (d_r / cap_r)(free_r / cap_r), free before placing, in 1e-12
  // units rounded half up (equal node states give equal scores).
  static int64_t Alignment(const ClusterState& c, NodeIndex n, const Shares& a, bool no_partial) {
    const NodeInfo& info = c.node(n);
    double x = a.cpu * (static_cast<double>(c.free_cpu(n)) / static_cast<double>(info.cpu_milli)) +
               a.mem * (static_cast<double>(c.free_mem(n)) / static_cast<double>(info.mem_bytes));
    if (a.gpu > 0) {
      int64_t free = int64_t{1000} * c.free_whole_gpus(n);
      if (!no_partial) {
        free = 0;
        for (int g = 0; g < info.gpus; ++g) free += c.gpu_free_milli(n, g);
      }
      x += a.gpu * (static_cast<double>(free) / (1000.0 * info.gpus));
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

  int64_t Choose(const TaskDemand& d, ModelMask mask, const ClusterState& c) {
    // No GPU partly used anywhere: a node's free GPU share is its whole-free
    // count (exact GPU terms per bucket, no per-GPU sums).
    const bool no_partial =
        c.allocated_gpu_milli() == 1000 * (c.total_gpus() - c.whole_free_gpus_total());
    shares_.clear();
    for (const NodeShape& s : shapes_) shares_.push_back(SharesFor(d, s));
    const Shares* memo = nullptr;
    int64_t best = -1, best_score = INT64_MIN;
    ForEachCandidate(
        c, d, mask, /*dedup_pristine=*/true, /*descending=*/true,
        [&](int, int k) { return shares_.empty() || BucketBound(k, no_partial) >= best_score; },
        [&](NodeIndex n) {
          const NodeInfo& info = c.node(n);
          const NodeShape shape{info.gpus, info.cpu_milli, info.mem_bytes};
          if (!memo || memo->shape != shape) {
            memo = nullptr;
            for (const Shares& a : shares_)
              if (a.shape == shape) memo = &a;
            if (!memo) {  // more shapes than listed: keep one for this node
              spare_ = SharesFor(d, shape);
              memo = &spare_;
            }
          }
          const int64_t score = Alignment(c, n, *memo, no_partial);
          if (score > best_score || (score == best_score && n < best)) {
            best = n;
            best_score = score;
          }
          return true;
        });
    return best;
  }

  std::vector<NodeShape> shapes_;
  std::vector<Shares> shares_;
  Shares spare_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeTetris() { return std::make_unique<Tetris>(); }

}  // namespace utilsim
