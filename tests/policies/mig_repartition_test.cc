// Dynamic MIG repartitioning (policies/mig_repartition.h): hand-computed runs
// on one H100-80GB node. Change times: create = destroy = 2 s, fixed 0.
// H100 profile indices (mig.h table order): 0 1g.10gb, 2 1g.20gb, 3 2g.20gb,
// 4 3g.40gb, 5 4g.40gb, 6 7g.80gb. Jobs run at their recorded runtime (no
// MIG speed model here: the whole-GPU progress model).
#include "utilsim/policies/mig_repartition.h"

#include <gtest/gtest.h>

#include <random>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/coresource.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int k1g = 0, k2g = 3, k3g = 4, k4g = 5, k7g = 6;

ClusterSpec H100(std::vector<std::string> layouts, int gpus = 1) {
  ClusterSpec spec;
  spec.name = "h";
  spec.models = {{"H100-80GB", 80LL << 30, 1.0}};
  spec.groups = {{"n", 1, "H100-80GB", gpus, 64000, 512LL << 30, 0}};
  spec.groups[0].mig = std::move(layouts);
  return spec;
}

Job Mig(const char* name, int profile, double submit_s, int runtime_s) {
  static const int kMemSlices[] = {1, 1, 2, 2, 4, 4, 8};
  Job j;
  j.name = name;
  j.submit = Seconds(submit_s);
  j.runtime = Seconds(runtime_s);
  j.task.gpus = 1;
  j.task.mig_profile = profile;
  j.task.gpu_milli = profile == k7g ? 1000 : 125 * kMemSlices[profile];
  j.task.cpu_milli = 1000;
  j.task.mem_bytes = 1LL << 30;
  return j;
}

struct MigRun {
  RunResult r;
  MigReconfigStats st;
  const JobRecord& job(const std::string& name) const {
    for (const JobRecord& j : r.jobs)
      if (j.name == name) return j;
    ADD_FAILURE() << "no job " << name;
    return r.jobs.front();
  }
};

MigRun RunMig(const ClusterSpec& spec, std::vector<Job> jobs, bool drain = true,
              const std::string& queue = "fifo-skip", bool memoize = true) {
  Workload w;
  w.jobs = std::move(jobs);
  w.Finalize();
  auto stats = std::make_shared<MigReconfigStats>();
  PolicyRegistry reg = BuiltinPolicies();
  MigRepartitionParams params;
  params.drain = drain;
  params.memoize = memoize;
  auto decorated = DecoratePlacements(reg, [&](std::unique_ptr<PlacementPolicy> inner) {
    return MakeMigRepartition(std::move(inner), params, stats);
  });
  EXPECT_TRUE(decorated.ok());
  auto s = decorated.value().Make(queue + "+best-fit");
  EXPECT_TRUE(s.ok()) << s.status().message();
  SimConfig cfg;
  auto r = utilsim::Simulate(spec, w, *s.value(), cfg);
  EXPECT_TRUE(r.ok()) << r.status().message();
  MigRun out;
  if (r.ok()) out.r = std::move(r).value();
  out.st = *stats;
  return out;
}

TEST(MigRepartition, ReadyInstanceNeedsNoChange) {
  const MigRun run = RunMig(H100({"3g.40gb@0,3g.40gb@4"}), {Mig("a", k3g, 0, 100)});
  EXPECT_EQ(run.job("a").start, Seconds(0));
  EXPECT_EQ(run.job("a").placement, "n:0");
  EXPECT_EQ(run.st.reconfigurations, 0);
}

TEST(MigRepartition, CreatesInFreeSlicesAndStartsWhenReady) {
  // Empty GPU: a 2g goes to start 4 (slot choice), ready after one create
  // (2 s); the pass at 2 s starts it.
  const MigRun run = RunMig(H100({""}), {Mig("a", k2g, 0, 100)});
  EXPECT_EQ(run.job("a").start, Seconds(2));
  EXPECT_EQ(run.job("a").finish, Seconds(102));
  EXPECT_EQ(run.st.reconfigurations, 1);
  EXPECT_EQ(run.st.created, 1);
  EXPECT_EQ(run.st.destroyed, 0);
  EXPECT_DOUBLE_EQ(run.st.change_s, 2);
  EXPECT_DOUBLE_EQ(run.st.creating_slice_s, 2 * 2);  // 2 s x 2 compute slices
}

TEST(MigRepartition, DestroysIdleInstances) {
  // An idle 7g must go for a 1g: destroy + create = 4 s.
  const MigRun run = RunMig(H100({"7g.80gb"}), {Mig("a", k1g, 0, 100)});
  EXPECT_EQ(run.job("a").start, Seconds(4));
  EXPECT_EQ(run.st.destroyed, 1);
  EXPECT_EQ(run.st.created, 1);
  EXPECT_DOUBLE_EQ(run.st.change_s, 4);
}

