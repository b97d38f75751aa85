// colocate under the preemptive schedulers: after a preemption inside a pass
// the scheduler rebuilds colocate's loads (BeginPass) before placing the job
// that preempted, so it joins the victim's shared GPU in the same pass.
// One node of one GPU; solo utilization u = util x milli / 1000.
#include <gtest/gtest.h>

#include <string>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

ClusterSpec OneGpu() {
  ClusterSpec spec;
  spec.name = "c";
  spec.models = {{"G", 0, 1.0}};
  spec.groups = {{"n", 1, "G", 1, 16000, 64LL << 30, 0}};
  return spec;
}

Job Frac(const char* name, int64_t submit_s, int32_t milli, float util, int runtime_s,
         int32_t prio) {
  Job j;
  j.name = name;
  j.submit = Seconds(submit_s);
  j.runtime = Seconds(runtime_s);
  j.task.gpus = 1;
  j.task.gpu_milli = milli;
  j.util = util;
  j.util_known = true;
  j.priority = prio;
  return j;
}

RunResult RunPolicy(const std::string& policy, const Workload& w) {
  auto s = BuiltinPolicies().Make(policy);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return RunResult{};
  auto r = Simulate(OneGpu(), w, *s.value(), SimConfig{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : RunResult{};
}

// The GPU is full: a (300 milli, u .15, priority 5) and l (700, util .25 ->
// u .175, priority 0) from 0 s. h (600, u .6, priority 5) arrives at 100 s
// and preempts l. The victim probe sees loads .15 + .175 + .6 = .925 <= 1
// (and raises the load to .925). Rebuilt after the preemption: .15 + .6 =
// .75, so h starts at 100 s on n:0. Without the rebuild .925 + .6 > 1: h
// (and l) would wait until a ends at 10000 s. l restarts when h ends (200 s)
// with 9,900 s left: 10,100 s.
TEST(ColocatePreempt, PriorityPreemptPlacesOnTheVictimsGpuInTheSamePass) {
  Workload w;
  w.jobs = {Frac("a", 0, 300, 0.5f, 10000, 5), Frac("l", 0, 700, 0.25f, 10000, 0),
            Frac("h", 100, 600, 1, 100, 5)};
  w.Finalize();
  const RunResult r = RunPolicy("priority-preempt+colocate", w);
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(r.jobs[2].start.seconds(), 100);
  EXPECT_EQ(r.jobs[2].placement, "n:0");
  EXPECT_EQ(r.jobs[1].preemptions, 1);
  EXPECT_EQ(r.jobs[1].finish.seconds(), 10100);
  EXPECT_EQ(r.jobs[0].preemptions, 0);
  EXPECT_EQ(r.jobs[0].finish.seconds(), 10000);
}

// Tiresias (queues at 3600 and 36000 GPU-s): at 6000 s l has 0.7 x 6000 =
// 4200 GPU-s (queue 1) and a 1800 (queue 0); h arrives in queue 0 and
// preempts l alone, with the loads of the test above: h starts at 6000 s.
// Without the rebuild it would wait for the next pass (a crosses 3600 GPU-s
// at 12000 s). l, 6000 s done, restarts when h ends (6100 s): 20,100 s.
TEST(ColocatePreempt, TiresiasPlacesOnTheVictimsGpuInTheSamePass) {
  Workload w;
  w.jobs = {Frac("a", 0, 300, 0.5f, 20000, 0), Frac("l", 0, 700, 0.25f, 20000, 0),
            Frac("h", 6000, 600, 1, 100, 0)};
  w.Finalize();
  const RunResult r = RunPolicy("tiresias+colocate", w);
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(r.jobs[2].start.seconds(), 6000);
  EXPECT_EQ(r.jobs[2].placement, "n:0");
  EXPECT_EQ(r.jobs[1].preemptions, 1);
  EXPECT_EQ(r.jobs[1].finish.seconds(), 20100);
  EXPECT_EQ(r.jobs[0].preemptions, 0);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
