// Jobs killed at their walltime limit, and a gang slowed by communication
// stalls when spread further than recorded: whole runs, hand-computed.
#include <gtest/gtest.h>

#include "engine/fake_scheduler.h"
#include "utilsim/engine/simulator.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testing::FakeFifo;

ClusterSpec Nodes(int count, int gpus, double speed) {
  ClusterSpec s;
  s.name = "w";
  s.models = {{"G", 16LL << 30, speed}};
  s.groups = {{"n", count, "G", gpus, 16000, 64LL << 30, 0}};
  return s;
}

// n-0 and n-1 in racks of their own whose uplinks are oversubscribed 4:1.
ClusterSpec TwoRacks() {
  ClusterSpec s = Nodes(2, 4, 1.0);
  s.topology.racks = {{"r0", "", {"n-0"}, 4.0, ""}, {"r1", "", {"n-1"}, 4.0, ""}};
  return s;
}

Job MakeJob(const std::string& name, int64_t runtime_s, int gpus, int tasks = 1) {
  Job j;
  j.name = name;
  j.runtime = Seconds(runtime_s);
  j.task.gpus = gpus;
  j.tasks = tasks;
  j.util = 1.0f;
  j.util_known = true;
  return j;
}

struct KillCase {
  const char* label;
  int64_t limit_s;
  bool kill;
  JobOutcome outcome;
  double finish_s, useful_gpu_s;
};

TEST(Walltime, KilledAtTheLimitOnlyWhereTheTraceSaysSo) {
  // GPUs at half speed: a 100 s job that is busy all the time takes
  // 100 / (0 + 1 / 0.5) ... = 200 s, and keeps its (slower) GPU busy all
  // of it: busy GPU-seconds are the hardware's, what the samples show.
  const KillCase cases[] = {
      {"limit 150, enforced: killed at 150 with 75 s of work", 150, true, JobOutcome::kKilled, 150,
       150},
      {"limit 150, not enforced: runs to 200", 150, false, JobOutcome::kFinished, 200, 200},
      {"limit 250, enforced: finishes at 200", 250, true, JobOutcome::kFinished, 200, 200},
  };
  for (const KillCase& c : cases) {
    SCOPED_TRACE(c.label);
    Workload w;
    w.jobs = {MakeJob("a", 100, 1)};
    w.jobs[0].walltime_limit = Seconds(c.limit_s);
    w.jobs[0].kill_at_limit = c.kill;
    w.Finalize();
    FakeFifo s;
    auto r = Simulate(Nodes(1, 1, 0.5), w, s, SimConfig{});
    ASSERT_TRUE(r.ok()) << r.status().message();
    const JobRecord& a = r.value().jobs[0];
    EXPECT_EQ(a.outcome, c.outcome);
    EXPECT_DOUBLE_EQ(a.finish.seconds(), c.finish_s);
    EXPECT_DOUBLE_EQ(a.useful_gpu_s, c.useful_gpu_s);
    EXPECT_DOUBLE_EQ(a.alloc_gpu_s, c.finish_s);
    EXPECT_EQ(r.value().summary.killed, c.outcome == JobOutcome::kKilled ? 1 : 0);
  }
}

TEST(Walltime, IdentityReplayIsNeverKilled) {
  // At the recorded speed a job whose runtime equals its limit completes.
  Workload w;
  w.jobs = {MakeJob("a", 100, 1)};
  w.jobs[0].walltime_limit = Seconds(100);
  w.jobs[0].kill_at_limit = true;
  w.Finalize();
  FakeFifo s;
  auto r = Simulate(Nodes(1, 1, 1.0), w, s, SimConfig{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().jobs[0].outcome, JobOutcome::kFinished);
  EXPECT_EQ(r.value().jobs[0].finish, Seconds(100));
}

TEST(CommStall, SpreadGangRunsLongerInAWholeRun) {
  // Two nodes of 4 GPUs in two racks (uplinks 4:1). a and b take 3 GPUs on
  // n-0 and n-1 for 1000 s; c, 2 tasks x 1 GPU, util 0.5, 100 s, is assumed
  // recorded one task a node in one rack (12.5 GB/s); first fit spreads it
  // over the two racks: 12.5 / 4 GB/s. Comm fraction 0.1:
  // time = 100 x (0.4 + 0.5 + 0.1 x 4) = 130 s.
  Workload w;
  w.jobs = {MakeJob("a", 1000, 3), MakeJob("b", 1000, 3), MakeJob("c", 100, 1, 2)};
  w.jobs[2].util = 0.5f;
  w.Finalize();
  FakeFifo s;
  SimConfig cfg;
  cfg.comm_fraction = 0.1;
  auto r = Simulate(TwoRacks(), w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const JobRecord& c = r.value().jobs[2];
  EXPECT_EQ(c.placement, "n-0:3;n-1:3");
  EXPECT_DOUBLE_EQ(c.finish.seconds(), 130);
  // Busy work is conserved: 2 GPUs x 100 s x 0.5.
  EXPECT_NEAR(c.useful_gpu_s, 100, 1e-6);
  EXPECT_EQ(r.value().meta.progress_model, "whole-gpu comm=0.1");
  // In one rack (the default topology) it runs its recorded 100 s.
  FakeFifo s2;
  auto flat = Simulate(Nodes(2, 4, 1.0), w, s2, cfg);
  ASSERT_TRUE(flat.ok());
  EXPECT_DOUBLE_EQ(flat.value().jobs[2].finish.seconds(), 100);
  // Comm fraction 0: the gang runs its recorded 100 s.
  cfg.comm_fraction = 0;
  FakeFifo s0;
  auto r0 = Simulate(TwoRacks(), w, s0, cfg);
  ASSERT_TRUE(r0.ok());
  EXPECT_DOUBLE_EQ(r0.value().jobs[2].finish.seconds(), 100);
  cfg.comm_fraction = 1.5;
  FakeFifo s1;
  auto bad = Simulate(TwoRacks(), w, s1, cfg);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "comm fraction must be 0..1, got 1.500000");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
