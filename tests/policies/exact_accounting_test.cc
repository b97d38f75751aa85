// Exact accounting under preemption (issue 13): allocation and busy time are
// integrals over run intervals, waits count every queued interval.
//
// One node of 8 GPUs. A: t=0, 8 GPUs, 10,000 s. B and C: 8 GPUs, 100 s, at
// 1,000 s and 3,000 s (priority 1 for priority-preempt). Every job has
// utilization 0.5.
//
// tiresias (thresholds 3,600 and 36,000 GPU-s): A's attained service passes
// 3,600 at t=450 (queue 1). B (queue 0) preempts A at 1,000 and runs to
// 1,100; A restarts at 1,100 with 8,000 GPU-s, still in queue 1 at 3,000
// (23,200 GPU-s), so C preempts it again for 3,000..3,100. A has done
// 1,000 + 1,900 = 2,900 s by 3,000 and ends at 3,100 + 7,100 = 10,200.
// priority-preempt gives the same schedule (B and C outrank A).
//
// The arrivals window is [0, 3,000]: the node is held all of it (A 0..1,000
// and 1,100..3,000, B 1,000..1,100), so allocation is 100 % and effective
// utilization 50 %. The old clipping (first start + held time) gave 103.3 %.
// Waits to first start: A 0, B 0, C 0; total queued: A 100 + 100 = 200 s.
#include <gtest/gtest.h>

#include <string>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

ClusterSpec OneNode8() {
  ClusterSpec spec;
  spec.name = "one";
  spec.models = {{"G", 0, 1.0}};
  spec.groups = {{"n", 1, "G", 8, 64000, 512LL << 30, 0}};
  return spec;
}

Workload ThreeJobs() {
  Workload w;
  auto job = [](const char* name, int64_t submit_s, int64_t runtime_s, int32_t prio) {
    Job j;
    j.name = name;
    j.submit = Seconds(submit_s);
    j.runtime = Seconds(runtime_s);
    j.task.gpus = 8;
    j.util = 0.5f;
    j.util_known = true;
    j.priority = prio;
    return j;
  };
  w.jobs = {job("A", 0, 10000, 0), job("B", 1000, 100, 1), job("C", 3000, 100, 1)};
  w.Finalize();
  return w;
}

RunResult RunThree(const std::string& policy, Window window) {
  auto s = BuiltinPolicies().Make(policy);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return RunResult{};
  SimConfig cfg;
  cfg.window = window;
  auto r = Simulate(OneNode8(), ThreeJobs(), *s.value(), cfg);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : RunResult{};
}

class ExactAccounting : public ::testing::TestWithParam<const char*> {};

TEST_P(ExactAccounting, ThreeJobPreemptionCase) {
  const RunResult r = RunThree(GetParam(), Window::kArrivals);
  ASSERT_EQ(r.jobs.size(), 3u);
  const JobRecord& a = r.jobs[0];
  const JobRecord& b = r.jobs[1];
  const JobRecord& c = r.jobs[2];
  EXPECT_EQ(a.preemptions, 2);
  EXPECT_EQ(a.finish, Seconds(10200));
  EXPECT_EQ(b.start, Seconds(1000));
  EXPECT_EQ(c.start, Seconds(3000));
  // Waits to first start and total queued time, by hand above.
  EXPECT_DOUBLE_EQ(a.wait_s(), 0);
  EXPECT_DOUBLE_EQ(a.queued_s, 200);
  EXPECT_DOUBLE_EQ(b.queued_s, 0);
  EXPECT_DOUBLE_EQ(c.queued_s, 0);
  // Per job: held 10,000 s x 8 GPUs, busy half of it.
  EXPECT_DOUBLE_EQ(a.alloc_gpu_s, 80000);
  EXPECT_NEAR(a.useful_gpu_s, 40000, 1e-6);
  const Summary& s = r.summary;
  EXPECT_EQ(s.window_start, Seconds(0));
  EXPECT_EQ(s.window_end, Seconds(3000));
  EXPECT_NEAR(s.allocation_pct, 100.0, 1e-9);
  EXPECT_NEAR(s.effective_util_pct, 50.0, 1e-9);
  EXPECT_NEAR(s.alloc_gpu_h, 8 * 3000 / 3600.0, 1e-9);
  EXPECT_NEAR(s.idle_alloc_gpu_h, 4 * 3000 / 3600.0, 1e-9);
  // Queued: 0, 0, 200 (nearest rank); waits all 0.
  EXPECT_DOUBLE_EQ(s.wait_max_s, 0);
  EXPECT_DOUBLE_EQ(s.queued_max_s, 200);
  EXPECT_NEAR(s.queued_mean_s, 200 / 3.0, 1e-9);
}

TEST_P(ExactAccounting, FullWindowCountsEveryRunInterval) {
  // [0, 10,200]: A 10,000 s, B and C 100 s each, 8 GPUs: 81,600 of 81,600.
  const RunResult r = RunThree(GetParam(), Window::kFull);
  EXPECT_EQ(r.summary.window_end, Seconds(10200));
  EXPECT_NEAR(r.summary.allocation_pct, 100.0, 1e-9);
  EXPECT_NEAR(r.summary.effective_util_pct, 50.0, 1e-9);
  EXPECT_NEAR(r.summary.alloc_gpu_h, 8 * 10200 / 3600.0, 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Preemptive, ExactAccounting,
                         ::testing::Values("tiresias+best-fit", "priority-preempt+best-fit"));

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
