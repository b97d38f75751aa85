// The FGD simulator's score plugins (fgd_sim.h), each score hand-computed
// from the plugin's formula on small clusters; the typical-class cut and the
// random node order.
#include "utilsim/policies/fgd_sim.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;

// `nodes` nodes of 8 GPUs (model A), 96 cores, 512 GiB.
ClusterState Build(int nodes) {
  ClusterSpec s;
  s.name = "t";
  s.models = {{"A", 32 * kGiB, 1.0}};
  s.groups = {NodeGroup{"a", nodes, "A", 8, 96000, 512 * kGiB}};
  return ClusterState::Build(s).value();
}

Job Pod(int gpus, int milli = 1000, int64_t cpu = 8000) {
  Job j;
  j.tasks = 1;
  j.task.gpus = gpus;
  j.task.gpu_milli = milli;
  j.task.cpu_milli = cpu;
  j.task.mem_bytes = kGiB;
  return j;
}

void Take(ClusterState& c, NodeIndex n, uint64_t gpus, const Job& j) {
  ASSERT_TRUE(c.Allocate({n, gpus}, j.task).ok());
}

// n0 idle; n1 GPU0 at 400 free (a 0.6 share, 8 cores); n2 GPU0 fully used
// (a whole GPU, 8 cores).
ClusterState ThreeNodes() {
  ClusterState c = Build(3);
  Take(c, 1, 0b1, Pod(1, 600));
  Take(c, 2, 0b1, Pod(1));
  return c;
}

std::unique_ptr<PlacementPolicy> Make(FgdSimScore s, std::vector<uint32_t> ranks = {}) {
  return MakeFgdSim({.score = s, .seed = 7, .tie_rank = std::move(ranks)});
}

// getPackingScore: n0 every GPU free: max(33 - 8, 8) = 25; n1 for a 0.3
// share: its 400-free GPU (least free first) is not whole-free, so
// max(100 - (400 x 100 / 1000) / 10, 50) = 96; n2: the smallest fitting GPU
// is whole-free: max(50 - 1, 33) = 49. A 0.5 share fits no shared GPU: n1
// and n2 both score 49 and the tie rank decides.
TEST(FgdSim, GpuPackingScores) {
  ClusterState c = ThreeNodes();
  auto p = Make(FgdSimScore::kGpuPacking);
  auto a = p->Place(Pod(1, 300), kAnyModel, c);
  ASSERT_TRUE(a);
  EXPECT_EQ((*a)[0].node, 1u);
  EXPECT_EQ((*a)[0].gpu_mask, 0b1u) << "the GPU with 400 free (best fit)";
  auto b = p->Place(Pod(1, 500), kAnyModel, c);
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)[0].node, 1u) << "49 = 49: lowest index";
  EXPECT_EQ((*b)[0].gpu_mask, 0b10u) << "the lowest whole-free GPU";
  auto ranked = Make(FgdSimScore::kGpuPacking, {2, 1, 0});
  auto r = ranked->Place(Pod(1, 500), kAnyModel, c);
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0].node, 2u) << "49 = 49: lowest rank";
  // An 8-GPU pod fits only n0.
  auto w = p->Place(Pod(8), kAnyModel, c);
  ASSERT_TRUE(w);
  EXPECT_EQ((*w)[0].node, 0u);
  EXPECT_EQ((*w)[0].gpu_mask, 0xFFu);
}

// DotProd (merge, max), a 1-GPU pod of 8 cores:
//  n0: 96000/128000 x 8000/128000 + 8000/8000 x 1000/8000 = 0.171875
//      -> trunc(100 (1 - 0.171875 / 2)) = 91;
//  n2: 88000/128000 x 0.0625 + 7000/8000 x 0.125 = 0.15234375 -> 92;
//  n1: 88000/128000 x 0.0625 + 7400/8000 x 0.125 = 0.15859375 -> 92.
// n1 and n2 tie at 92 (the lowest index, n1, wins), n0 loses.
TEST(FgdSim, DotProdScores) {
  ClusterState c = ThreeNodes();
  auto a = Make(FgdSimScore::kDotProd)->Place(Pod(1), kAnyModel, c);
  ASSERT_TRUE(a);
  EXPECT_EQ((*a)[0].node, 1u);
  auto b = Make(FgdSimScore::kDotProd, {0, 2, 1})->Place(Pod(1), kAnyModel, c);
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)[0].node, 2u) << "92 = 92: n2 has the lower rank";
}

