// MigProgress (mig_progress.h): a job on a MIG instance runs at the MIG speed
// model's speed; whole GPUs and 7g instances are unchanged. Expected values
// are computed by hand with the defaults w = 0.41, u_sat = 0.44:
//   capacity s = 1 / (0.59 x 7 / compute + 0.41 x 8 / memory)
//   1g (1, 1): 1 / (4.13 + 3.28)        = 1 / 7.41      = 0.134953
//   3g (3, 4): 1 / (1.376667 + 0.82)    = 1 / 2.196667  = 0.455235
//   util 0.3: demand 0.3 / 0.44 = 0.681818; speed = min(1, s / demand):
//   1g 0.197931, 3g 0.667678; util 0.05: demand 0.113636, 1g speed 1.
#include "utilsim/engine/mig_progress.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/mig.h"
#include "utilsim/engine/mig_cluster.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;

TEST(MigSpeedModel, HandComputedH100) {
  const mig::GpuModel* m = mig::FindGpuModel("H100-80GB");
  ASSERT_NE(m, nullptr);
  const mig::Profile& p1 = m->profiles[static_cast<size_t>(m->FindProfile("1g.10gb"))];
  const mig::Profile& p3 = m->profiles[static_cast<size_t>(m->FindProfile("3g.40gb"))];
  const mig::Profile& p7 = m->profiles[static_cast<size_t>(m->FindProfile("7g.80gb"))];
  const mig::MigSpeedParams d;
  EXPECT_NEAR(mig::MigCapacity(p1, d.memory_weight), 0.134953, 1e-6);
  EXPECT_NEAR(mig::MigCapacity(p3, d.memory_weight), 0.455235, 1e-6);
  EXPECT_DOUBLE_EQ(mig::MigCapacity(p7, d.memory_weight), 1.0);
  EXPECT_NEAR(mig::MigDemandFromUtil(0.3, d), 0.681818, 1e-6);
  EXPECT_NEAR(mig::MigSpeed(p1, mig::MigDemandFromUtil(0.3, d), d), 0.197931, 1e-6);
  EXPECT_NEAR(mig::MigSpeed(p3, mig::MigDemandFromUtil(0.3, d), d), 0.667678, 1e-6);
  EXPECT_DOUBLE_EQ(mig::MigSpeed(p1, mig::MigDemandFromUtil(0.05, d), d), 1.0);
}

class MigProgressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One H100 node of 3 GPUs: 7 x 1g | 3g + 3g | 7g, and one whole A100.
    ClusterSpec c;
    c.name = "c";
    c.models.push_back(GpuModelSpec{"H100-80GB", 80 * kGiB, 1.0});
    c.models.push_back(GpuModelSpec{"A100-80GB", 80 * kGiB, 1.0});
    c.groups.push_back(NodeGroup{
        "h",
        1,
        "H100-80GB",
        3,
        96000,
        1024 * kGiB,
        0,
        {"1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb", "3g.40gb,3g.40gb", "7g.80gb"}});
    c.groups.push_back(NodeGroup{"a", 1, "A100-80GB", 1, 16000, 128 * kGiB, 0});
    auto x = ExpandMig(c);
    ASSERT_TRUE(x.ok()) << x.status().message();
    spec_ = x.value();
    auto s = ClusterState::Build(spec_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    state_.emplace(std::move(s).value());
  }
  NodeIndex Node(const std::string& group) const {
    for (NodeIndex n = 0; n < state_->num_nodes(); ++n)
      if (state_->spec().groups[static_cast<size_t>(state_->node(n).group)].name == group) return n;
    ADD_FAILURE() << "no node of group " << group;
    return 0;
  }
  static Job OneGpu(float util) {
    Job j;
    j.name = "j";
    j.runtime = Micros{3600'000'000};
    j.task.gpus = 1;
    j.util = util;
    j.util_known = true;
    return j;
  }

  ClusterSpec spec_;
  std::optional<ClusterState> state_;
};

TEST_F(MigProgressTest, RatesOnInstancesByHand) {
  const WholeGpuProgress inner(0.1);
  const MigProgress mp(&inner, spec_);
  EXPECT_EQ(mp.name(), "whole-gpu comm=0.1 mig w=0.41 u_sat=0.44");
  const Job j = OneGpu(0.3f);
  const Placement on1g{{Node("h/1g.10gb"), 1}};
  const Placement on3g{{Node("h/3g.40gb"), 2}};
  const Placement on7g{{Node("h/7g.80gb"), 1}};
  const Placement whole{{Node("a"), 1}};
  EXPECT_NEAR(mp.InstanceSpeed(j, on1g, *state_), 0.197931, 1e-6);
  EXPECT_NEAR(mp.Rate(j, on1g, *state_), 0.197931, 1e-6);
  EXPECT_NEAR(mp.Rate(j, on3g, *state_), 0.667678, 1e-6);
  // 7g and whole GPUs: the inner rate exactly.
  EXPECT_EQ(mp.Rate(j, on7g, *state_), inner.Rate(j, on7g, *state_));
  EXPECT_EQ(mp.Rate(j, on7g, *state_), 1.0);
  EXPECT_EQ(mp.Rate(j, whole, *state_), 1.0);
  // A light job hides the 1g's loss: speed 1.
  EXPECT_EQ(mp.Rate(OneGpu(0.05f), on1g, *state_), 1.0);
  // A gang runs at its slowest task's instance: 1g and 3g -> the 1g speed
  // (util 0.3, inner rate 1 on speed-1 GPUs without communication).
  const WholeGpuProgress no_comm(0.0);
  const MigProgress mp0(&no_comm, spec_);
  Job g = OneGpu(0.3f);
  g.tasks = 2;
  EXPECT_NEAR(mp0.Rate(g, {{Node("h/3g.40gb"), 1}, {Node("h/1g.10gb"), 1}}, *state_), 0.197931,
              1e-6);
  // CPU-only jobs and empty placements: 1.
  Job cpu = OneGpu(0.3f);
  cpu.task.gpus = 0;
  EXPECT_EQ(mp.InstanceSpeed(cpu, {{Node("h/1g.10gb"), 0}}, *state_), 1.0);
  EXPECT_EQ(mp.InstanceSpeed(j, {}, *state_), 1.0);
}

