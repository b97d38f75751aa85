// The decision API (placer.h): hand-computed choices, drains, ranks, bad
// updates, and the same decisions as inside a simulation.
#include "utilsim/policies/placer.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "random_mix.h"
#include "utilsim/engine/simulator.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using mix::ThreeNodes;

Job Gpus(int gpus) {
  Job j;
  j.name = "q";
  j.task.gpus = gpus;
  j.task.cpu_milli = 1000;
  j.runtime = Seconds(10);
  return j;
}

TEST(Placer, BestFitPacksAndDrainsAndRanks) {
  auto made = Placer::Create(ThreeNodes(), "best-fit");
  ASSERT_TRUE(made.ok()) << made.status().message();
  Placer& p = *made.value();
  // Empty cluster: best fit's ties go to the lowest node, n-0.
  auto a = p.Place(Gpus(2));
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(p.Describe(*a), "n-0:0,1");
  ASSERT_TRUE(p.Started("a", Gpus(2), *a).ok());
  // n-0 has 2 GPUs left, the others 4: a 1-GPU job goes to the tightest, n-0.
  EXPECT_EQ(p.Describe(*p.Place(Gpus(1))), "n-0:2");
  // Drain n-0: nothing new goes there; its running job stays.
  ASSERT_TRUE(p.SetDrained("n-0", true).ok());
  EXPECT_EQ(p.Describe(*p.Place(Gpus(1))), "n-1:0");
  EXPECT_EQ(p.running(), 1u);
  // The ranking for a 4-GPU job with n-0 drained: n-1, then n-2, then none.
  const auto ranked = p.Rank(Gpus(4), 5);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(p.Describe(ranked[0]), "n-1:0,1,2,3");
  EXPECT_EQ(p.Describe(ranked[1]), "n-2:0,1,2,3");
  // Ranking leaves the state as it was.
  EXPECT_EQ(p.Describe(*p.Place(Gpus(4))), "n-1:0,1,2,3");
  // a ends on the drained node: still nothing new there; undrain: n-0 again.
  ASSERT_TRUE(p.Finished("a").ok());
  EXPECT_EQ(p.Describe(*p.Place(Gpus(1))), "n-1:0");
  ASSERT_TRUE(p.SetDrained("n-0", false).ok());
  EXPECT_EQ(p.Describe(*p.Place(Gpus(1))), "n-0:0");
  EXPECT_EQ(p.state().allocated_gpu_milli(), 0);
}

TEST(Placer, BadUpdatesAreErrors) {
  auto made = Placer::Create(ThreeNodes(), "first-fit");
  ASSERT_TRUE(made.ok());
  Placer& p = *made.value();
  const Placement all = {TaskPlacement{0, 0xF}};
  ASSERT_TRUE(p.Started("x", Gpus(4), all).ok());
  EXPECT_NE(p.Started("x", Gpus(4), {TaskPlacement{1, 0xF}}).message().find("running already"),
            std::string::npos);
  EXPECT_NE(p.Started("y", Gpus(4), all).message().find("job 'y'"), std::string::npos)
      << "n-0 is full";
  EXPECT_NE(p.Started("z", Gpus(1), {TaskPlacement{9, 1}}).message().find("no node"),
            std::string::npos);
  EXPECT_NE(p.Finished("nope").message().find("not running"), std::string::npos);
  EXPECT_NE(p.SetDrained("n-9", true).message().find("no node"), std::string::npos);
  EXPECT_FALSE(Placer::Create(ThreeNodes(), "no-such-policy").ok());
  // A failed start claimed nothing.
  EXPECT_EQ(p.state().allocated_gpu_milli(), 4000);
}

// Replays a simulation's own schedule through a Placer: before every start
// the Placer, told only what started and finished, must choose exactly the
// placement the simulation chose (fifo-skip, non-preemptive, so each start is
// the placement's decision on the state at that instant).
// RandomJobs with a measured utilization per job (0.05..1), which colocate
// and least-loaded read from the running jobs.
Workload WithUtil(Workload w) {
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    w.jobs[i].util = static_cast<float>((i * 37 % 20 + 1) / 20.0);
    w.jobs[i].util_known = true;
  }
  return w;
}

TEST(Placer, SameDecisionsAsTheSimulator) {
  for (const char* placement :
       {"first-fit", "best-fit", "worst-fit", "tetris", "fgd", "colocate", "least-loaded"}) {
    SCOPED_TRACE(placement);
    const Workload w = WithUtil(mix::RandomJobs(11));
    auto s = BuiltinPolicies().Make(std::string("fifo-skip+") + placement);
    ASSERT_TRUE(s.ok());
    struct Ev {
      EventKind kind;
      JobIndex job;
    };
    std::vector<Ev> log;
    SimConfig cfg;
    cfg.observer = [&](const EngineEvent& e, RunControl&) {
      if (e.kind == EventKind::kStart || e.kind == EventKind::kFinish)
        log.push_back({e.kind, e.job});
    };
    auto r = Simulate(ThreeNodes(), w, *s.value(), cfg);
    ASSERT_TRUE(r.ok()) << r.status().message();
    auto made = Placer::Create(ThreeNodes(), placement, BuiltinPolicies(), 1, &w);
    ASSERT_TRUE(made.ok());
    Placer& p = *made.value();
    std::map<JobIndex, std::string> chosen;
    for (const JobRecord& rec : r.value().jobs) chosen[rec.job] = rec.placement;
    int64_t starts = 0;
    for (const Ev& e : log) {
      const Job& job = w.jobs[e.job];
      if (e.kind == EventKind::kFinish) {
        ASSERT_TRUE(p.Finished(job.name).ok());
        continue;
      }
      auto where = p.Place(job);
      ASSERT_TRUE(where.has_value()) << job.name;
      ASSERT_EQ(p.Describe(*where), chosen[e.job]) << job.name;
      ASSERT_TRUE(p.Started(job.name, job, *where).ok());
      ++starts;
    }
    EXPECT_EQ(starts, static_cast<int64_t>(w.jobs.size()));
  }
}

