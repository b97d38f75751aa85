// Random placement (packing.h): seeded and deterministic, uniform over the
// feasible nodes, never an infeasible one; and the candidate search it uses.
#include <gtest/gtest.h>

#include <map>

#include "utilsim/policies/packing.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;

ClusterState Build(const std::vector<NodeGroup>& groups) {
  ClusterSpec s;
  s.name = "t";
  s.models = {{"A", 32 * kGiB, 1.0}, {"B", 16 * kGiB, 1.0}};
  s.groups = groups;
  return ClusterState::Build(s).value();
}

Job Task(int gpus, int64_t cpu = 1000) {
  Job j;
  j.task.gpus = gpus;
  j.task.cpu_milli = cpu;
  j.task.mem_bytes = kGiB;
  return j;
}

std::vector<NodeIndex> Draws(uint64_t seed, int n, ClusterState& c, const Job& j) {
  auto p = MakeRandomPlacement(seed);
  std::vector<NodeIndex> out;
  for (int i = 0; i < n; ++i) out.push_back((*p->Place(j, kAnyModel, c))[0].node);
  return out;
}

TEST(RandomPlacement, SameSeedSameChoices) {
  ClusterState c = Build({{"n", 6, "A", 4, 32000, 128 * kGiB, 0}});
  EXPECT_EQ(Draws(7, 50, c, Task(1)), Draws(7, 50, c, Task(1)));
  EXPECT_NE(Draws(7, 50, c, Task(1)), Draws(8, 50, c, Task(1)));
  // Init starts the stream again: a reused policy repeats its run.
  auto p = MakeRandomPlacement(7);
  std::vector<NodeIndex> a, b;
  for (int i = 0; i < 20; ++i) a.push_back((*p->Place(Task(1), kAnyModel, c))[0].node);
  p->Init(Workload{});
  for (int i = 0; i < 20; ++i) b.push_back((*p->Place(Task(1), kAnyModel, c))[0].node);
  EXPECT_EQ(a, b);
  EXPECT_EQ(p->id().name, "random");
}

// The registry builds "random" from the run's seed (utilsim --seed).
TEST(RandomPlacement, RegistryPassesTheRunSeed) {
  ClusterState c = Build({{"n", 6, "A", 4, 32000, 128 * kGiB, 0}});
  auto draws = [&](uint64_t seed) {
    auto p = BuiltinPolicies().MakePlacement("random", seed).value();
    std::vector<NodeIndex> out;
    for (int i = 0; i < 30; ++i) out.push_back((*p->Place(Task(1), kAnyModel, c))[0].node);
    return out;
  };
  EXPECT_EQ(draws(5), Draws(5, 30, c, Task(1)));
  EXPECT_EQ(draws(6), Draws(6, 30, c, Task(1)));
  EXPECT_NE(draws(5), draws(6));
  EXPECT_TRUE(BuiltinPolicies().Make("fifo+random", 6).ok());
}

// Four nodes can host a 2-GPU task (n1 has one whole GPU left, n3 lacks
// CPU): each of n0, n2, n4, n5 near 1/4 of 8000 draws, the others never.
TEST(RandomPlacement, UniformOverFeasibleNodes) {
  ClusterState c = Build({{"n", 6, "A", 4, 32000, 128 * kGiB, 0}});
  TaskDemand three;
  three.gpus = 3;
  ASSERT_TRUE(c.Allocate({1, 0b0111}, three).ok());
  TaskDemand cpu;
  cpu.cpu_milli = 31500;
  ASSERT_TRUE(c.Allocate({3, 0}, cpu).ok());
  std::map<NodeIndex, int> count;
  for (NodeIndex n : Draws(99, 8000, c, Task(2))) ++count[n];
  EXPECT_EQ(count.count(1), 0u);
  EXPECT_EQ(count.count(3), 0u);
  for (NodeIndex n : {0u, 2u, 4u, 5u}) {
    EXPECT_GT(count[n], 1800) << n;  // expectation 2000, sd ~39
    EXPECT_LT(count[n], 2200) << n;
  }
}

// The candidate search: feasible nodes only, by model then whole-free count
// then index; pristine duplicates dropped on request.
TEST(CollectCandidates, FeasibleOrderedAndDeduplicated) {
  ClusterState c = Build({{"a", 3, "A", 4, 32000, 128 * kGiB, 0},
                          {"b", 2, "B", 4, 32000, 128 * kGiB, 0},
                          {"cpu", 1, "", 0, 32000, 128 * kGiB, 0}});
  TaskDemand one;
  one.gpus = 1;
  ASSERT_TRUE(c.Allocate({1, 0b0001}, one).ok());  // n1: 3 whole-free
  std::vector<NodeIndex> out;
  CollectCandidates(c, Task(1).task, kAnyModel, false, &out);
  EXPECT_EQ(out, (std::vector<NodeIndex>{1, 0, 2, 3, 4}));
  CollectCandidates(c, Task(1).task, kAnyModel, true, &out);
  EXPECT_EQ(out, (std::vector<NodeIndex>{1, 0, 3}));  // n2 = n0, n4 = n3
  CollectCandidates(c, Task(0).task, kAnyModel, true, &out);
  EXPECT_EQ(out, (std::vector<NodeIndex>{5, 1, 0, 3}));  // CPU-only nodes first
  CollectCandidates(c, Task(4).task, c.ResolveModels({"A"}), false, &out);
  EXPECT_EQ(out, (std::vector<NodeIndex>{0, 2}));
  CollectCandidates(c, Task(1, 40000).task, kAnyModel, false, &out);
  EXPECT_TRUE(out.empty());
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
