// priority-preempt on hand-computed scenarios (first-fit, one node of 2 GPUs).
#include <gtest/gtest.h>

#include <string>

#include "policies/random_mix.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/queues_extra.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

ClusterSpec Cluster() {
  ClusterSpec s;
  s.name = "one";
  s.models = {{"G", 0, 1.0}};
  s.groups = {{"n", 1, "G", 2, 32000, 256LL << 30, 0}};
  return s;
}

void Add(Workload* w, const char* name, int64_t submit, int gpus, int64_t run, int32_t prio) {
  Job j;
  j.name = name;
  j.submit = Seconds(submit);
  j.task.gpus = gpus;
  j.runtime = Seconds(run);
  j.priority = prio;
  w->jobs.push_back(j);
}

RunResult RunPreempt(const Workload& w, Micros restart_cost) {
  auto s = MakePriorityPreempt("priority-preempt+first-fit", MakeFirstFit());
  SimConfig cfg;
  cfg.restart_cost = restart_cost;
  auto r = Simulate(Cluster(), w, *s, cfg);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : RunResult{};
}

int64_t S(Micros t) { return t.us / 1000000; }

TEST(PriorityPreempt, PreemptsTheLowestPriorityAndChargesTheRestartCost) {
  // L1 0 s, prio 0, 100 s; L2 10 s, prio 1, 100 s: both GPUs busy.
  // H 20 s, prio 5, 30 s: lowest priority first: L1 alone makes room.
  // H 20..50. L1 has done 20 s, restart cost 5 s keeps 15: restarts at 50
  // (H's GPU), needs 85 s: ends 135. L2 runs 10..110 undisturbed.
  Workload w;
  Add(&w, "L1", 0, 1, 100, 0);
  Add(&w, "L2", 10, 1, 100, 1);
  Add(&w, "H", 20, 1, 30, 5);
  w.Finalize();
  RunResult r = RunPreempt(w, Seconds(5));
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(S(r.jobs[0].start), 0);
  EXPECT_EQ(S(r.jobs[0].finish), 135);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_EQ(S(r.jobs[1].start), 10);
  EXPECT_EQ(S(r.jobs[1].finish), 110);
  EXPECT_EQ(r.jobs[1].preemptions, 0);
  EXPECT_EQ(S(r.jobs[2].start), 20);
  EXPECT_EQ(S(r.jobs[2].finish), 50);
}

TEST(PriorityPreempt, EqualPrioritiesLoseTheMostRecentlyStarted) {
  // L1 0 s and L2 10 s, both prio 0, 100 s. H 20 s, prio 5, 30 s preempts L2
  // (started last). H 20..50; L2 (10 s done, no restart cost) 50..140;
  // L1 0..100.
  Workload w;
  Add(&w, "L1", 0, 1, 100, 0);
  Add(&w, "L2", 10, 1, 100, 0);
  Add(&w, "H", 20, 1, 30, 5);
  w.Finalize();
  RunResult r = RunPreempt(w, Micros(0));
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(S(r.jobs[0].finish), 100);
  EXPECT_EQ(r.jobs[0].preemptions, 0);
  EXPECT_EQ(S(r.jobs[1].start), 10);
  EXPECT_EQ(S(r.jobs[1].finish), 140);
  EXPECT_EQ(r.jobs[1].preemptions, 1);
  EXPECT_EQ(S(r.jobs[2].start), 20);
  EXPECT_EQ(S(r.jobs[2].finish), 50);
}

TEST(PriorityPreempt, NeverPreemptsWhenItWouldNotFitOrForEqualPriority) {
  // L 0 s, prio 0, 100 s; M 0 s, prio 5, 100 s. H 10 s, prio 5, 2 GPUs, 10 s:
  // only L is of lower priority and releasing it leaves one GPU: nothing is
  // preempted. H starts when both end: 100..110.
  Workload w;
  Add(&w, "L", 0, 1, 100, 0);
  Add(&w, "M", 0, 1, 100, 5);
  Add(&w, "H", 10, 2, 10, 5);
  w.Finalize();
  RunResult r = RunPreempt(w, Micros(0));
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(S(r.jobs[0].finish), 100);
  EXPECT_EQ(r.jobs[0].preemptions, 0);
  EXPECT_EQ(S(r.jobs[1].finish), 100);
  EXPECT_EQ(r.jobs[1].preemptions, 0);
  EXPECT_EQ(S(r.jobs[2].start), 100);
  EXPECT_EQ(S(r.jobs[2].finish), 110);
}

TEST(PriorityPreempt, PreemptsSeveralForAGang) {
  // L1 0 s prio 0, L2 5 s prio 1, both 1 GPU, 100 s. H 10 s, prio 2, 2 GPUs,
  // 20 s: needs both: L1 (lowest) then L2. H 10..30; both restart at 30:
  // L1 (10 s done) ends 120, L2 (5 s done) ends 125.
  Workload w;
  Add(&w, "L1", 0, 1, 100, 0);
  Add(&w, "L2", 5, 1, 100, 1);
  Add(&w, "H", 10, 2, 20, 2);
  w.Finalize();
  RunResult r = RunPreempt(w, Micros(0));
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(S(r.jobs[0].finish), 120);
  EXPECT_EQ(S(r.jobs[1].finish), 125);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_EQ(r.jobs[1].preemptions, 1);
  EXPECT_EQ(S(r.jobs[2].start), 10);
  EXPECT_EQ(S(r.jobs[2].finish), 30);
  auto s = MakePriorityPreempt("p", MakeFirstFit());
  EXPECT_EQ(s->queue_policy().name, "priority-preempt");
}

using mix::Finishes;
using mix::RandomJobs;

TEST(PriorityPreempt, RandomMixesFinishDeterministically) {
  mix::Preemptions() = 0;
  for (uint32_t seed : {1u, 2u, 3u}) {
    const Workload w = RandomJobs(seed);
    auto a = MakePriorityPreempt("p", MakeBestFit());
    auto b = MakePriorityPreempt("p", MakeBestFit());
    const auto fa = Finishes(*a, w);
    EXPECT_EQ(fa.size(), w.jobs.size());
    EXPECT_EQ(fa, Finishes(*b, w));
  }
  EXPECT_GT(mix::Preemptions(), 0);  // the preemption path was exercised
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