// BestFit, a 1-GPU pod of 8 cores, s = 0.5 (cpu left - 8000) / 128000 +
// 0.5 (GPU left - 1000) / 8000, score trunc(100 (1 - s)):
//  n0: 0.34375 + 0.4375 = 0.78125 -> 21; n1: 0.3125 + 0.4 = 0.7125 -> 28;
//  n2: 0.3125 + 0.375 = 0.6875 -> 31 (wins).
TEST(FgdSim, BestFitScores) {
  ClusterState c = ThreeNodes();
  auto a = Make(FgdSimScore::kBestFit)->Place(Pod(1), kAnyModel, c);
  ASSERT_TRUE(a);
  EXPECT_EQ((*a)[0].node, 2u);
  EXPECT_EQ((*a)[0].gpu_mask, 0b10u);
  // A 0.5 share: GPU left - 500 on n2 is 6500 -> 0.3125 + 0.40625 ->
  // trunc(28.125) = 28; n1: 0.3125 + 0.43125 -> 25; n0: 0.34375 + 0.46875
  // -> 18. n2, on its lowest-free fitting GPU (GPU1, 1000 free).
  auto b = Make(FgdSimScore::kBestFit)->Place(Pod(1, 500), kAnyModel, c);
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)[0].node, 2u);
}

// GpuClustering: base = 25 (8000 - GPU left) / 8000 (integers). After a
// 1-GPU pod on n1 of a fresh 2-node cluster, n1 runs {1-gpu}:
//  another 1-GPU pod: n1 = 25 x 1000 / 8000 (3) + 75 = 78, n0 = 0 + 25;
//  then a share pod: n1 = 25 x 2000 / 8000 (6) + 0 (only another kind),
//  n0 = 25: n0.
TEST(FgdSim, GpuClusteringTiers) {
  ClusterState c = Build(2);
  auto p = Make(FgdSimScore::kGpuClustering, {1, 0});  // n1 first among ties
  auto first = p->Place(Pod(1), kAnyModel, c);
  ASSERT_TRUE(first);
  EXPECT_EQ((*first)[0].node, 1u) << "both idle (25): the lower rank";
  Take(c, 1, (*first)[0].gpu_mask, Pod(1));
  auto same = p->Place(Pod(1), kAnyModel, c);
  ASSERT_TRUE(same);
  EXPECT_EQ((*same)[0].node, 1u);
  Take(c, 1, (*same)[0].gpu_mask, Pod(1));
  auto share = p->Place(Pod(1, 500), kAnyModel, c);
  ASSERT_TRUE(share);
  EXPECT_EQ((*share)[0].node, 0u);
}

// FGD with one typical class (1 whole GPU, 1 core): F_n = the free share of
// GPUs that cannot take a whole GPU. A 0.3 share on n1's 400-free GPU: F
// 400 -> 100, score trunc(100 sigmoid(0.3)) = 57; on an idle node's GPU: F
// 0 -> 700, trunc(100 sigmoid(-0.7)) = 33; on n1's whole-free GPU: F 400 ->
// 1100, 33. n1 and its GPU0.
TEST(FgdSim, FgdScoreAndGpuChoice) {
  ClusterState c = ThreeNodes();
  Workload w;
  for (int i = 0; i < 3; ++i) w.jobs.push_back(Pod(1, 1000, 1000));
  auto p = Make(FgdSimScore::kFgd);
  p->Init(w);
  auto a = p->Place(Pod(1, 300), kAnyModel, c);
  ASSERT_TRUE(a);
  EXPECT_EQ((*a)[0].node, 1u);
  EXPECT_EQ((*a)[0].gpu_mask, 0b1u);
  // A whole GPU changes no F anywhere (50 everywhere): the lowest rank.
  auto ranked = Make(FgdSimScore::kFgd, {2, 1, 0});
  ranked->Init(w);
  auto b = ranked->Place(Pod(1), kAnyModel, c);
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)[0].node, 2u);
}

// Random: a uniform node among the feasible ones, reproducible by seed.
TEST(FgdSim, RandomIsUniformAndSeeded) {
  ClusterState c = Build(4);
  auto p = MakeFgdSim({.score = FgdSimScore::kRandom, .seed = 3});
  std::vector<int> hits(4);
  for (int i = 0; i < 4000; ++i) ++hits[(*p->Place(Pod(1, 500), kAnyModel, c))[0].node];
  for (int h : hits) EXPECT_NEAR(h, 1000, 150);
  auto q = MakeFgdSim({.score = FgdSimScore::kRandom, .seed = 3});
  auto r = MakeFgdSim({.score = FgdSimScore::kRandom, .seed = 3});
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(*q->Place(Pod(1, 500), kAnyModel, c), *r->Place(Pod(1, 500), kAnyModel, c));
}

