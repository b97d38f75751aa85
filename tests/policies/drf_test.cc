// Dominant Resource Fairness on hand-computed scenarios.
//
// One node: 4 GPUs, 16 cores, 64 GiB. Jobs (tenant, submit, GPUs, cores, run):
//   J0 a, 0, 1, 1, 100      J1 b, 0, 0 (CPU only), 8, 100      J2 c, 0, 3, 1, 50
//   Qb b, 1, 3, 1, 10       Qa a, 2, 3, 1, 10
// t=0: all tenants hold nothing (share 0): J0, J1, J2 start (GPUs now full).
// Dominant shares: a max(1/4, 1/16) = 0.25; b max(0/4, 8/16) = 0.5 (CPU is
// its dominant resource); c 3/4.
// t=50: J2 ends, 3 GPUs free. drf visits a (0.25) before b (0.5): Qa 50..60,
// Qb does not fit; at 60 Qb 60..70. fifo-skip would start Qb first (50..60)
// and Qa 60..70.
#include <gtest/gtest.h>

#include <string>

#include "policies/random_mix.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/composed_scheduler.h"
#include "utilsim/policies/queues_extra.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

ClusterSpec Cluster() {
  ClusterSpec s;
  s.name = "one";
  s.models = {{"G", 0, 1.0}};
  s.groups = {{"n", 1, "G", 4, 16000, 64LL << 30, 0}};
  return s;
}

Workload Jobs() {
  Workload w;
  auto add = [&](const char* name, const char* tenant, int64_t submit, int gpus, int cores,
                 int64_t run) {
    Job j;
    j.name = name;
    j.tenant = w.InternTenant(tenant);
    j.submit = Seconds(submit);
    j.task.gpus = gpus;
    j.task.cpu_milli = cores * 1000;
    j.runtime = Seconds(run);
    w.jobs.push_back(j);
  };
  add("J0", "a", 0, 1, 1, 100);
  add("J1", "b", 0, 0, 8, 100);
  add("J2", "c", 0, 3, 1, 50);
  add("Qb", "b", 1, 3, 1, 10);
  add("Qa", "a", 2, 3, 1, 10);
  w.Finalize();
  return w;
}

using Times = std::vector<std::pair<int64_t, int64_t>>;

Times RunWith(Scheduler& s) {
  auto r = Simulate(Cluster(), Jobs(), s, SimConfig{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  Times out;
  if (!r.ok()) return out;
  for (const auto& j : r.value().jobs)
    out.emplace_back(j.start.us / 1000000, j.finish.us / 1000000);
  return out;
}

TEST(Drf, LowestDominantShareFirst) {
  ComposedScheduler s("drf+first-fit", MakeDrfQueue(4000, 16000, 64LL << 30), MakeFirstFit());
  EXPECT_EQ(RunWith(s), (Times{{0, 100}, {0, 100}, {0, 50}, {60, 70}, {50, 60}}));
}

TEST(Drf, SchedulerTakesTotalsFromTheCluster) {
  auto s = MakeDrf("drf+first-fit", MakeFirstFit());
  EXPECT_EQ(RunWith(*s), (Times{{0, 100}, {0, 100}, {0, 50}, {60, 70}, {50, 60}}));
  EXPECT_EQ(s->queue_policy().name, "drf");
  EXPECT_EQ(s->placement_policy().name, "first-fit");
}

TEST(Drf, FifoSkipForComparison) {
  ComposedScheduler s("fifo-skip+first-fit", MakeFifoSkipQueue(), MakeFirstFit());
  EXPECT_EQ(RunWith(s), (Times{{0, 100}, {0, 100}, {0, 50}, {50, 60}, {60, 70}}));
}

TEST(Drf, VisitOrderFollowsSharesAndMergesTies) {
  // Tenants a, b, c. a runs J0 (1 GPU of 4: 0.25). b and c hold nothing
  // (share 0): their queued jobs are merged by submit. Queued: J1 b@0,
  // J2 c@0, Qb b@1, Qa a@2 -> J1, J2, Qb (share 0, by submit/index), Qa.
  Workload w = Jobs();
  auto q = MakeDrfQueue(4000, 16000, 64LL << 30);
  q->Init(w);
  q->OnStart(0, Seconds(0));
  for (JobIndex j : {4u, 3u, 2u, 1u}) q->Add(j, Seconds(2));
  std::vector<JobIndex> seen;
  q->Visit(Seconds(2), [&](JobIndex j) {
    seen.push_back(j);
    return true;
  });
  EXPECT_EQ(seen, (std::vector<JobIndex>{1, 2, 3, 4}));
  EXPECT_EQ(q->size(), 4u);
  q->Remove(3);
  q->OnFinish(0, Seconds(3));  // a back to 0: all equal, by submit then index
  seen.clear();
  q->Visit(Seconds(3), [&](JobIndex j) {
    seen.push_back(j);
    return j != 2;  // stops after J2
  });
  EXPECT_EQ(seen, (std::vector<JobIndex>{1, 2}));
  EXPECT_FALSE(q->blocking());
}

using mix::Finishes;
using mix::RandomJobs;

TEST(Drf, RandomMixesFinishDeterministically) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const Workload w = RandomJobs(seed);
    auto a = MakeDrf("d", MakeBestFit());
    auto b = MakeDrf("d", MakeBestFit());
    const auto fa = Finishes(*a, w);
    EXPECT_EQ(fa.size(), w.jobs.size());
    EXPECT_EQ(fa, Finishes(*b, w));
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
