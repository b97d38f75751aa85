// Shortest job first on hand-computed scenarios.
//
// One node with 1 GPU, first-fit. Jobs (submit s, run time s, walltime s):
//   A 0, 100, -      B 1, 50, 50     C 2, 10, 10
//   D 3, 30, 5 (the user under-estimates)    E 4, 10, 10
// A starts at 0 (alone). At 100 the queue is B, C, D, E.
// sjf (estimates B 50, C 10, D 5, E 10; C before E by submit):
//   D 100..130, C 130..140, E 140..150, B 150..200.
// sjf-oracle (run times B 50, C 10, D 30, E 10):
//   C 100..110, E 110..120, D 120..150, B 150..200.
#include <gtest/gtest.h>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/composed_scheduler.h"
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

void Add(Workload* w, const char* name, int64_t submit, int gpus, int64_t run, int64_t est) {
  Job j;
  j.name = name;
  j.submit = Seconds(submit);
  j.task.gpus = gpus;
  j.runtime = Seconds(run);
  if (est > 0) j.walltime_limit = Seconds(est);
  w->jobs.push_back(j);
}

// (start, finish) in seconds per job, in job order.
std::vector<std::pair<int64_t, int64_t>> RunQueue(const ClusterSpec& c, const Workload& w,
                                                  std::unique_ptr<QueuePolicy> q) {
  ComposedScheduler s("test", std::move(q), MakeFirstFit());
  auto r = Simulate(c, w, s, SimConfig{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  std::vector<std::pair<int64_t, int64_t>> out;
  if (!r.ok()) return out;
  for (const auto& j : r.value().jobs)
    out.emplace_back(j.start.us / 1000000, j.finish.us / 1000000);
  return out;
}

Workload FiveJobs() {
  Workload w;
  Add(&w, "A", 0, 1, 100, 0);
  Add(&w, "B", 1, 1, 50, 50);
  Add(&w, "C", 2, 1, 10, 10);
  Add(&w, "D", 3, 1, 30, 5);
  Add(&w, "E", 4, 1, 10, 10);
  w.Finalize();
  return w;
}

using Times = std::vector<std::pair<int64_t, int64_t>>;

TEST(Sjf, OrdersByTheUsersEstimate) {
  EXPECT_EQ(RunQueue(Cluster(1), FiveJobs(), MakeSjfQueue()),
            (Times{{0, 100}, {150, 200}, {130, 140}, {100, 130}, {140, 150}}));
}

TEST(Sjf, OracleOrdersByRecordedRunTime) {
  EXPECT_EQ(RunQueue(Cluster(1), FiveJobs(), MakeSjfOracleQueue()),
            (Times{{0, 100}, {150, 200}, {100, 110}, {120, 150}, {110, 120}}));
}

TEST(Sjf, NamesAndIsNonBlocking) {
  EXPECT_EQ(MakeSjfQueue()->id().name, "sjf");
  EXPECT_EQ(MakeSjfOracleQueue()->id().name, "sjf-oracle");
  EXPECT_FALSE(MakeSjfQueue()->blocking());
  // Two GPUs. X 0, 1 GPU, 100 s. Y 1, 2 GPUs, 1 s (shortest, but only one GPU
  // is free: skipped). Z 2, 1 GPU, 50 s: starts at 2 on the free GPU.
  // Y starts when both are free: X ends at 100, Z at 52 -> Y 100..101.
  Workload w;
  Add(&w, "X", 0, 1, 100, 0);
  Add(&w, "Y", 1, 2, 1, 0);
  Add(&w, "Z", 2, 1, 50, 0);
  w.Finalize();
  EXPECT_EQ(RunQueue(Cluster(2), w, MakeSjfQueue()), (Times{{0, 100}, {100, 101}, {2, 52}}));
}

TEST(Sjf, TiesGoBySubmitThenIndex) {
  // One GPU. H 0, 100 s holds it. P and Q both submit at 5 with 20 s; R at 1
  // with 20 s. At 100: R (earlier submit), then P (lower index), then Q.
  Workload w;
  Add(&w, "H", 0, 1, 100, 0);
  Add(&w, "R", 1, 1, 20, 0);
  Add(&w, "P", 5, 1, 20, 0);
  Add(&w, "Q", 5, 1, 20, 0);
  w.Finalize();
  EXPECT_EQ(RunQueue(Cluster(1), w, MakeSjfQueue()),
            (Times{{0, 100}, {100, 120}, {120, 140}, {140, 160}}));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