// least-loaded through the Placer: measured loads decide, SetUtil moves
// them, and the ranking among candidates ignores the other nodes.
TEST(Placer, LeastLoadedFollowsMeasuredUtilization) {
  auto made = Placer::Create(ThreeNodes(), "least-loaded");
  ASSERT_TRUE(made.ok()) << made.status().message();
  Placer& p = *made.value();
  Job busy = Gpus(1), idle = Gpus(1);
  busy.util = 0.9f;
  idle.util = 0.1f;
  // n-0 and n-1 each run one 1-GPU job; n-2 is empty (load 0).
  ASSERT_TRUE(p.Started("busy", busy, {{0, 0b1}}).ok());
  ASSERT_TRUE(p.Started("idle", idle, {{1, 0b1}}).ok());
  // Loads: n-0 0.9/4, n-1 0.1/4, n-2 0: the empty node first, then n-1.
  auto r = p.Rank(Gpus(1), 3);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(p.Describe(r[0]), "n-2:0");
  EXPECT_EQ(p.Describe(r[1]), "n-1:1");
  EXPECT_EQ(p.Describe(r[2]), "n-0:1");
  // Among n-0 and n-1 only: n-1 (measured idle) before n-0 (busy).
  auto among = p.RankAmong(Gpus(1), 5, {0, 1});
  ASSERT_EQ(among.size(), 2u);
  EXPECT_EQ(p.Describe(among[0]), "n-1:1");
  EXPECT_EQ(p.Describe(among[1]), "n-0:1");
  EXPECT_EQ(p.state().cordoned_count(), 0u);  // RankAmong leaves nothing cordoned
  // New measurements swap the two: now n-0 is the idle one.
  ASSERT_TRUE(p.SetUtil("busy", 0.05f).ok());
  ASSERT_TRUE(p.SetUtil("idle", 0.95f).ok());
  among = p.RankAmong(Gpus(1), 1, {0, 1});
  ASSERT_EQ(among.size(), 1u);
  EXPECT_EQ(p.Describe(among[0]), "n-0:1");
  EXPECT_FLOAT_EQ(p.job("busy")->util, 0.05f);
  EXPECT_FALSE(p.SetUtil("nobody", 0.5f).ok());
  EXPECT_FALSE(p.SetUtil("busy", 1.5f).ok());
  EXPECT_TRUE(p.Fits(Gpus(4), 2));
  EXPECT_FALSE(p.Fits(Gpus(4), 0));  // 3 GPUs free there
  EXPECT_EQ(p.NodeIndexOf("n-2"), 2);
  EXPECT_EQ(p.NodeIndexOf("n-9"), -1);
}

// colocate through the Placer sees the running jobs' loads (before, a
// Placer's colocate saw none): a fractional job joins the shared GPU while
// the summed load stays under the threshold, else takes a whole-free GPU.
TEST(Placer, ColocateSeesRunningLoads) {
  auto made = Placer::Create(ThreeNodes(), "colocate:threshold=1");
  ASSERT_TRUE(made.ok()) << made.status().message();
  Placer& p = *made.value();
  Job half = Gpus(1);
  half.task.gpu_milli = 500;
  half.util = 0.8f;  // solo load 0.4 per job
  ASSERT_TRUE(p.Started("a", half, {{1, 0b10}}).ok());
  // 0.4 + 0.4 <= 1: joins n-1's GPU 1.
  EXPECT_EQ(p.Describe(*p.Place(half)), "n-1:1");
  Job heavy = half;
  heavy.task.gpu_milli = 400;
  heavy.util = 1.0f;                       // solo 0.4: 0.4 + 0.4 fits; raise a's load first
  ASSERT_TRUE(p.SetUtil("a", 1.0f).ok());  // a's load 0.5; 0.5 + 0.4 <= 1 still
  EXPECT_EQ(p.Describe(*p.Place(heavy)), "n-1:1");
  Job heavier = heavy;
  heavier.task.gpu_milli = 500;  // solo 0.5 + 0.5 = 1.0 <= 1: joins
  EXPECT_EQ(p.Describe(*p.Place(heavier)), "n-1:1");
  ASSERT_TRUE(p.Started("b", heavy, {{1, 0b10}}).ok());  // GPU 1: 900 milli used, load 0.9
  Job small = half;
  small.task.gpu_milli = 100;
  small.util = 1.0f;  // solo 0.1: 0.9 + 0.1 <= 1 joins
  EXPECT_EQ(p.Describe(*p.Place(small)), "n-1:1");
  ASSERT_TRUE(p.SetUtil("b", 1.0f).ok());  // load 0.5 + 0.4 = 0.9 (b's util was 1 already)
  ASSERT_TRUE(p.SetUtil("a", 0.9f).ok());  // 0.45 + 0.4 + 0.1 <= 1
  EXPECT_EQ(p.Describe(*p.Place(small)), "n-1:1");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
