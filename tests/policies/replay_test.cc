// Identity replay and conservation across policies.
#include <gtest/gtest.h>

#include "utilsim/engine/rng.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

ClusterSpec Cluster(int nodes) {
  ClusterSpec s;
  s.name = "c";
  s.models = {{"G", 32LL << 30, 1.0}};
  s.groups = {{"n", nodes, "G", 8, 64000, 512LL << 30, 0}};
  return s;
}

// A workload whose recorded schedule is feasible on 4 x 8 GPUs: jobs were
// "recorded" by a greedy replay that never exceeds 8 GPUs per node.
Workload RecordedWorkload(uint64_t seed, int n) {
  Rng r(seed, 0, "recorded");
  Workload w;
  int64_t t = 0;
  for (int i = 0; i < n; ++i) {
    Job j;
    j.name = "r" + std::to_string(i);
    t += static_cast<int64_t>(r.Exponential(60e6));
    j.submit = Micros(t);
    j.task.gpus = static_cast<int32_t>(1 << r.UniformInt(0, 3));
    j.runtime = Micros(static_cast<int64_t>(r.Uniform(10e6, 3000e6)));
    j.util = static_cast<float>(r.Uniform(0.05, 1.0));
    w.jobs.push_back(j);
  }
  w.Finalize();
  return w;
}

TEST(AsRecorded, ReproducesRecordedStartsAndFinishesExactly) {
  // Record a schedule with best-fit, then replay it with as-recorded.
  Workload w = RecordedWorkload(3, 400);
  auto rec_sched = BuiltinPolicies().Make("best-fit");
  auto recorded = Simulate(Cluster(4), w, *rec_sched.value(), SimConfig{});
  ASSERT_TRUE(recorded.ok());
  size_t waited = 0;
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    w.jobs[i].recorded_start = recorded.value().jobs[i].start;
    waited += recorded.value().jobs[i].start > w.jobs[i].submit;
  }
  ASSERT_GT(waited, 50u) << "scenario must contain queueing to be a real test";
  auto replay_sched = BuiltinPolicies().Make("as-recorded+best-fit");
  auto replay = Simulate(Cluster(4), w, *replay_sched.value(), SimConfig{});
  ASSERT_TRUE(replay.ok());
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    ASSERT_EQ(replay.value().jobs[i].start, *w.jobs[i].recorded_start) << i;
    ASSERT_EQ(replay.value().jobs[i].finish, *w.jobs[i].recorded_start + w.jobs[i].runtime);
  }
}

TEST(AsRecorded, JobsWithoutRecordedStartNeverStart) {
  Workload w = RecordedWorkload(5, 3);
  w.jobs[0].recorded_start = w.jobs[0].submit + Seconds(100);
  auto s = BuiltinPolicies().Make("as-recorded");
  auto r = Simulate(Cluster(1), w, *s.value(), SimConfig{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().jobs[0].start, w.jobs[0].submit + Seconds(100));
  EXPECT_EQ(r.value().jobs[1].outcome, JobOutcome::kUnfinished);
  EXPECT_EQ(r.value().jobs[2].outcome, JobOutcome::kUnfinished);
  EXPECT_NE(r.value().meta.notes.find("2 queued jobs could not start"), std::string::npos);
}

TEST(Conservation, UsefulWorkIdenticalAcrossPoliciesAllocatedCoversBusy) {
  Workload w = RecordedWorkload(11, 600);
  double useful = -1;
  for (const char* policy : {"first-fit", "best-fit", "worst-fit", "fifo-skip+best-fit"}) {
    auto s = BuiltinPolicies().Make(policy);
    SimConfig cfg;
    cfg.sample_interval = Seconds(60);
    auto r = Simulate(Cluster(3), w, *s.value(), cfg);
    ASSERT_TRUE(r.ok());
    double total = 0;
    for (const auto& j : r.value().jobs) total += j.useful_gpu_s;
    // Independent: sum over jobs of GPUs x runtime x util.
    double expect = 0;
    for (const auto& j : w.jobs) expect += j.task.gpus * j.runtime.seconds() * j.util;
    EXPECT_NEAR(total, expect, 1e-6 * expect) << policy;
    if (useful < 0) useful = total;
    EXPECT_DOUBLE_EQ(total, useful) << policy;
    ASSERT_FALSE(r.value().samples.empty());
    for (const auto& smp : r.value().samples) {
      ASSERT_GE(smp.gpus_allocated + 1e-9, smp.gpus_busy) << policy;
      ASSERT_LE(smp.gpus_allocated, 24.0);
    }
    EXPECT_LE(r.value().summary.effective_util_pct, r.value().summary.allocation_pct);
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
