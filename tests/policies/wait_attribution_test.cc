// Wait attribution (engine wait.h, docs/explain.md) under the real schedulers:
// a hand-computed EASY backfilling case, and the per-cause sum of every job
// of a random workload under every queue policy.
//
// Hand case: one node of model G (g-0) and one of model K (k-0), 2 GPUs
// each, easy-backfill+first-fit, estimates exact. In submit order first fit
// puts A1, A4 on g-0 and A2, A3 on k-0:
//   A1 0..150, A4 0..400 (g-0)    A2 0..100, A3 0..200 (k-0)
//   H  1 s, 2 GPUs, 10 s          X  2 s, 1 GPU of model K only, 1000 s
// H (the head) waits 1..150 on capacity (0, then 1 GPU free), 150..200 on
// fragmentation (one free GPU on each node), and starts at 200 on k-0.
// X: 2..100 capacity (nothing free); 100..200 reservation, held by H: from
// 100 it fits k-0's free GPU, but would run past H's shadow time (200 s),
// when H is reserved there; 200..210 gpu-model: H holds k-0, the free GPU
// is g-0's; it starts at 210. H's estimated start, its reservation, is 200.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "mixed_workload.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

Job J(const char* name, int64_t submit, int gpus, int64_t run) {
  Job j;
  j.name = name;
  j.submit = Seconds(submit);
  j.task.gpus = gpus;
  j.runtime = Seconds(run);
  j.walltime_limit = Seconds(run);
  return j;
}

double Cause(const JobRecord& r, WaitCause c) { return r.wait_cause_s[static_cast<size_t>(c)]; }

TEST(WaitAttribution, EasyBackfillHandComputed) {
  ClusterSpec c;
  c.name = "two";
  c.models = {{"G", 0, 1.0}, {"K", 0, 1.0}};
  c.groups = {{"g", 1, "G", 2, 8000, 64LL << 30, 0}, {"k", 1, "K", 2, 8000, 64LL << 30, 0}};
  Workload w;
  Job x = J("X", 2, 1, 1000);
  x.gpu_models = {"K"};
  w.jobs = {J("A1", 0, 1, 150), J("A4", 0, 1, 400), J("A2", 0, 1, 100),
            J("A3", 0, 1, 200), J("H", 1, 2, 10),   x};
  w.Finalize();
  auto s = BuiltinPolicies().Make("easy-backfill+first-fit");
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto r = Simulate(c, w, *s.value(), SimConfig{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const JobRecord& h = r.value().jobs[4];
  const JobRecord& xr = r.value().jobs[5];
  ASSERT_EQ(h.name, "H");
  EXPECT_EQ(h.start, Seconds(200));
  EXPECT_DOUBLE_EQ(Cause(h, WaitCause::kCapacity), 149);
  EXPECT_DOUBLE_EQ(Cause(h, WaitCause::kFragmentation), 50);
  EXPECT_DOUBLE_EQ(h.queued_s, 199);
  // H's reservation (the shadow time) is its estimated start in both
  // intervals: k-0 is wholly free at 200, when A3 ends. X has none.
  ASSERT_EQ(h.waits.size(), 2u);
  EXPECT_EQ(h.waits[0].estimate, Seconds(200));
  EXPECT_EQ(h.waits[1].estimate, Seconds(200));
  ASSERT_EQ(xr.name, "X");
  EXPECT_EQ(xr.start, Seconds(210));
  ASSERT_EQ(xr.waits.size(), 3u);
  EXPECT_DOUBLE_EQ(Cause(xr, WaitCause::kCapacity), 98);
  EXPECT_DOUBLE_EQ(Cause(xr, WaitCause::kReservation), 100);
  EXPECT_DOUBLE_EQ(Cause(xr, WaitCause::kGpuModel), 10);
  EXPECT_EQ(xr.waits[1].blocker, h.job);
  EXPECT_EQ(xr.waits[0].estimate, kNever);
  // Strict FIFO: X is behind H and not examined while H waits.
  auto f = BuiltinPolicies().Make("fifo+first-fit");
  ASSERT_TRUE(f.ok());
  auto rf = Simulate(c, w, *f.value(), SimConfig{});
  ASSERT_TRUE(rf.ok()) << rf.status().message();
  const JobRecord& xf = rf.value().jobs[5];
  EXPECT_EQ(xf.start, Seconds(210));
  EXPECT_DOUBLE_EQ(Cause(xf, WaitCause::kQueueOrder), 198);
  EXPECT_DOUBLE_EQ(Cause(xf, WaitCause::kGpuModel), 10);
}

// Every queued second of every job is attributed exactly once, under every
// queue policy (and a few placements), on a random workload with gangs,
// model constraints, CPU-heavy jobs and recorded starts.
TEST(WaitAttribution, CausesSumToTheQueuedTimeUnderEveryScheduler) {
  const ClusterSpec c = testutil::MixedCluster();
  testutil::MixedWorkloadShape shape;
  shape.seed = 7;
  shape.jobs = 160;
  shape.submit_span_s = 4000;
  shape.runtime_span_s = 1500;
  shape.gang_one_in = 5;
  shape.cpu_cores_max = 12;
  shape.mem_gib_max = 40;
  shape.pin_model_a_one_in = 6;
  shape.priorities = 3;
  shape.tenants = 4;
  const Workload w = testutil::RandomMixedWorkload(shape);
  const PolicyRegistry reg = BuiltinPolicies();
  std::set<WaitCause> seen;
  int runs = 0;
  for (const PolicyInfo& p : reg.List()) {
    std::vector<std::string> names;
    if (p.kind == "queue") names = {p.name + "+best-fit", p.name + "+first-fit"};
    if (p.kind == "placement") names = {"fifo-skip+" + p.name};
    for (const std::string& name : names) {
      SCOPED_TRACE(name);
      auto s = reg.Make(name, 3);
      if (!s.ok()) continue;  // a combination the registry refuses
      SimConfig cfg;
      cfg.restart_cost = Seconds(30);
      auto r = Simulate(c, w, *s.value(), cfg);
      ASSERT_TRUE(r.ok()) << r.status().message();
      ++runs;
      for (const JobRecord& j : r.value().jobs) {
        if (j.queued_s < 0) continue;
        double sum = 0, from_intervals = 0;
        for (double v : j.wait_cause_s) sum += v;
        for (const WaitInterval& v : j.waits) {
          from_intervals += (v.to - v.from).seconds();
          seen.insert(v.cause);
          EXPECT_LT(v.from, v.to);
        }
        EXPECT_NEAR(sum, j.queued_s, 1e-6) << j.name;
        EXPECT_NEAR(from_intervals, j.queued_s, 1e-6) << j.name;
      }
    }
  }
  EXPECT_GE(runs, 15);
  for (WaitCause cause : {WaitCause::kCapacity, WaitCause::kFragmentation, WaitCause::kGpuModel,
                          WaitCause::kQueueOrder, WaitCause::kReservation,
                          WaitCause::kRecordedStart, WaitCause::kPreemption})
    EXPECT_TRUE(seen.count(cause)) << WaitCauseName(cause);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
