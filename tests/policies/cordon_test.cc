// Cordoned nodes (ClusterState::SetCordoned) get nothing new from any
// built-in placement policy, keep what they hold, and uncordoning restores
// the exact state (the live extender's candidate lists rely on it).
#include <gtest/gtest.h>

#include <string>

#include "random_mix.h"
#include "utilsim/engine/cluster_state.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

TEST(Cordon, NoPolicyPlacesOnACordonedNode) {
  const Workload w = mix::RandomJobs(5);
  for (const auto& info : BuiltinPolicies().List()) {
    if (info.kind != "placement") continue;
    SCOPED_TRACE(info.name);
    auto state = ClusterState::Build(mix::ThreeNodes());
    ASSERT_TRUE(state.ok());
    ClusterState& c = state.value();
    auto policy = BuiltinPolicies().MakePlacement(info.name, 3);
    ASSERT_TRUE(policy.ok()) << policy.status().message();
    policy.value()->Init(w);
    c.SetCordoned(1, true);
    int64_t placed = 0;
    for (const Job& j : w.jobs) {
      auto p = policy.value()->Place(j, kAnyModel, c);
      if (!p) continue;
      for (const TaskPlacement& t : *p) ASSERT_NE(t.node, 1u) << j.name;
      // Claim it (as a run would) so later jobs see fuller nodes.
      bool ok = true;
      for (const TaskPlacement& t : *p) ok = ok && c.Allocate(t, j.task).ok();
      ASSERT_TRUE(ok) << j.name;
      ++placed;
    }
    EXPECT_GT(placed, 0);
    EXPECT_EQ(c.free_whole_gpus(1), 4);  // nothing went to n-1
    TaskDemand cpu;
    cpu.gpus = 0;
    cpu.cpu_milli = 1;
    EXPECT_NE(c.FindFirst(1, cpu, kAnyModel), 1);  // the search skips n-1
  }
}

TEST(Cordon, KeepsWhatItHoldsAndUncordonRestores) {
  auto state = ClusterState::Build(mix::ThreeNodes());
  ASSERT_TRUE(state.ok());
  ClusterState& c = state.value();
  TaskDemand two;
  two.gpus = 2;
  two.cpu_milli = 4000;
  ASSERT_TRUE(c.Allocate({0, 0b11}, two).ok());
  c.SetCordoned(0, true);
  EXPECT_TRUE(c.cordoned(0));
  EXPECT_FALSE(c.CanHost(0, two, kAnyModel));
  EXPECT_EQ(c.FindFirst(0, two, kAnyModel), 1);
  // Releasing and allocating on a cordoned node still work (running jobs).
  c.Release({0, 0b11}, two);
  EXPECT_EQ(c.free_whole_gpus(0), 4);
  EXPECT_FALSE(c.CanHost(0, two, kAnyModel));
  ASSERT_TRUE(c.Allocate({0, 0b1100}, two).ok());
  EXPECT_EQ(c.allocated_gpu_milli(), 2000);
  c.SetCordoned(0, false);
  EXPECT_EQ(c.cordoned_count(), 0u);
  EXPECT_TRUE(c.CanHost(0, two, kAnyModel));
  EXPECT_EQ(c.FindFirst(0, two, kAnyModel), 0);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
