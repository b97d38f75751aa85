// Tiresias discretised 2D-LAS on hand-computed scenarios (first-fit).
#include <gtest/gtest.h>

#include <string>

#include "policies/random_mix.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/queues_extra.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

ClusterSpec Cluster(int gpus) {
  ClusterSpec s;
  s.name = "one";
  s.models = {{"G", 0, 1.0}};
  s.groups = {{"n", 1, "G", gpus, 32000, 256LL << 30, 0}};
  return s;
}

void Add(Workload* w, const char* name, int64_t submit, int gpus, int64_t run) {
  Job j;
  j.name = name;
  j.submit = Seconds(submit);
  j.task.gpus = gpus;
  j.runtime = Seconds(run);
  w->jobs.push_back(j);
}

RunResult RunTiresias(int gpus, const Workload& w, std::vector<double> thresholds,
                      Micros restart_cost) {
  auto s = MakeTiresias("tiresias+first-fit", MakeFirstFit(), std::move(thresholds));
  SimConfig cfg;
  cfg.restart_cost = restart_cost;
  auto r = Simulate(Cluster(gpus), w, *s, cfg);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : RunResult{};
}

int64_t S(Micros t) { return t.us / 1000000; }

TEST(Tiresias, DemotedJobIsPreemptedOnTime) {
  // One GPU, one threshold at 100 GPU-s.
  // A 0 s, 300 s: starts at 0. B 50 s, 30 s: same queue as A (A has 50
  // GPU-s), waits. A crosses 100 GPU-s at 100 (the wake-up): demoted, B (queue
  // 0) preempts it: B 100..130. A (100 s done) restarts at 130.
  // C 200 s, 50 s: A has 100 + 70 = 170 GPU-s (queue 1): C preempts A at 200,
  // C 200..250. A has done 170 s, restarts at 250, ends at 380.
  // With a 10 s restart cost A redoes 10 s after each preemption: it keeps
  // 90 s at 100, has 160 at 200, keeps 150, ends at 250 + 150 = 400.
  Workload w;
  Add(&w, "A", 0, 1, 300);
  Add(&w, "B", 50, 1, 30);
  Add(&w, "C", 200, 1, 50);
  w.Finalize();
  RunResult r = RunTiresias(1, w, {100}, Micros(0));
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(S(r.jobs[0].start), 0);
  EXPECT_EQ(S(r.jobs[0].finish), 380);
  EXPECT_EQ(r.jobs[0].preemptions, 2);
  EXPECT_EQ(S(r.jobs[1].start), 100);
  EXPECT_EQ(S(r.jobs[1].finish), 130);
  EXPECT_EQ(S(r.jobs[2].start), 200);
  EXPECT_EQ(S(r.jobs[2].finish), 250);
  r = RunTiresias(1, w, {100}, Seconds(10));
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(S(r.jobs[0].finish), 400);
  EXPECT_EQ(S(r.jobs[1].finish), 130);
  EXPECT_EQ(S(r.jobs[2].finish), 250);
}

TEST(Tiresias, AttainedServiceCountsGpus) {
  // Two GPUs, threshold 100 GPU-s. A 0 s, 2 GPUs, 200 s: crosses 100 GPU-s
  // at 50 (2 GPUs x 50 s). B 10 s, 1 GPU, 20 s waits until then, preempts A:
  // B 50..70 (A, 2 GPUs, cannot use the free GPU). A (50 s done) restarts at
  // 70 and ends at 70 + 150 = 220.
  Workload w;
  Add(&w, "A", 0, 2, 200);
  Add(&w, "B", 10, 1, 20);
  w.Finalize();
  RunResult r = RunTiresias(2, w, {100}, Micros(0));
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(S(r.jobs[0].start), 0);
  EXPECT_EQ(S(r.jobs[0].finish), 220);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_EQ(S(r.jobs[1].start), 50);
  EXPECT_EQ(S(r.jobs[1].finish), 70);
}

TEST(Tiresias, PreemptsOnlyLowerQueuesAndOnlyIfItHelps) {
  // Two GPUs, threshold 100 GPU-s. A 0 s, 1 GPU, 300 s (queue 1 from 100).
  // B 90 s, 1 GPU, 300 s (queue 1 from 190). C 120 s, 2 GPUs, 10 s.
  // At 120 only A is below C's queue; releasing A leaves one GPU: nothing is
  // preempted. At 190 B is demoted: victims most recently started first,
  // B then A; both are needed. C 190..200. Then FIFO in queue 1: A (190 s
  // done) 200..310, B (100 s done) 200..400.
  Workload w;
  Add(&w, "A", 0, 1, 300);
  Add(&w, "B", 90, 1, 300);
  Add(&w, "C", 120, 2, 10);
  w.Finalize();
  RunResult r = RunTiresias(2, w, {100}, Micros(0));
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(S(r.jobs[0].start), 0);
  EXPECT_EQ(S(r.jobs[0].finish), 310);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_EQ(S(r.jobs[1].start), 90);
  EXPECT_EQ(S(r.jobs[1].finish), 400);
  EXPECT_EQ(r.jobs[1].preemptions, 1);
  EXPECT_EQ(S(r.jobs[2].start), 190);
  EXPECT_EQ(S(r.jobs[2].finish), 200);
}

TEST(Tiresias, SameQueueIsFifoWithoutPreemption) {
  // One GPU, default thresholds (3600, 36000 GPU-s): every job stays in
  // queue 0: FIFO. A 0..100, B 100..110, C 110..130.
  Workload w;
  Add(&w, "A", 0, 1, 100);
  Add(&w, "B", 1, 1, 10);
  Add(&w, "C", 2, 1, 20);
  w.Finalize();
  RunResult r = RunTiresias(1, w, DefaultTiresiasThresholds(), Micros(0));
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(S(r.jobs[0].finish), 100);
  EXPECT_EQ(S(r.jobs[1].start), 100);
  EXPECT_EQ(S(r.jobs[2].start), 110);
  EXPECT_EQ(S(r.jobs[2].finish), 130);
  EXPECT_EQ(r.jobs[0].preemptions, 0);
}

TEST(Tiresias, RejectsUnsortedThresholds) {
  auto s = MakeTiresias("t", MakeFirstFit(), {100, 50});
  Workload w;
  Add(&w, "A", 0, 1, 10);
  w.Finalize();
  EXPECT_FALSE(Simulate(Cluster(1), w, *s, SimConfig{}).ok());
  EXPECT_EQ(s->queue_policy().name, "tiresias");
}

using mix::Finishes;
using mix::RandomJobs;

TEST(Tiresias, RandomMixesFinishDeterministically) {
  mix::Preemptions() = 0;
  for (uint32_t seed : {1u, 2u, 3u}) {
    const Workload w = RandomJobs(seed);
    auto a = MakeTiresias("t", MakeBestFit(), {600, 3000});
    auto b = MakeTiresias("t", MakeBestFit(), {600, 3000});
    const auto fa = Finishes(*a, w);
    EXPECT_EQ(fa.size(), w.jobs.size());
    EXPECT_EQ(fa, Finishes(*b, w));
  }
  EXPECT_GT(mix::Preemptions(), 0);  // the preemption path was exercised
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