// GetTypicalPods' cut: counts 50, 30, 15, 5 (of 100): 95 % keeps three
// classes (50 + 30 + 15 reaches 95), 96 % all four. Equal counts: the
// larger CPU first.
TEST(FgdSim, TypicalClassesCut) {
  Workload w;
  auto add = [&](int n, int gpus, int milli, int64_t cpu) {
    for (int i = 0; i < n; ++i) w.jobs.push_back(Pod(gpus, milli, cpu));
  };
  add(50, 1, 500, 4000);
  add(30, 1, 1000, 8000);
  add(15, 0, 1000, 2000);
  add(5, 2, 1000, 16000);
  const TaskClassDist d95 = FgdSimTypicalClasses(w, 95);
  ASSERT_EQ(d95.classes.size(), 3u);
  EXPECT_EQ(d95.classes[0].weight, 50);
  EXPECT_EQ(d95.classes[0].demand.gpu_milli, 500);
  EXPECT_EQ(d95.classes[2].demand.gpus, 0) << "CPU-only pods are typical pods too";
  EXPECT_EQ(d95.classes[2].demand.mem_bytes, 0) << "memory is not a dimension";
  EXPECT_EQ(FgdSimTypicalClasses(w, 96).classes.size(), 4u);
  Workload tie;
  for (int i = 0; i < 2; ++i) tie.jobs.push_back(Pod(1, 1000, 1000));
  for (int i = 0; i < 2; ++i) tie.jobs.push_back(Pod(1, 1000, 3000));
  const TaskClassDist t = FgdSimTypicalClasses(tie, 50);
  ASSERT_EQ(t.classes.size(), 1u);
  EXPECT_EQ(t.classes[0].demand.cpu_milli, 3000);
}

TEST(FgdSim, RandomRanksArePermutationsBySeed) {
  std::vector<uint32_t> a = FgdSimRandomRanks(100, 42), b = FgdSimRandomRanks(100, 42),
                        c = FgdSimRandomRanks(100, 43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::sort(a.begin(), a.end());
  std::vector<uint32_t> id(100);
  std::iota(id.begin(), id.end(), 0u);
  EXPECT_EQ(a, id);
}

TEST(FgdSim, RegisteredByName) {
  PolicyRegistry reg = BuiltinPolicies();
  for (const char* n : {"fgdsim-random", "fgdsim-dotprod", "fgdsim-gpu-clustering",
                        "fgdsim-gpu-packing", "fgdsim-best-fit", "fgdsim-fgd"}) {
    auto p = reg.MakePlacement(n, 1);
    ASSERT_TRUE(p.ok()) << n;
    EXPECT_EQ(p.value()->id().name, n);
    EXPECT_EQ(FgdSimScoreOf(n).has_value(), true);
  }
  EXPECT_FALSE(FgdSimScoreOf("fgd").has_value());
  EXPECT_FALSE(FgdSimScoreOf("fgdsim-nope").has_value());
}

// In a simulation the clustering ledger is the running jobs (rebuilt at
// every pass), not every placement ever made: a 1-GPU job A on a-0 (t 0..10
// s); a share job C at t 5 sees a-0 running {1-gpu} (25 x 1000 / 8000 + 0 =
// 3) against the idle a-1 (25): a-1; a share job B at t 100, when both have
// finished, sees two idle nodes (25 each) and takes the lowest index, a-0.
// With a ledger that never forgot A, B would go to a-1 as C did.
TEST(FgdSim, ClusteringLedgerFollowsRunningJobs) {
  ClusterSpec s;
  s.name = "t";
  s.models = {{"A", 32 * kGiB, 1.0}};
  s.groups = {NodeGroup{"a", 2, "A", 8, 96000, 512 * kGiB}};
  Workload w;
  auto add = [&](const char* name, int milli, int64_t submit_s) {
    Job j = Pod(1, milli);
    j.name = name;
    j.submit = Seconds(submit_s);
    j.runtime = Seconds(10);
    w.jobs.push_back(j);
  };
  add("A", 1000, 0);
  add("C", 500, 5);
  add("B", 500, 100);
  w.Finalize();
  auto sched = BuiltinPolicies().Make("fgdsim-gpu-clustering");
  ASSERT_TRUE(sched.ok()) << sched.status().message();
  auto r = Simulate(s, w, *sched.value(), SimConfig{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().jobs.size(), 3u);
  EXPECT_EQ(r.value().jobs[0].placement, "a-0:0");
  EXPECT_EQ(r.value().jobs[1].placement, "a-1:0");
  EXPECT_EQ(r.value().jobs[2].placement, "a-0:0");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