TEST(MigRepartition, OneChangePerJobNotOnePerPass) {
  // a and b (1g) at 0. a creates 1g (ready 2 s); b has the same shape and is
  // not tried again in that pass. At 2 s a starts; b finds none ready, none
  // coming, creates its own (ready 4 s).
  const MigRun run = RunMig(H100({""}), {Mig("a", k1g, 0, 100), Mig("b", k1g, 0, 100)});
  EXPECT_EQ(run.job("a").start, Seconds(2));
  EXPECT_EQ(run.job("b").start, Seconds(4));
  EXPECT_EQ(run.st.reconfigurations, 2);
  EXPECT_EQ(run.st.created, 2);
}

TEST(MigRepartition, DrainHoldsTheInstanceForTheQueue) {
  // a (7g, 0-100) runs. c (7g) arrives at 1, b (1g) at 2. b cannot start:
  // nothing to destroy that is idle; draining the 7g ends at 100 (+4 s
  // change) and no 1g instance exists (wait without it: never): the drain
  // pays off. At 100 the 7g is changed to a 1g, not given to c; b starts at
  // 104 and ends at 114; then c's 7g replaces the idle 1g: 118.
  const MigRun run = RunMig(H100({"7g.80gb"}),
                            {Mig("a", k7g, 0, 100), Mig("c", k7g, 1, 50), Mig("b", k1g, 2, 10)});
  EXPECT_EQ(run.job("a").start, Seconds(0));
  EXPECT_EQ(run.job("b").start, Seconds(104));
  EXPECT_EQ(run.job("c").start, Seconds(118));
  EXPECT_EQ(run.st.drains, 1);
  EXPECT_EQ(run.st.after_drain, 1);
  EXPECT_DOUBLE_EQ(run.st.drain_wait_s, 98);  // decided at 2, carried out at 100
  EXPECT_DOUBLE_EQ(run.st.drain_idle_slice_s, 0);
  EXPECT_EQ(run.st.reconfigurations, 2);
}

TEST(MigRepartition, WithoutDrainTheQueueOrderWins) {
  // The same jobs with drains off: at 100 c (first in the queue) takes the
  // 7g (100-150); b's 1g replaces it after: 150 + 4.
  const MigRun run =
      RunMig(H100({"7g.80gb"}), {Mig("a", k7g, 0, 100), Mig("c", k7g, 1, 50), Mig("b", k1g, 2, 10)},
             /*drain=*/false);
  EXPECT_EQ(run.job("c").start, Seconds(100));
  EXPECT_EQ(run.job("b").start, Seconds(154));
  EXPECT_EQ(run.st.drains, 0);
}

TEST(MigRepartition, DrainCostCountsIdleSlices) {
  // Full GPU: 1g@0 (x1, 0-30), 1g@1 (x2, 0-60), 2g@2 (y, 0-90), 3g@4 (z,
  // long). b (4g, only start 0) at 1: the three on slices 0-3 drain, expected
  // to end at 90; change = 3 destroys + 1 create = 8 s -> 98. Idle while
  // draining: 1g@0 30-90 (60 slice-s), 1g@1 60-90 (30), 2g@2 none.
  const MigRun run = RunMig(H100({"1g.10gb@0,1g.10gb@1,2g.20gb@2,3g.40gb@4"}),
                            {Mig("x1", k1g, 0, 30), Mig("x2", k1g, 0, 60), Mig("y", k2g, 0, 90),
                             Mig("z", k3g, 0, 1000), Mig("b", k4g, 1, 10)});
  EXPECT_EQ(run.job("x1").start, Seconds(0));
  EXPECT_EQ(run.job("b").start, Seconds(98));
  EXPECT_EQ(run.st.drains, 1);
  EXPECT_EQ(run.st.destroyed, 3);
  EXPECT_EQ(run.st.created, 1);
  EXPECT_DOUBLE_EQ(run.st.change_s, 8);
  EXPECT_DOUBLE_EQ(run.st.drain_wait_s, 89);
  EXPECT_DOUBLE_EQ(run.st.drain_idle_slice_s, 90);
}

TEST(MigRepartition, NoDrainWhenAnInstanceFreesSooner) {
  // GPU 0 full with four busy instances, its 1g@0 job ends at 50; GPU 1 a
  // busy 7g until 100. b (1g) at 1: draining would end at 50 + 4 (GPU 0) or
  // 104 (GPU 1), not sooner than 50: b waits and takes 1g@0 at 50, no change.
  const MigRun run = RunMig(H100({"1g.10gb@0,1g.10gb@1,2g.20gb@2,3g.40gb@4", "7g.80gb"}, 2),
                            {Mig("x", k1g, 0, 50), Mig("y", k1g, 0, 1000), Mig("v", k2g, 0, 1000),
                             Mig("z", k3g, 0, 1000), Mig("a", k7g, 0, 100), Mig("b", k1g, 1, 10)});
  EXPECT_EQ(run.job("a").placement, "n:1");
  EXPECT_EQ(run.job("b").start, Seconds(50));
  EXPECT_EQ(run.job("b").placement, "n:0");
  EXPECT_EQ(run.st.drains, 0);
  EXPECT_EQ(run.st.reconfigurations, 0);
}

