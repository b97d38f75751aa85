// Power caps and power budgets (docs/energy.md) in runs under the real
// schedulers: hand-computed cases, and every scheduler keeping a budget on a
// random workload.
//
// Model X: idle 50 W, context 80 W, busy 300 W, TDP 400 W; no node power.
// Under a budget a whole X GPU counts TDP - idle = 350 W, or cap - idle
// when capped.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "mixed_workload.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

PowerModel XPower() {
  PowerModel m;
  m.models = {{"X", GpuPower{50, 80, 300, "test", 400, 0}}};
  m.fallback = GpuPower{1, 2, 3, "unused", 0, 0};
  m.cap_curve = {{0.5, 1.2, 0.9}, {1.0, 1.0, 1.0}};
  return m;
}

ClusterSpec XNodes(int count, int gpus) {
  ClusterSpec c;
  c.name = "x";
  c.models = {{"X", 0, 1.0}};
  c.groups = {{"n", count, "X", gpus, 8000, 64LL << 30, 0}};
  return c;
}

Job J(const char* name, int64_t submit, int gpus, int64_t run, float util = 0) {
  Job j;
  j.name = name;
  j.submit = Seconds(submit);
  j.task.gpus = gpus;
  j.runtime = Seconds(run);
  j.walltime_limit = Seconds(run);
  j.util = util;
  return j;
}

double Cause(const JobRecord& r, WaitCause c) { return r.wait_cause_s[static_cast<size_t>(c)]; }

Result<RunResult> RunPolicy(const ClusterSpec& c, const Workload& w, const SimConfig& cfg,
                            const char* policy = "fifo+first-fit") {
  auto s = BuiltinPolicies().Make(policy);
  if (!s.ok()) return s.status();
  return Simulate(c, w, *s.value(), cfg);
}

// One GPU at 50 % busy for 1000 recorded s, capped at 150 W (g = 0.5: busy
// part 1.2x as long, busy power 300 x 0.9 / 1.2 = 225 W): it runs
// 500 + 500 x 1.2 = 1100 s and draws 80 x 1100 + (225 - 80) x 600 J.
TEST(PowerCapRun, SlowsOnlyTheBusyPartAndLowersItsPower) {
  ClusterSpec c = XNodes(1, 1);
  SimConfig cfg;
  cfg.window = Window::kFull;
  cfg.power = XPower();
  auto caps = ParsePowerCaps("X=150");
  ASSERT_TRUE(caps.ok());
  ASSERT_TRUE(ApplyPowerCaps(caps.value(), &c, &cfg.power).ok());
  Workload w;
  w.jobs = {J("A", 0, 1, 1000, 0.5f)};
  w.Finalize();
  auto r = RunPolicy(c, w, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const JobRecord& a = r.value().jobs[0];
  EXPECT_EQ(a.finish - a.start, Seconds(1100));
  EXPECT_NEAR(a.energy_kwh, (80.0 * 1100 + 145.0 * 600) / 3.6e6, 1e-12);
  // Uncapped: 1000 s, 80 x 1000 + 220 x 500 J.
  ClusterSpec plain = XNodes(1, 1);
  SimConfig base;
  base.window = Window::kFull;
  base.power = XPower();
  auto u = RunPolicy(plain, w, base);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u.value().jobs[0].finish - u.value().jobs[0].start, Seconds(1000));
  EXPECT_NEAR(u.value().jobs[0].energy_kwh, (80.0 * 1000 + 220.0 * 500) / 3.6e6, 1e-12);
}

// Two 1-GPU nodes, idle draw 100 W, budget 450 W: 350 W of headroom, one
// uncapped GPU (350 W) at a time. B waits 100 s on the budget though n-1 is
// free; capped at 200 W (150 W each) both run at once.
TEST(PowerBudgetRun, AJobWaitsOnTheBudgetWithFreeGpus) {
  const ClusterSpec c = XNodes(2, 1);
  Workload w;
  w.jobs = {J("A", 0, 1, 100), J("B", 0, 1, 100)};
  w.Finalize();
  SimConfig cfg;
  cfg.power = XPower();
  cfg.power_budget_w = 450;
  auto r = RunPolicy(c, w, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const JobRecord& b = r.value().jobs[1];
  EXPECT_EQ(r.value().jobs[0].start, Seconds(0));
  EXPECT_EQ(b.start, Seconds(100));
  EXPECT_DOUBLE_EQ(Cause(b, WaitCause::kPowerBudget), 100);
  EXPECT_DOUBLE_EQ(b.queued_s, 100);
  EXPECT_DOUBLE_EQ(r.value().summary.wait_cause_h[static_cast<size_t>(WaitCause::kPowerBudget)],
                   100.0 / 3600);

  ClusterSpec capped = c;
  SimConfig cc = cfg;
  ASSERT_TRUE(ApplyPowerCaps({PowerCap{"X", 200, 0}}, &capped, &cc.power).ok());
  auto r2 = RunPolicy(capped, w, cc);
  ASSERT_TRUE(r2.ok()) << r2.status().message();
  EXPECT_EQ(r2.value().jobs[1].start, Seconds(0));  // util 0: the cap costs no time
}

TEST(PowerBudgetRun, ABudgetBelowTheIdleDrawIsAnError) {
  const ClusterSpec c = XNodes(2, 1);
  Workload w;
  w.jobs = {J("A", 0, 1, 100)};
  w.Finalize();
  SimConfig cfg;
  cfg.power = XPower();
  cfg.power_budget_w = 99;
  auto r = RunPolicy(c, w, cfg);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("power budget 99 W is below the cluster's idle draw 100 W"),
            std::string::npos)
      << r.status().message();
  cfg.power_budget_w = 0;
  // No racks listed: every node is in "rack-0", whose idle draw is 100 W.
  cfg.rack_power_budget_w = 99;
  auto r2 = RunPolicy(c, w, cfg);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("rack power budget 99 W is below rack 'rack-0's idle draw "
                                       "100 W"),
            std::string::npos)
      << r2.status().message();
}

