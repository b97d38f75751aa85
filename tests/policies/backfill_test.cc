// EASY backfilling on a hand-computed scenario.
//
// Two nodes of 4 GPUs. Jobs (submit, GPUs x tasks, run time, walltime estimate):
//   A  0 s, 4,     100 s, 100 s     B  0 s, 2, 50 s, 50 s
//   C  1 s, 2 x 4,  10 s,  10 s     D  2 s, 2, 40 s, (40 s | 200 s)
//   E  3 s, 2,     200 s, 200 s
// first-fit placement. t=0: A -> n-0 (full), B -> n-1 (2 left).
// t=1: C needs both nodes: blocked, it is the head. Reservation: releasing by
// estimated end, B's end (50 s) frees n-1 but n-0 is busy until A's end at
// 100 s: shadow time 100 s, C reserved on both nodes.
// t=2: D fits now on n-1 and, with estimate 40 s, ends at 42 s <= 100 s:
// backfilled, 2..42. With estimate 200 s it would end after the shadow time
// and the shadow state has no room beside C: it waits, and starts at 110 s.
// E (200 s) never fits beside C's reservation: it starts when C ends, 110 s.
// Strict fifo for comparison: D and E both wait for C: 110 s.
#include "utilsim/policies/backfill.h"

#include <gtest/gtest.h>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace {

Workload Jobs(int64_t d_estimate) {
  Workload w;
  auto add = [&](const char* name, int64_t submit, int gpus, int tasks, int64_t run, int64_t est) {
    Job j;
    j.name = name;
    j.submit = Seconds(submit);
    j.task.gpus = gpus;
    j.tasks = tasks;
    j.runtime = Seconds(run);
    j.walltime_limit = Seconds(est);
    w.jobs.push_back(j);
  };
  add("A", 0, 4, 1, 100, 100);
  add("B", 0, 2, 1, 50, 50);
  add("C", 1, 4, 2, 10, 10);
  add("D", 2, 2, 1, 40, d_estimate);
  add("E", 3, 2, 1, 200, 200);
  w.Finalize();
  return w;
}

ClusterSpec Cluster() {
  ClusterSpec s;
  s.name = "two";
  s.models = {{"G", 0, 1.0}};
  s.groups = {{"n", 2, "G", 4, 32000, 256LL << 30, 0}};
  return s;
}

std::vector<int64_t> Starts(const std::string& policy, int64_t d_estimate) {
  auto sched = BuiltinPolicies().Make(policy);
  EXPECT_TRUE(sched.ok()) << sched.status().message();
  auto r = Simulate(Cluster(), Jobs(d_estimate), *sched.value(), SimConfig{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  std::vector<int64_t> s;
  for (const auto& j : r.value().jobs) s.push_back(j.start.us / 1000000);
  return s;
}

TEST(EasyBackfill, BackfillsOnlyWhatDoesNotDelayTheHead) {
  EXPECT_EQ(Starts("easy-backfill+first-fit", 40), (std::vector<int64_t>{0, 0, 100, 2, 110}));
}

TEST(EasyBackfill, UsesTheUsersEstimateNotTheRunTime) {
  EXPECT_EQ(Starts("easy-backfill+first-fit", 200), (std::vector<int64_t>{0, 0, 100, 110, 110}));
}

TEST(EasyBackfill, StrictFifoWaitsBehindTheHead) {
  EXPECT_EQ(Starts("fifo+first-fit", 40), (std::vector<int64_t>{0, 0, 100, 110, 110}));
}

TEST(EasyBackfill, EstimateFallsBackToRunTime) {
  Job j;
  j.runtime = Seconds(7);
  EXPECT_EQ(BackfillEstimate(j), Seconds(7));
  j.walltime_limit = Seconds(9);
  EXPECT_EQ(BackfillEstimate(j), Seconds(9));
}

}  // namespace
}  // namespace utilsim