// The job's kind and tokens per step (MigDemand): an inference job of 320
// tokens per step has d = 320 / 3200 = 0.1, so the 1g (s = 0.134953) runs it
// at full speed whatever its utilization; a training job at util 0.45 has
// d = 0.45 / 0.90 = 0.5: 1g 0.134953 / 0.5 = 0.269906, where the unknown-kind
// fallback (d = 1) gives 0.134953.
TEST_F(MigProgressTest, DemandByKindAndTokens) {
  const WholeGpuProgress inner(0.0);
  const MigProgress mp(&inner, spec_);
  const Placement on1g{{Node("h/1g.10gb"), 1}};
  Job infer = OneGpu(0.9f);
  infer.kind = JobKind::kInference;
  infer.tokens_per_step = 320;
  EXPECT_EQ(mp.InstanceSpeed(infer, on1g, *state_), 1.0);
  Job train = OneGpu(0.45f);
  EXPECT_NEAR(mp.InstanceSpeed(train, on1g, *state_), 0.134953, 1e-6);
  train.kind = JobKind::kTraining;
  EXPECT_NEAR(mp.InstanceSpeed(train, on1g, *state_), 0.269906, 1e-6);
}

TEST_F(MigProgressTest, IdentityWithoutInstances) {
  // On a cluster without MIG every rate is the inner one.
  ClusterSpec c;
  c.name = "plain";
  c.models.push_back(GpuModelSpec{"H100-80GB", 80 * kGiB, 1.0});
  c.groups.push_back(NodeGroup{"h", 1, "H100-80GB", 8, 96000, 1024 * kGiB, 0});
  auto s = ClusterState::Build(c);
  ASSERT_TRUE(s.ok());
  const WholeGpuProgress inner(0.1);
  const MigProgress mp(&inner, c);
  for (float u : {0.0f, 0.3f, 1.0f}) {
    const Job j = OneGpu(u);
    const Placement p{{0, 1}};
    EXPECT_EQ(mp.Rate(j, p, s.value()), inner.Rate(j, p, s.value())) << u;
    EXPECT_EQ(mp.InstanceSpeed(j, p, s.value()), 1.0);
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// Dynamic MIG: the cluster is not expanded; on a node of a `mig` group the
// task's own profile (TaskDemand::mig_profile) sets the speed; elsewhere, or
// without a profile, the rate is the inner one.
TEST(MigProgressDynamic, TaskProfileOnManagedGroupsOnly) {
  ClusterSpec c;
  c.name = "c";
  c.models.push_back(GpuModelSpec{"H100-80GB", 80 * kGiB, 1.0});
  c.groups.push_back(NodeGroup{"h", 1, "H100-80GB", 8, 96000, 1024 * kGiB, 0, {"7g.80gb"}});
  c.groups.push_back(NodeGroup{"p", 1, "H100-80GB", 8, 96000, 1024 * kGiB, 0});
  auto st = ClusterState::Build(c);
  ASSERT_TRUE(st.ok()) << st.status().message();
  const WholeGpuProgress whole;
  const MigProgress mp(&whole, c);
  Job j;
  j.name = "j";
  j.runtime = Seconds(100);
  j.task.gpus = 1;
  j.task.gpu_milli = 500;
  j.task.mig_profile = 4;  // 3g.40gb
  j.util = 0.3f;
  j.util_known = true;
  const Placement on_mig{{0, 1}}, on_plain{{1, 1}};
  EXPECT_NEAR(mp.InstanceSpeed(j, on_mig, st.value()), 0.667678, 1e-6);
  EXPECT_DOUBLE_EQ(mp.InstanceSpeed(j, on_plain, st.value()), 1.0);
  j.task.mig_profile = -1;
  EXPECT_DOUBLE_EQ(mp.InstanceSpeed(j, on_mig, st.value()), 1.0);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// Dynamic MIG: a 1g task holds 125 milli but its utilization is of a whole
// GPU, so its busy fraction of the held share is the inner one / 0.125:
// util 0.05 at rate = speed: 0.05 / 0.125 = 0.4; static (no profile): 0.05.
TEST(MigProgressDynamic, BusyFractionOfTheHeldSlices) {
  ClusterSpec c;
  c.name = "c";
  c.models.push_back(GpuModelSpec{"H100-80GB", 80 * kGiB, 1.0});
  c.groups.push_back(NodeGroup{"h", 1, "H100-80GB", 8, 96000, 1024 * kGiB, 0, {"7g.80gb"}});
  const WholeGpuProgress whole;
  const MigProgress mp(&whole, c);
  Workload w;
  Job j;
  j.name = "j";
  j.runtime = Seconds(100);
  j.task.gpus = 1;
  j.task.gpu_milli = 125;
  j.task.mig_profile = 0;  // 1g.10gb
  j.util = 0.05f;
  j.util_known = true;
  w.jobs.push_back(j);
  EXPECT_NEAR(mp.BusyFraction(w.jobs[0], w, Micros(0), 1.0, 1.0), 0.4, 1e-6);
  w.jobs[0].task.mig_profile = -1;
  EXPECT_NEAR(mp.BusyFraction(w.jobs[0], w, Micros(0), 1.0, 1.0), 0.05, 1e-6);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
