// Energy accounting (power.h) and wait attribution (wait.h) of the engine,
// on hand-computed scenarios.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "utilsim/engine/power.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/wait.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

ClusterSpec Nodes(int gpus, int count) {
  ClusterSpec s;
  s.name = "x";
  s.models = {{"X", 16LL << 30, 1.0}};
  s.groups = {{"n", count, "X", gpus, 16000, 64LL << 30, 0}};
  return s;
}

Job MakeJob(const std::string& name, int64_t submit_s, int64_t runtime_s, int gpus, float util,
            int32_t milli = 1000) {
  Job j;
  j.name = name;
  j.submit = Seconds(submit_s);
  j.runtime = Seconds(runtime_s);
  j.task.gpus = gpus;
  j.task.gpu_milli = milli;
  j.util = util;
  return j;
}

PowerModel TestPower() {
  PowerModel m;
  m.models = {{"X", GpuPower{50, 80, 300, "test"}}};
  m.fallback = GpuPower{1, 2, 3, "unused"};
  m.node_w_per_gpu = 50;  // 100 W for the 2-GPU node
  m.cpu_node_w = 7;
  m.pue = 1.5;
  return m;
}

// The whole run as the window, the test power model.
SimConfig FullWindowWithTestPower() {
  SimConfig cfg;
  cfg.window = Window::kFull;
  cfg.power = TestPower();
  return cfg;
}

// Starts each job at a scripted time (first fit) and, at scripted passes,
// reports scripted causes; passes happen at every scripted time.
class Script : public Scheduler {
 public:
  std::map<JobIndex, Micros> start_at;
  std::map<std::pair<JobIndex, Micros>, std::pair<WaitCause, JobIndex>> report;
  std::map<JobIndex, Micros> preempt_at;

  std::string label() const override { return "script"; }
  PolicyId queue_policy() const override { return {"script", "0"}; }
  PolicyId placement_policy() const override { return {"first", "0"}; }
  Status Init(const ClusterState&, const Workload&) override { return Status::Ok(); }
  void OnArrival(JobIndex j, Micros) override { q_.push_back(j); }
  void OnFinish(JobIndex, Micros) override {}
  size_t queued() const override { return q_.size(); }
  Micros NextWakeup(Micros now) const override {
    Micros t = kNever;
    for (const auto& [k, v] : report)
      if (k.second > now) t = std::min(t, k.second);
    for (const auto& [j, at] : start_at)
      if (at > now) t = std::min(t, at);
    for (const auto& [j, at] : preempt_at)
      if (at > now) t = std::min(t, at);
    return t;
  }
  Status Pass(PassContext& ctx) override {
    for (const auto& [j, at] : preempt_at) {
      if (at != ctx.now()) continue;
      if (Status s = ctx.Preempt(j); !s.ok()) return s;
      q_.push_back(j);
      start_at[j] = kNever;
    }
    std::vector<JobIndex> keep;
    for (JobIndex j : q_) {
      auto rep = report.find({j, ctx.now()});
      if (rep != report.end())
        ctx.Waiting(j, rep->second.first, WaitCause::kPlacement, rep->second.second);
      auto st = start_at.find(j);
      if (st != start_at.end() && st->second <= ctx.now()) {
        const Job& job = ctx.workload().jobs[j];
        const int64_t n = ctx.cluster().FindFirst(0, job.task, ctx.mask(j));
        if (n >= 0) {
          const auto node = static_cast<NodeIndex>(n);
          if (Status s = ctx.Start(j, {{node, ctx.cluster().PickGpus(node, job.task)}}); !s.ok())
            return s;
          continue;
        }
        if (rep == report.end()) ctx.Waiting(j, WaitCause::kResources);
      }
      keep.push_back(j);
    }
    q_ = keep;
    return Status::Ok();
  }
  std::vector<JobIndex> q_;
};