// A gang the budget can never hold is rejected at arrival, with the figures.
// A gang the budget holds only one task of at the time: three 1-GPU nodes,
// idle draw 150 W, budget 850 W (room for two GPUs). A runs 0..100 s; gang
// G (two tasks, submitted at 1 s) finds two free GPUs but room for one, so
// it waits 1..100 s on the budget (not on its placement), then starts.
TEST(PowerBudgetRun, AGangWaitsOnTheBudgetForAllItsTasks) {
  const ClusterSpec c = XNodes(3, 1);
  Workload w;
  Job g = J("G", 1, 1, 100);
  g.tasks = 2;
  w.jobs = {J("A", 0, 1, 100), g};
  w.Finalize();
  SimConfig cfg;
  cfg.power = XPower();
  cfg.power_budget_w = 850;
  auto r = RunPolicy(c, w, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const JobRecord& gang = r.value().jobs[1];
  EXPECT_EQ(gang.start, Seconds(100));
  EXPECT_DOUBLE_EQ(Cause(gang, WaitCause::kPowerBudget), 99);
  EXPECT_DOUBLE_EQ(gang.queued_s, 99);
}

TEST(PowerBudgetRun, AJobTheBudgetNeverHoldsIsRejected) {
  const ClusterSpec c = XNodes(2, 1);
  Workload w;
  Job g = J("G", 0, 1, 100);
  g.tasks = 2;  // 700 W above idle
  w.jobs = {g, J("A", 5, 1, 100)};
  w.Finalize();
  SimConfig cfg;
  cfg.power = XPower();
  cfg.power_budget_w = 450;
  auto r = RunPolicy(c, w, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().jobs[0].reason, "needs 700 W above idle, the power budget leaves 350 W");
  EXPECT_EQ(r.value().jobs[1].start, Seconds(5));
}

// Two 2-GPU nodes, one per rack; rack budget 450 W = 100 W idle + one GPU.
// First fit puts A on n-0, B on n-1 (n-0's rack is full), and C waits on the
// budget until A ends at 100.
TEST(PowerBudgetRun, RackBudgetSpreadsJobsOverRacks) {
  ClusterSpec c = XNodes(2, 2);
  c.topology.nodes_per_rack = 1;
  Workload w;
  w.jobs = {J("A", 0, 1, 100), J("B", 0, 1, 300), J("C", 0, 1, 100)};
  w.Finalize();
  SimConfig cfg;
  cfg.power = XPower();
  cfg.rack_power_budget_w = 450;
  auto r = RunPolicy(c, w, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto& jobs = r.value().jobs;
  EXPECT_EQ(jobs[0].placement, "n-0:0");
  EXPECT_EQ(jobs[1].placement, "n-1:0");
  EXPECT_EQ(jobs[2].start, Seconds(100));
  EXPECT_EQ(jobs[2].placement, "n-0:0");
  EXPECT_DOUBLE_EQ(Cause(jobs[2], WaitCause::kPowerBudget), 100);
}

// Every scheduler keeps a budget that binds (the engine's check of each
// start fails the run otherwise), and every queued second is still
// attributed once.
TEST(PowerBudgetRun, EverySchedulerKeepsTheBudget) {
  ClusterSpec c = testutil::MixedCluster();
  c.topology.nodes_per_rack = 2;
  testutil::MixedWorkloadShape shape;
  shape.seed = 11;
  shape.jobs = 120;
  const Workload w = testutil::RandomMixedWorkload(shape);
  SimConfig cfg;
  cfg.power = XPower();
  cfg.power.fallback = GpuPower{50, 80, 300, "test", 400, 0};  // models A and B
  // 28 GPUs idle at 50 W; room for 12 whole GPUs (350 W each) in all, and
  // for 6, 5 and 6 in the racks (8, 12 and 8 GPUs).
  cfg.power_budget_w = 28 * 50 + 12 * 350;
  cfg.rack_power_budget_w = 16 * 50 + 5 * 350;
  cfg.restart_cost = Seconds(30);
  const PolicyRegistry reg = BuiltinPolicies();
  int runs = 0, waited = 0;
  for (const PolicyInfo& p : reg.List()) {
    std::vector<std::string> names;
    if (p.kind == "queue") names = {p.name + "+best-fit"};
    if (p.kind == "placement") names = {"fifo-skip+" + p.name};
    for (const std::string& name : names) {
      SCOPED_TRACE(name);
      auto s = reg.Make(name, 3);
      if (!s.ok()) continue;
      auto r = Simulate(c, w, *s.value(), cfg);
      EXPECT_TRUE(r.ok()) << r.status().message();
      if (!r.ok()) continue;
      ++runs;
      bool any = false;
      for (const JobRecord& j : r.value().jobs) {
        if (j.queued_s < 0) continue;
        double sum = 0;
        for (double v : j.wait_cause_s) sum += v;
        EXPECT_NEAR(sum, j.queued_s, 1e-6) << j.name;
        any = any || Cause(j, WaitCause::kPowerBudget) > 0;
      }
      waited += any;
    }
  }
  EXPECT_GE(runs, 15);
  EXPECT_GE(waited, runs / 2);  // the budget binds under most schedulers
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
