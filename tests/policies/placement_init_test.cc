// Every scheduler passes the workload to its placement before the run
// (PlacementPolicy::Init: FGD's task classes, the MIG planner's job index).
// Tiresias and priority-preempt did not.
#include <gtest/gtest.h>

#include <memory>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

struct Probe final : PlacementPolicy {
  explicit Probe(const Workload** seen) : seen_(seen) {}
  PolicyId id() const override { return {"probe", "1"}; }
  void Init(const Workload& w) override { *seen_ = &w; }
  std::optional<Placement> Place(const Job&, ModelMask, ClusterState&) override {
    return std::nullopt;
  }
  const Workload** seen_;
};

TEST(PlacementInit, EverySchedulerCallsIt) {
  ClusterSpec spec;
  spec.name = "c";
  spec.models = {{"G", 16LL << 30, 1.0}};
  spec.groups = {{"n", 1, "G", 2, 16000, 64LL << 30, 0}};
  auto cluster = ClusterState::Build(spec);
  ASSERT_TRUE(cluster.ok());
  Workload w;
  const Workload* seen = nullptr;
  PolicyRegistry reg = BuiltinPolicies();
  ASSERT_TRUE(reg.AddPlacement({"probe", "placement", "", "test probe"},
                               [&seen] { return std::make_unique<Probe>(&seen); })
                  .ok());
  int queues = 0;
  for (const PolicyInfo& info : reg.List()) {
    if (info.kind != "queue") continue;
    ++queues;
    seen = nullptr;
    auto s = reg.Make(info.name + "+probe");
    ASSERT_TRUE(s.ok()) << info.name << ": " << s.status().message();
    ASSERT_TRUE(s.value()->Init(cluster.value(), w).ok()) << info.name;
    EXPECT_EQ(seen, &w) << info.name;
  }
  EXPECT_GE(queues, 8);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