TEST(Energy, TwoJobsHandComputed) {
  // One node, 2 GPUs (idle 50 W, context 80 W, active 300 W), node 100 W,
  // PUE 1.5. a: 1 GPU at 50 % busy for 100 s; b: 1 GPU at 100 % for 50 s.
  Workload w;
  w.jobs = {MakeJob("a", 0, 100, 1, 0.5f), MakeJob("b", 0, 50, 1, 1.0f)};
  w.Finalize();
  Script s;
  s.start_at = {{0, Seconds(0)}, {1, Seconds(0)}};
  SimConfig cfg = FullWindowWithTestPower();
  cfg.energy_price_per_kwh = 0.2;
  cfg.sample_interval = Seconds(25);
  auto r = Simulate(Nodes(2, 1), w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto& jobs = r.value().jobs;
  // a: 80 W x 100 s + 220 W x 50 busy s = 19,000 J, of which idle 80 x 50.
  EXPECT_NEAR(jobs[0].energy_kwh, 19000 / 3.6e6, 1e-15);
  EXPECT_NEAR(jobs[0].idle_energy_kwh, 4000 / 3.6e6, 1e-15);
  // b: 300 W x 50 s, never idle.
  EXPECT_NEAR(jobs[1].energy_kwh, 15000 / 3.6e6, 1e-15);
  EXPECT_NEAR(jobs[1].idle_energy_kwh, 0, 1e-15);
  const Summary& sum = r.value().summary;
  EXPECT_NEAR(sum.energy_busy_kwh, (15000 + 15000) / 3.6e6, 1e-15);
  EXPECT_NEAR(sum.energy_alloc_idle_kwh, 4000 / 3.6e6, 1e-15);
  EXPECT_NEAR(sum.energy_idle_kwh[static_cast<size_t>(IdleCause::kUnattributed)], 4000 / 3.6e6,
              1e-15);
  // b's GPU is free 50..100 s at 50 W; the node draws 100 W for 100 s.
  EXPECT_NEAR(sum.energy_free_kwh, 2500 / 3.6e6, 1e-15);
  EXPECT_NEAR(sum.energy_node_kwh, 10000 / 3.6e6, 1e-15);
  EXPECT_NEAR(sum.energy_it_kwh, 46500 / 3.6e6, 1e-15);
  EXPECT_NEAR(sum.energy_facility_kwh, 1.5 * 46500 / 3.6e6, 1e-15);
  EXPECT_NEAR(sum.energy_cost, 0.2 * 1.5 * 46500 / 3.6e6, 1e-15);
  EXPECT_NEAR(sum.idle_alloc_energy_cost, 0.2 * 1.5 * 4000 / 3.6e6, 1e-15);
  // Power samples: at 0 both run (190 + 300 + 100 W), at 50 a alone and
  // the free GPU (190 + 50 + 100), at 100 both GPUs free.
  const auto& smp = r.value().samples;
  ASSERT_GE(smp.size(), 5u);
  EXPECT_DOUBLE_EQ(smp[0].power_w, 590);
  EXPECT_DOUBLE_EQ(smp[2].power_w, 340);
  EXPECT_DOUBLE_EQ(smp[4].power_w, 200);
}

TEST(Energy, SharedGpuAttributionSumsToTheGpusEnergy) {
  // Two half-GPU jobs on one GPU (busy 50 % and 25 % of their share), the
  // first for 100 s, the second for 50 s. The GPU draws
  //   0..50 s: 80 + 220 x (0.5 x 0.5 + 0.5 x 0.25) = 162.5 W
  //   50..100: 80 + 220 x 0.25 = 135 W (the free half keeps the context up)
  // = 8,125 + 6,750 = 14,875 J; the other GPU is free: 50 W x 100 s.
  Workload w;
  w.jobs = {MakeJob("a", 0, 100, 1, 0.5f, 500), MakeJob("b", 0, 50, 1, 0.25f, 500)};
  w.Finalize();
  Script s;
  s.start_at = {{0, Seconds(0)}, {1, Seconds(0)}};
  SimConfig cfg = FullWindowWithTestPower();
  auto r = Simulate(Nodes(2, 1), w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto& jobs = r.value().jobs;
  ASSERT_EQ(jobs[0].placement, jobs[1].placement);  // the same GPU
  // a: 0.5 x (80 + 220 x 0.5) x 100 = 9,500 J; b: 0.5 x (80 + 220 x 0.25) x 50 = 3,375 J.
  EXPECT_NEAR(jobs[0].energy_kwh * 3.6e6, 9500, 1e-6);
  EXPECT_NEAR(jobs[1].energy_kwh * 3.6e6, 3375, 1e-6);
  const Summary& sum = r.value().summary;
  // Free: the half GPU at context power 50..100 s (2,000 J) + the other GPU (5,000 J).
  EXPECT_NEAR(sum.energy_free_kwh * 3.6e6, 7000, 1e-6);
  const double gpus_j =
      (sum.energy_busy_kwh + sum.energy_alloc_idle_kwh + sum.energy_free_kwh) * 3.6e6;
  EXPECT_NEAR(gpus_j, 14875 + 5000, 1e-6);
}

TEST(Energy, RejectsABadPowerModel) {
  Workload w;
  w.jobs = {MakeJob("a", 0, 10, 1, 1.0f)};
  w.Finalize();
  Script s;
  SimConfig cfg;
  cfg.power = TestPower();
  cfg.power.models[0].second.active_w = 60;  // below context
  auto r = Simulate(Nodes(1, 1), w, s, cfg);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "power model: model 'X': active_w 60 below context_w 80");
}

TEST(Waits, ReportsBecomeIntervalsThatSumToTheQueuedTime) {
  // x waits 0..50 s. Reports: capacity at 0, none at 10 (not examined: the
  // queue ahead), fragmentation at 20 and 30, reservation (held by y) at 40;
  // it starts at 50. y runs 0..1000 on the only GPU... of another node.
  Workload w;
  w.jobs = {MakeJob("x", 0, 10, 1, 1.0f), MakeJob("y", 0, 1000, 1, 1.0f)};
  w.Finalize();
  Script s;
  s.start_at = {{0, Seconds(50)}, {1, Seconds(0)}};
  s.report[{0, Seconds(0)}] = {WaitCause::kCapacity, kNoBlocker};
  s.report[{0, Seconds(10)}] = {WaitCause::kCount, kNoBlocker};  // skipped below
  s.report.erase({0, Seconds(10)});
  s.report[{1, Seconds(10)}] = {WaitCause::kCapacity, kNoBlocker};  // a pass at 10 for y only
  s.report[{0, Seconds(20)}] = {WaitCause::kFragmentation, kNoBlocker};
  s.report[{0, Seconds(30)}] = {WaitCause::kFragmentation, kNoBlocker};
  s.report[{0, Seconds(40)}] = {WaitCause::kReservation, 1};
  SimConfig cfg;
  auto r = Simulate(Nodes(1, 2), w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const JobRecord& x = r.value().jobs[0];
  EXPECT_EQ(x.start, Seconds(50));
  ASSERT_EQ(x.waits.size(), 4u);
  auto expect = [&](size_t i, int from, int to, WaitCause c, JobIndex b) {
    SCOPED_TRACE(i);
    EXPECT_EQ(x.waits[i].from, Seconds(from));
    EXPECT_EQ(x.waits[i].to, Seconds(to));
    EXPECT_EQ(x.waits[i].cause, c);
    EXPECT_EQ(x.waits[i].blocker, b);
  };
  expect(0, 0, 10, WaitCause::kCapacity, kNoBlocker);
  expect(1, 10, 20, WaitCause::kQueueOrder, kNoBlocker);
  expect(2, 20, 40, WaitCause::kFragmentation, kNoBlocker);
  expect(3, 40, 50, WaitCause::kReservation, 1);
  EXPECT_DOUBLE_EQ(x.wait_cause_s[static_cast<size_t>(WaitCause::kCapacity)], 10);
  EXPECT_DOUBLE_EQ(x.wait_cause_s[static_cast<size_t>(WaitCause::kQueueOrder)], 10);
  EXPECT_DOUBLE_EQ(x.wait_cause_s[static_cast<size_t>(WaitCause::kFragmentation)], 20);
  EXPECT_DOUBLE_EQ(x.wait_cause_s[static_cast<size_t>(WaitCause::kReservation)], 10);
  EXPECT_DOUBLE_EQ(x.queued_s, 50);
  const Summary& sum = r.value().summary;
  EXPECT_DOUBLE_EQ(sum.wait_cause_h[static_cast<size_t>(WaitCause::kFragmentation)], 20 / 3600.0);
}

TEST(Waits, APreemptedJobWaitsOnThePreemptionUntilItRestarts) {
  // a starts at 0, is preempted at 20 and restarts at 35; its second queued
  // interval is all preemption, whatever the scheduler reports meanwhile.
  Workload w;
  w.jobs = {MakeJob("a", 0, 100, 1, 1.0f)};
  w.Finalize();
  Script s;
  s.start_at = {{0, Seconds(0)}};
  s.preempt_at = {{0, Seconds(20)}};
  s.report[{0, Seconds(30)}] = {WaitCause::kCapacity, kNoBlocker};
  // restart at 35
  struct Restart : Script {};
  SimConfig cfg;
  Script* sp = &s;
  sp->report[{0, Seconds(35)}] = {WaitCause::kCapacity, kNoBlocker};
  // Re-arm the start after the preemption (the script clears it).
  class Rearm : public Script {
   public:
    Status Pass(PassContext& ctx) override {
      Status st = Script::Pass(ctx);
      if (ctx.now() == Seconds(20)) start_at[0] = Seconds(35);
      return st;
    }
  } s2;
  s2.start_at = s.start_at;
  s2.preempt_at = s.preempt_at;
  s2.report = s.report;
  auto r = Simulate(Nodes(1, 1), w, s2, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const JobRecord& a = r.value().jobs[0];
  EXPECT_EQ(a.preemptions, 1);
  ASSERT_EQ(a.waits.size(), 1u);
  EXPECT_EQ(a.waits[0].from, Seconds(20));
  EXPECT_EQ(a.waits[0].to, Seconds(35));
  EXPECT_EQ(a.waits[0].cause, WaitCause::kPreemption);
  EXPECT_DOUBLE_EQ(a.wait_cause_s[static_cast<size_t>(WaitCause::kPreemption)], 15);
  EXPECT_DOUBLE_EQ(a.queued_s, 15);
}

TEST(Waits, ClassifyUnplacedFollowsThePrecedence) {
  // Two models: 2 nodes of X (4 GPUs, 8 cores), 1 node of Y (4 GPUs).
  ClusterSpec spec;
  spec.name = "c";
  spec.models = {{"X", 0, 1.0}, {"Y", 0, 1.0}};
  spec.groups = {{"x", 2, "X", 4, 8000, 64LL << 30, 0}, {"y", 1, "Y", 4, 8000, 64LL << 30, 0}};
  auto built = ClusterState::Build(spec);
  ASSERT_TRUE(built.ok());
  ClusterState c = std::move(built).value();
  TaskDemand three;
  three.gpus = 3;
  three.cpu_milli = 1000;
  // Take 2 GPUs of each X node and all 8 cores of x-1: X has 2 + 2 free GPUs.
  ASSERT_TRUE(c.Allocate({0, 0b0011}, TaskDemand{2, 1000, 1000, 0}).ok());
  ASSERT_TRUE(c.Allocate({1, 0b0011}, TaskDemand{2, 1000, 8000, 0}).ok());
  const ModelMask only_x = c.ResolveModels({"X"});
  Job j;
  j.task = three;
  // 3 GPUs of X: 4 free in total but no X node has 3 -> fragmentation.
  EXPECT_EQ(ClassifyUnplaced(j, only_x, c, WaitCause::kPlacement), WaitCause::kFragmentation);
  // Gang of 3 x 2 GPUs of X: 6 > 4 free X GPUs, 8 free in all -> GPU model.
  j.task.gpus = 2;
  j.tasks = 3;
  EXPECT_EQ(ClassifyUnplaced(j, only_x, c, WaitCause::kPlacement), WaitCause::kGpuModel);
  // ... of any model: 3 x 2 <= 8 free, 2 + 2 + 4 -> 4 tasks fit by GPUs; x-1 has
  // no core left, so with CPU only 1 + 2 = 3 tasks: fits -> the if_fits cause.
  EXPECT_EQ(ClassifyUnplaced(j, kAnyModel, c, WaitCause::kReservation), WaitCause::kReservation);
  // Gang of 2 x 2 GPUs of X: x-0 takes one, x-1 has GPUs but no CPU -> co-resource.
  j.tasks = 2;
  EXPECT_EQ(ClassifyUnplaced(j, only_x, c, WaitCause::kPlacement), WaitCause::kCoResource);
  // 5 x 2 GPUs: 10 > 8 free GPUs anywhere -> capacity.
  j.tasks = 5;
  EXPECT_EQ(ClassifyUnplaced(j, kAnyModel, c, WaitCause::kPlacement), WaitCause::kCapacity);
  // A MIG-profile task that fits by every count waits on the MIG layout.
  j.tasks = 1;
  j.task.gpus = 1;
  j.task.mig_profile = 0;
  EXPECT_EQ(ClassifyUnplaced(j, kAnyModel, c, WaitCause::kPlacement), WaitCause::kMigLayout);
}

TEST(Waits, CauseNamesRoundTrip) {
  for (size_t i = 0; i < kWaitCauses; ++i) {
    WaitCause c;
    ASSERT_TRUE(ParseWaitCause(WaitCauseName(static_cast<WaitCause>(i)), &c));
    EXPECT_EQ(static_cast<size_t>(c), i);
  }
  WaitCause c;
  EXPECT_FALSE(ParseWaitCause("outage", &c));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim

namespace utilsim {
namespace UTILSIM_UNITY_ID {

TEST(PowerOff, IdleNodesSwitchOffAndWakeForQueuedJobs) {
  // Two 1-GPU nodes; off after 100 s empty, 50 s to wake. a runs 0..10 on
  // n-0. n-1 is off at 100, n-0 at 110. b arrives at 200: nothing is on, so
  // n-0 (the lowest that fits) is woken and hosts b at 250 (b waits 50 s on
  // power-on), until 260.
  Workload w;
  w.jobs = {MakeJob("a", 0, 10, 1, 1.0f), MakeJob("b", 200, 10, 1, 1.0f)};
  w.Finalize();
  Script s;
  s.start_at = {{0, Seconds(0)}, {1, Seconds(0)}};
  SimConfig cfg = FullWindowWithTestPower();
  cfg.power.node_w_per_gpu = 100;
  cfg.power.pue = 1;
  cfg.power_off_after = Seconds(100);
  cfg.wake_delay = Seconds(50);
  auto r = Simulate(Nodes(1, 2), w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const JobRecord& b = r.value().jobs[1];
  EXPECT_EQ(b.start, Seconds(250));
  EXPECT_EQ(b.placement, "n-0:0");
  ASSERT_EQ(b.waits.size(), 1u);
  EXPECT_EQ(b.waits[0].cause, WaitCause::kPowerOn);
  EXPECT_DOUBLE_EQ(b.wait_cause_s[static_cast<size_t>(WaitCause::kPowerOn)], 50);
  const Summary& sum = r.value().summary;
  EXPECT_EQ(sum.wakeups, 1);
  // Window 0..260: n-1 off 100..260, n-0 off 110..200 = 250 GPU-s.
  EXPECT_NEAR(sum.off_gpu_h, 250 / 3600.0, 1e-12);
  // Busy: a and b at 300 W for 10 s each. Free at 50 W: n-0 10..110 and
  // 200..250 (waking), n-1 0..100 = 250 s. Nodes at 100 W while on or
  // waking: n-0 0..110 and 200..260, n-1 0..100 = 270 s.
  EXPECT_NEAR(sum.energy_busy_kwh * 3.6e6, 6000, 1e-6);
  EXPECT_NEAR(sum.energy_free_kwh * 3.6e6, 12500, 1e-6);
  EXPECT_NEAR(sum.energy_node_kwh * 3.6e6, 27000, 1e-6);
  // Without powering off: free 520 s - 20 busy s = 500 GPU-s idle at 50 W.
  SimConfig on = cfg;
  on.power_off_after = kNever;
  Script s2;
  s2.start_at = s.start_at;
  auto r2 = Simulate(Nodes(1, 2), w, s2, on);
  ASSERT_TRUE(r2.ok()) << r2.status().message();
  EXPECT_EQ(r2.value().jobs[1].start, Seconds(200));
  EXPECT_NEAR(r2.value().summary.energy_free_kwh * 3.6e6, 50.0 * (2 * 210 - 20), 1e-6);
  EXPECT_EQ(r2.value().summary.wakeups, 0);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim

namespace utilsim {
namespace UTILSIM_UNITY_ID {

TEST(PowerOff, AStrandedNodeSwitchedOffDrawsNothing) {
  // s-0 has too few cores for the only job shape: its GPU is stranded even
  // when empty. Switched off at 100 s, its stranded power goes with it (the
  // invariant "stranded energy is part of the free energy" holds).
  ClusterSpec c;
  c.name = "x";
  c.models = {{"X", 16LL << 30, 1.0}};
  c.groups = {{"n", 1, "X", 1, 16000, 64LL << 30, 0}, {"s", 1, "X", 1, 1000, 64LL << 30, 0}};
  Job a = MakeJob("a", 0, 300, 1, 1.0f);
  a.task.cpu_milli = 4000;
  Workload w;
  w.jobs = {a};
  w.Finalize();
  Script s;
  s.start_at = {{0, Seconds(0)}};
  SimConfig cfg = FullWindowWithTestPower();
  cfg.power_off_after = Seconds(100);
  auto r = Simulate(c, w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Summary& sum = r.value().summary;
  // s-0: stranded and free at 50 W for 0..100 s, then off until 300.
  EXPECT_NEAR(sum.energy_stranded_kwh * 3.6e6, 5000, 1e-6);
  EXPECT_NEAR(sum.energy_free_kwh * 3.6e6, 5000, 1e-6);
  EXPECT_NEAR(sum.off_gpu_h, 200 / 3600.0, 1e-12);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim

namespace utilsim {
namespace UTILSIM_UNITY_ID {

TEST(Energy, MigInstancesDrawTheirSlicesShareOfTheGpu) {
  // A 3g.20gb instance of an A100-40GB (not named in the power model) draws
  // 3/7 of the physical GPU's figures: one job busy 100 % for 70 s on it
  // uses 3/7 x 70 W x 70 s = 2,100 J; the free 1g.5gb instance next to it
  // 1/7 x 14 W x 70 s = 140 J.
  PowerModel m;
  m.models = {{"A100-40GB", GpuPower{14, 35, 70, "test"}}};
  m.fallback = GpuPower{1000, 1000, 1000, "must not be used"};
  ClusterSpec c;
  c.name = "mig";
  c.models = {{"A100-40GB/3g.20gb", 20LL << 30, 1.0}, {"A100-40GB/1g.5gb", 5LL << 30, 1.0}};
  c.groups = {{"a", 1, "A100-40GB/3g.20gb", 1, 8000, 32LL << 30, 0},
              {"b", 1, "A100-40GB/1g.5gb", 1, 8000, 32LL << 30, 0}};
  Workload w;
  w.jobs = {MakeJob("a", 0, 70, 1, 1.0f)};
  w.jobs[0].gpu_models = {"A100-40GB/3g.20gb"};
  w.Finalize();
  Script s;
  s.start_at = {{0, Seconds(0)}};
  SimConfig cfg;
  cfg.window = Window::kFull;
  cfg.power = m;
  auto r = Simulate(c, w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(r.value().jobs[0].energy_kwh * 3.6e6, 2100, 1e-6);
  EXPECT_NEAR(r.value().summary.energy_free_kwh * 3.6e6, 140, 1e-6);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
