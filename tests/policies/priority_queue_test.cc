// The `priority` queue on hand-computed scenarios.
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

void Add(Workload* w, const char* name, int64_t submit, int gpus, int64_t run, int32_t prio) {
  Job j;
  j.name = name;
  j.submit = Seconds(submit);
  j.task.gpus = gpus;
  j.runtime = Seconds(run);
  j.priority = prio;
  w->jobs.push_back(j);
}

using Times = std::vector<std::pair<int64_t, int64_t>>;

Times RunPriority(const ClusterSpec& c, const Workload& w) {
  ComposedScheduler s("priority+first-fit", MakePriorityQueue(), MakeFirstFit());
  auto r = Simulate(c, w, s, SimConfig{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  Times out;
  if (!r.ok()) return out;
  for (const auto& j : r.value().jobs)
    out.emplace_back(j.start.us / 1000000, j.finish.us / 1000000);
  return out;
}

TEST(PriorityQueue, HigherPriorityFirstThenSubmit) {
  // One GPU. A (0 s, 100 s, prio 0) holds it until 100. Then, queued:
  // B (1 s, prio 1), C (2 s, prio 5), D (3 s, prio 5), E (4 s, prio -1), all 10 s.
  // Order: C, D (same priority, C submitted first), B, E:
  // C 100..110, D 110..120, B 120..130, E 130..140.
  Workload w;
  Add(&w, "A", 0, 1, 100, 0);
  Add(&w, "B", 1, 1, 10, 1);
  Add(&w, "C", 2, 1, 10, 5);
  Add(&w, "D", 3, 1, 10, 5);
  Add(&w, "E", 4, 1, 10, -1);
  w.Finalize();
  EXPECT_EQ(RunPriority(Cluster(1), w),
            (Times{{0, 100}, {120, 130}, {100, 110}, {110, 120}, {130, 140}}));
}

TEST(PriorityQueue, SkipsWhatDoesNotFit) {
  EXPECT_EQ(MakePriorityQueue()->id().name, "priority");
  EXPECT_FALSE(MakePriorityQueue()->blocking());
  // Two GPUs. X 0 s, 1 GPU, 100 s. Y 1 s, 2 GPUs, prio 9, 1 s: only one GPU
  // free, skipped. Z 2 s, 1 GPU, prio 0, 50 s: starts at 2 (2..52).
  // Y starts when X ends: 100..101. No preemption: X keeps running.
  Workload w;
  Add(&w, "X", 0, 1, 100, 0);
  Add(&w, "Y", 1, 2, 1, 9);
  Add(&w, "Z", 2, 1, 50, 0);
  w.Finalize();
  EXPECT_EQ(RunPriority(Cluster(2), w), (Times{{0, 100}, {100, 101}, {2, 52}}));
}

TEST(PriorityQueue, EqualPriorityAndSubmitGoByIndex) {
  // One GPU. H 0 s holds it for 100 s; P, Q, R all at 5 s with priority 2:
  // input order P 100..110, Q 110..120, R 120..130.
  Workload w;
  Add(&w, "H", 0, 1, 100, 0);
  Add(&w, "P", 5, 1, 10, 2);
  Add(&w, "Q", 5, 1, 10, 2);
  Add(&w, "R", 5, 1, 10, 2);
  w.Finalize();
  EXPECT_EQ(RunPriority(Cluster(1), w), (Times{{0, 100}, {100, 110}, {110, 120}, {120, 130}}));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
