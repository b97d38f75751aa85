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
namespace {

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
TEST(Placer, SameDecisionsAsTheSimulator) {
  for (const char* placement : {"first-fit", "best-fit", "worst-fit", "tetris", "fgd"}) {
    SCOPED_TRACE(placement);
    const Workload w = mix::RandomJobs(11);
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

}  // namespace
}  // namespace utilsim
