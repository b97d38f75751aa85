// colocate: hand-computed placements on one node of two 16 GiB GPUs. Solo
// utilization u = util x milli / 1000 (engine/sharing_progress.h).
#include "utilsim/policies/colocate.h"

#include <gtest/gtest.h>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/backfill.h"
#include "utilsim/policies/composed_scheduler.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

ClusterSpec TwoGpus() {
  ClusterSpec spec;
  spec.name = "c";
  spec.models = {{"G", 16LL << 30, 1.0}};
  spec.groups = {{"n", 1, "G", 2, 16000, 64LL << 30, 0}};
  return spec;
}

Job Frac(const char* name, int32_t milli, float util, int runtime_s, int64_t gpu_mem_gib = 0) {
  Job j;
  j.name = name;
  j.runtime = Seconds(runtime_s);
  j.task.gpus = 1;
  j.task.gpu_milli = milli;
  j.task.gpu_mem_bytes = gpu_mem_gib << 30;
  j.util = util;
  j.util_known = true;
  return j;
}

RunResult RunColocate(const Workload& w, double threshold) {
  ComposedScheduler s("colocate", MakeFifoQueue(), MakeColocate(threshold));
  SimConfig cfg;
  auto r = Simulate(TwoGpus(), w, s, cfg);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : RunResult{};
}

TEST(Colocate, ThresholdKeepsBusyJobsApart) {
  // Threshold 0.8. a (500, u .5) -> GPU 0 (nothing shared yet: best fit).
  // b (400, u .4): GPU 0 would reach .9 > .8 -> whole-free GPU 1 (best fit
  //   would have put it on GPU 0).
  // c (300, u .3): GPU 0 -> .8, GPU 1 -> .7; the fuller one: GPU 0.
  // d (200, util .5 -> u .1): GPU 0 -> .9 no; GPU 1 -> .5: GPU 1.
  // e (300, u .3): GPU 0 has 200 free; GPU 1 -> .8: GPU 1.
  // f (100, u .1): GPU 0 -> .9, GPU 1 -> .9: waits until all end at 100 s.
  Workload w;
  w.jobs = {Frac("a", 500, 1, 100),    Frac("b", 400, 1, 100), Frac("c", 300, 1, 100),
            Frac("d", 200, 0.5f, 100), Frac("e", 300, 1, 100), Frac("f", 100, 1, 10)};
  w.Finalize();
  const RunResult r = RunColocate(w, 0.8);
  ASSERT_EQ(r.jobs.size(), 6u);
  const char* want[] = {"n:0", "n:1", "n:0", "n:1", "n:1", "n:0"};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(r.jobs[i].placement, want[i]) << r.jobs[i].name;
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(r.jobs[i].start, Seconds(0));
  EXPECT_EQ(r.jobs[5].start, Seconds(100));
  EXPECT_EQ(r.meta.placement_policy, "colocate");
}

TEST(Colocate, DefaultThresholdPacksByUtilization) {
  // Threshold 1.0: a (500, u .5) GPU 0; b (400, u .4) GPU 0 (.9);
  // c (300, util .2 -> u .06): GPU 0 has 100 free -> GPU 1 (whole-free);
  // d (100, u .1): GPU 0 -> 1.0, GPU 1 -> .16: the fuller, GPU 0.
  Workload w;
  w.jobs = {Frac("a", 500, 1, 100), Frac("b", 400, 1, 100), Frac("c", 300, 0.2f, 100),
            Frac("d", 100, 1, 100)};
  w.Finalize();
  const RunResult r = RunColocate(w, kDefaultColocateThreshold);
  const char* want[] = {"n:0", "n:0", "n:1", "n:0"};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(r.jobs[i].placement, want[i]) << r.jobs[i].name;
}

TEST(Colocate, GpuMemoryIsAHardLimit) {
  // Two 300-milli jobs of 10 GiB on 16 GiB GPUs: 20 GiB would not fit on
  // one GPU, so the second goes to GPU 1 although GPU 0 has share and
  // utilization room; a third of 6 GiB fits next to the first (16 GiB).
  Workload w;
  w.jobs = {Frac("a", 300, 0.5f, 100, 10), Frac("b", 300, 0.5f, 100, 10),
            Frac("c", 300, 0.5f, 100, 6)};
  w.Finalize();
  const RunResult r = RunColocate(w, 1.0);
  EXPECT_EQ(r.jobs[0].placement, "n:0");
  EXPECT_EQ(r.jobs[1].placement, "n:1");
  EXPECT_EQ(r.jobs[2].placement, "n:0");
}

TEST(Colocate, WholeGpuJobsUseBestFitAndRegistryNamesIt) {
  Workload w;
  Job a = Frac("a", 1000, 1, 100);
  w.jobs = {a, Frac("b", 500, 1, 100)};
  w.Finalize();
  auto s = BuiltinPolicies().Make("colocate");
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto r = Simulate(TwoGpus(), w, *s.value(), SimConfig{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().jobs[0].placement, "n:0");
  EXPECT_EQ(r.value().jobs[1].placement, "n:1");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// Under EASY backfill the loads are rebuilt each pass too. a (500, u .5) and
// b (400, u .4) share GPU 0 (.9). a ends at 100 s; c (500, u .5) arrives at
// 150 s: GPU 0 now carries .4, c fits there (.9) and takes it, the fuller
// shared GPU. With loads left from the first pass (.9) c would go to GPU 1.
TEST(Colocate, LoadsRebuiltEachPassUnderBackfill) {
  Workload w;
  w.jobs = {Frac("a", 500, 1, 100), Frac("b", 400, 1, 1000), Frac("c", 500, 1, 100)};
  w.jobs[2].submit = Seconds(150);
  w.Finalize();
  auto s = MakeEasyBackfill("easy+colocate", MakeColocate(1.0));
  SimConfig cfg;
  auto r = Simulate(TwoGpus(), w, *s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().jobs.size(), 3u);
  EXPECT_EQ(r.value().jobs[0].placement, "n:0");
  EXPECT_EQ(r.value().jobs[1].placement, "n:0");
  EXPECT_EQ(r.value().jobs[2].placement, "n:0");
  EXPECT_EQ(r.value().jobs[2].start, Seconds(150));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
