// The gang-locality score plugin (framework.h): keeps a gang's tasks close
// in the cluster topology.
#include <algorithm>
#include <vector>

#include "utilsim/policies/framework.h"
#include "utilsim/policies/placement_policy.h"

namespace utilsim {
namespace {

class GangLocality final : public ScorePlugin {
 public:
  std::string name() const override { return "gang-locality"; }
  bool gang_aware() const override { return true; }

  void Prepare(const Placement& placed, int32_t tasks_after, const TaskDemand& d,
               const ClusterState& c) override {
    placed_.clear();
    for (const auto& tp : placed)
      if (std::find(placed_.begin(), placed_.end(), tp.node) == placed_.end())
        placed_.push_back(tp.node);
    want_ = tasks_after + 1;
    rack_fits_.clear();
    if (!placed.empty() || want_ == 1) return;
    // First task of a gang: how many tasks each rack could take now.
    const Topology& topo = c.topology();
    rack_fits_.assign(topo.num_racks(), 0);
    for (NodeIndex n = 0; n < c.num_nodes(); ++n) rack_fits_[topo.rack_of(n)] += Fits(n, d, c);
  }

  int64_t Score(NodeIndex n, const TaskDemand& d, const ClusterState& c) const override {
    const Topology& topo = c.topology();
    if (placed_.empty()) {
      if (want_ == 1 || Fits(n, d, c) >= want_) return 100;
      return rack_fits_[topo.rack_of(n)] >= want_ ? 75 : 0;
    }
    int32_t dist = INT32_MAX;
    for (NodeIndex p : placed_) dist = std::min(dist, topo.NodeDistance(n, p));
    return std::max<int64_t>(0, 100 - 25 * int64_t{dist});
  }

 private:
  // Whole tasks of d that node n could take now.
  static int64_t Fits(NodeIndex n, const TaskDemand& d, const ClusterState& c) {
    int64_t k = INT64_MAX;
    if (d.gpus > 0 && !d.fractional()) k = c.free_whole_gpus(n) / d.gpus;
    if (d.cpu_milli > 0) k = std::min(k, c.free_cpu(n) / d.cpu_milli);
    if (d.mem_bytes > 0) k = std::min(k, c.free_mem(n) / d.mem_bytes);
    return k == INT64_MAX ? 1 : k;
  }

  std::vector<NodeIndex> placed_;
  int32_t want_ = 1;
  std::vector<int64_t> rack_fits_;
};

}  // namespace

std::unique_ptr<ScorePlugin> MakeGangLocality() { return std::make_unique<GangLocality>(); }

namespace {

// Single-task jobs: the indexed best fit (locality is flat for them, and the
// framework's best-fit profile chooses the same nodes, tested). Gangs: the
// framework profile with gang locality.
class TopologyAware final : public PlacementPolicy {
 public:
  TopologyAware() : single_(MakeBestFit()) {
    std::vector<std::unique_ptr<FilterPlugin>> filters;
    filters.push_back(MakeFilterPlugin("resources-fit"));
    filters.push_back(MakeFilterPlugin("gpu-model"));
    std::vector<WeightedScore> scores;
    scores.push_back({MakeGangLocality(), 1});
    scores.push_back({MakeScorePlugin("gpu-least-leftover"), 1});
    gang_ = std::make_unique<FrameworkPlacement>("topology-aware", "1", std::move(filters),
                                                 std::move(scores));
  }
  PolicyId id() const override { return {"topology-aware", "1"}; }
  void Init(const Workload& w) override {
    single_->Init(w);
    gang_->Init(w);
  }
  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    return job.tasks == 1 ? single_->Place(job, mask, c) : gang_->Place(job, mask, c);
  }

 private:
  std::unique_ptr<PlacementPolicy> single_, gang_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> MakeTopologyAware() { return std::make_unique<TopologyAware>(); }

}  // namespace utilsim