TEST(MigRepartition, WholeGpuJobsUseNonMigNodesThroughTheInner) {
  // A MIG node (busy 7g) and a plain node: a second 7g job goes to the plain
  // node at once; a job without a profile never lands on the MIG node.
  ClusterSpec spec = H100({"7g.80gb"});
  spec.groups.push_back({"p", 1, "H100-80GB", 1, 64000, 512LL << 30, 0});
  Job plain = Mig("w", k7g, 0, 10);
  plain.task.mig_profile = -1;
  const MigRun run = RunMig(spec, {Mig("a", k7g, 0, 100), Mig("c", k7g, 0, 100), plain});
  EXPECT_EQ(run.job("a").placement, "n:0");
  EXPECT_EQ(run.job("c").placement, "p:0");
  EXPECT_EQ(run.job("c").start, Seconds(0));
  EXPECT_EQ(run.job("w").placement, "p:0");
  EXPECT_EQ(run.job("w").start, Seconds(100));
}

TEST(MigRepartition, MultiGpuJobKeepsTheInstanceItHas) {
  // A 2-GPU 7g job: GPU 0 already has an idle 7g (no change), GPU 1's two
  // idle 3g go for a 7g: 2 destroys + 1 create = 6 s. Starts at 6 on both.
  Job j = Mig("a", k7g, 0, 100);
  j.task.gpus = 2;
  const MigRun run = RunMig(H100({"7g.80gb", "3g.40gb@0,3g.40gb@4"}, 2), {j});
  EXPECT_EQ(run.job("a").start, Seconds(6));
  EXPECT_EQ(run.job("a").placement, "n:0,1");
  EXPECT_EQ(run.st.reconfigurations, 1);
  EXPECT_EQ(run.st.destroyed, 2);
  EXPECT_EQ(run.st.created, 1);
}

TEST(MigRepartition, WorksUnderEveryScheduler) {
  // The free-slice case under each batch scheduler (they must pass the
  // placement's wake-up on, begin its pass, and a job asked for twice in a
  // pass orders one change): a's 2g ready at 2 s; b's 1g (start 6, slot
  // choice) ordered at 1 s runs after the GPU's change in progress: 2 + 2.
  for (const char* q : {"fifo", "easy-backfill", "conservative-backfill", "tiresias",
                        "priority-preempt", "sjf", "drf"}) {
    const MigRun run = RunMig(H100({""}), {Mig("a", k2g, 0, 100), Mig("b", k1g, 1, 50)}, true, q);
    EXPECT_EQ(run.job("a").start, Seconds(2)) << q;
    EXPECT_EQ(run.job("b").start, Seconds(4)) << q;
    EXPECT_EQ(run.st.created, 2) << q;
  }
}

TEST(MigRepartition, IndexesChangeNoDecision) {
  // 400 jobs of random profiles on 6 nodes x 8 GPUs, queued deep enough that
  // the planner repartitions and drains: the per-pass indexes by node must
  // give the very placements the full scans give.
  std::mt19937 rng(7);
  std::vector<Job> jobs;
  const int profiles[] = {k1g, k2g, k3g, k4g, k7g};
  for (int i = 0; i < 400; ++i) {
    const std::string name = "j" + std::to_string(i);
    jobs.push_back(Mig(name.c_str(), profiles[rng() % 5], i * 30.0, 600 + rng() % 5400));
    if (rng() % 4 == 0) jobs.back().tasks = 2;
  }
  ClusterSpec spec = H100({"3g.40gb,3g.40gb"}, 8);
  spec.groups[0].count = 6;
  for (bool drain : {true, false}) {
    const MigRun a = RunMig(spec, jobs, drain, "fifo-skip", true);
    const MigRun b = RunMig(spec, jobs, drain, "fifo-skip", false);
    ASSERT_EQ(a.r.jobs.size(), b.r.jobs.size());
    int started = 0;
    for (size_t i = 0; i < a.r.jobs.size(); ++i) {
      EXPECT_EQ(a.r.jobs[i].start, b.r.jobs[i].start) << a.r.jobs[i].name;
      EXPECT_EQ(a.r.jobs[i].placement, b.r.jobs[i].placement) << a.r.jobs[i].name;
      started += a.r.jobs[i].start.us >= 0;
    }
    EXPECT_EQ(started, 400);
    EXPECT_EQ(a.st.reconfigurations, b.st.reconfigurations);
    EXPECT_EQ(a.st.drains, b.st.drains);
    EXPECT_GT(a.st.reconfigurations, 50) << "the scenario must exercise the planner";
    if (drain) {
      EXPECT_GT(a.st.drains, 0);
    }
  }
}

TEST(MigRepartition, StatsLine) {
  MigReconfigStats s;
  s.reconfigurations = 3;
  s.after_drain = 1;
  s.drains = 2;
  s.created = 4;
  s.destroyed = 2;
  s.change_s = 12;
  s.creating_slice_s = 3600;
  s.drain_wait_s = 7200;
  s.drain_idle_slice_s = 1800;
  EXPECT_EQ(FormatMigReconfigStats(s),
            "mig dynamic: 3 reconfigurations (1 after drains; 2 drains decided), 4 instances "
            "created, 2 destroyed; change time 12 s, creating 1.00 slice-h, drain wait 2.00 h, "
            "drain idle 0.50 slice-h");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
