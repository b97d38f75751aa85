// The gang-locality score plugin and the topology-aware placement
// (framework.h): scores written out by hand.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "mixed_workload.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/composed_scheduler.h"
#include "utilsim/policies/framework.h"
#include "utilsim/policies/queue_policy.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;

// n-0..n-3 of 4 GPUs; racks r0 = {n-0, n-1}, r1 = {n-2, n-3} under core.
// Used GPUs: n-0 2, n-1 4, n-2 2, n-3 0.
ClusterState Cluster() {
  ClusterSpec s;
  s.name = "g";
  s.models = {{"A", 16 * kGiB, 1.0}};
  s.groups = {{"n", 4, "A", 4, 64000, 256 * kGiB, 0}};
  s.topology.racks = {{"r0", "", {"n-0", "n-1"}, 1.0, ""}, {"r1", "", {"n-2", "n-3"}, 1.0, ""}};
  ClusterState c = ClusterState::Build(s).value();
  TaskDemand two, four;
  two.gpus = 2;
  four.gpus = 4;
  EXPECT_TRUE(c.Allocate({0, 0b0011}, two).ok());
  EXPECT_TRUE(c.Allocate({1, 0b1111}, four).ok());
  EXPECT_TRUE(c.Allocate({2, 0b0011}, two).ok());
  return c;
}

Job Gang(int tasks, int gpus) {
  Job j;
  j.name = "g";
  j.tasks = tasks;
  j.task.gpus = gpus;
  j.task.cpu_milli = 1000;
  j.task.mem_bytes = kGiB;
  return j;
}

std::vector<NodeIndex> Nodes(const Placement& p) {
  std::vector<NodeIndex> out;
  for (const auto& tp : p) out.push_back(tp.node);
  return out;
}

TEST(GangLocality, ScoresByHand) {
  ClusterState c = Cluster();
  auto plugin = MakeGangLocality();
  TaskDemand d = Gang(3, 2).task;
  // First task of 3: tasks that fit now: n-0 1, n-1 0, n-2 1, n-3 2; no node
  // takes 3; rack r1 takes 1 + 2 = 3 (75), r0 only 1 (0).
  plugin->Prepare({}, 2, d, c);
  EXPECT_EQ(plugin->Score(0, d, c), 0);
  EXPECT_EQ(plugin->Score(2, d, c), 75);
  EXPECT_EQ(plugin->Score(3, d, c), 75);
  // A gang of 2 fits on n-3 alone: 100 there.
  plugin->Prepare({}, 1, d, c);
  EXPECT_EQ(plugin->Score(3, d, c), 100);
  EXPECT_EQ(plugin->Score(2, d, c), 75);
  // Later tasks: 100 - 25 x distance to the nearest placed task.
  plugin->Prepare({{2, 0b1100}}, 1, d, c);
  EXPECT_EQ(plugin->Score(2, d, c), 100);
  EXPECT_EQ(plugin->Score(3, d, c), 75);
  EXPECT_EQ(plugin->Score(0, d, c), 50);
  // A single task: 100 everywhere (no effect).
  plugin->Prepare({}, 0, d, c);
  EXPECT_EQ(plugin->Score(0, d, c), 100);
}

TEST(GangLocality, TopologyAwareKeepsTheGangInOneRack) {
  // 3 tasks x 2 GPUs. Best fit alone: n-0 (0 left, lowest index), n-2, n-3:
  // two racks. Topology-aware (locality + best fit, max 4 GPUs a node):
  //  task 1: n-2 75 + (4 - 0) = 79, n-3 75 + 2 = 77, n-0 0 + 4 = 4 -> n-2
  //  task 2: n-3 75 + 2 = 77, n-0 50 + 4 = 54 (n-2 is full)          -> n-3
  //  task 3: n-3 100 + 4 = 104, n-0 50 + 4 = 54                      -> n-3
  ClusterState c = Cluster();
  auto best = BuiltinPolicies().MakePlacement("best-fit").value();
  auto topo = BuiltinPolicies().MakePlacement("topology-aware").value();
  EXPECT_EQ(Nodes(*best->Place(Gang(3, 2), kAnyModel, c)), (std::vector<NodeIndex>{0, 2, 3}));
  auto p = topo->Place(Gang(3, 2), kAnyModel, c);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(Nodes(*p), (std::vector<NodeIndex>{2, 3, 3}));
  EXPECT_EQ(c.topology().Assess(*p).level, 3);  // one rack
  // The reserve loop left the cluster as it was.
  EXPECT_EQ(c.free_whole_gpus(3), 4);
  // A gang that cannot fit at all: nothing.
  EXPECT_FALSE(topo->Place(Gang(5, 2), kAnyModel, c).has_value());
  // One task: locality is flat, best fit decides (n-0, lowest of the 0-left).
  EXPECT_EQ(Nodes(*topo->Place(Gang(1, 2), kAnyModel, c)), (std::vector<NodeIndex>{0}));
}

// With exactly the filters resources-fit and gpu-model, FrameworkPlacement
// finds candidates through the cluster's index (FindFirst) instead of
// scanning every node: the same nodes in the same order, so the same
// choices. A third filter that passes everything turns the scan back on;
// both give the same run, gangs and single tasks, on a queued workload.
class PassAll final : public FilterPlugin {
 public:
  std::string name() const override { return "pass-all"; }
  bool Pass(NodeIndex, const TaskDemand&, ModelMask, const ClusterState&) const override {
    return true;
  }
};

std::unique_ptr<PlacementPolicy> Profile(bool scan) {
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(MakeFilterPlugin("gpu-model"));
  filters.push_back(MakeFilterPlugin("resources-fit"));
  if (scan) filters.push_back(std::make_unique<PassAll>());
  std::vector<WeightedScore> scores;
  scores.push_back({MakeGangLocality(), 1});
  scores.push_back({MakeScorePlugin("gpu-least-leftover"), 2});
  return std::make_unique<FrameworkPlacement>("p", "1", std::move(filters), std::move(scores));
}

TEST(FrameworkPlacement, IndexedCandidatesChooseWhatTheScanChooses) {
  testutil::MixedWorkloadShape shape;
  shape.jobs = 500;
  shape.submit_span_s = 2000;
  shape.gang_one_in = 3;
  shape.pin_model_a_one_in = 4;
  const Workload w = testutil::RandomMixedWorkload(shape);
  ClusterSpec c = testutil::MixedCluster();
  c.topology.racks = {{"r0", "", {"a-0", "a-1", "b-0"}, 1.0, ""},
                      {"r1", "", {"a-2", "b-1"}, 1.0, ""}};
  RunResult runs[2];
  for (int k = 0; k < 2; ++k) {
    ComposedScheduler sched("p", MakeFifoSkipQueue(), Profile(k == 1));
    auto r = Simulate(c, w, sched, SimConfig{});
    ASSERT_TRUE(r.ok()) << r.status().message();
    runs[k] = std::move(r).value();
  }
  int64_t gangs = 0, waited = 0;
  for (size_t j = 0; j < runs[0].jobs.size(); ++j) {
    EXPECT_EQ(runs[0].jobs[j].placement, runs[1].jobs[j].placement) << j;
    EXPECT_EQ(runs[0].jobs[j].start, runs[1].jobs[j].start) << j;
    gangs += w.jobs[j].tasks > 1;
    waited += runs[0].jobs[j].wait_s() > 0;
  }
  EXPECT_GT(gangs, 100);
  EXPECT_GT(waited, 100);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
