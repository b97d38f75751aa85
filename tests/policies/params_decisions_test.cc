// Policy parameters change decisions (hand-computed scenarios, one per
// parameter), and the defaults are the unparameterized policies.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "policies/random_mix.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/backfill.h"
#include "utilsim/policies/colocate.h"
#include "utilsim/policies/composed_scheduler.h"
#include "utilsim/policies/packing.h"
#include "utilsim/policies/queues_extra.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;

std::unique_ptr<Scheduler> Make(const std::string& name) {
  auto s = BuiltinPolicies().Make(name);
  EXPECT_TRUE(s.ok()) << name << ": " << s.status().message();
  return s.ok() ? std::move(s).value() : nullptr;
}

RunResult Simulated(const ClusterSpec& c, const Workload& w, Scheduler& s) {
  auto r = Simulate(c, w, s, SimConfig{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : RunResult{};
}

ClusterSpec Nodes(int count, int gpus, int64_t cpu_milli) {
  ClusterSpec s;
  s.name = "t";
  s.models = {{"G", 16 * kGiB, 1.0}};
  s.groups = {{"n", count, "G", gpus, cpu_milli, 256 * kGiB, 0}};
  return s;
}

Job GpuJob(const char* name, int64_t submit_s, int gpus, int64_t run_s) {
  Job j;
  j.name = name;
  j.submit = Seconds(submit_s);
  j.task.gpus = gpus;
  j.runtime = Seconds(run_s);
  return j;
}

int64_t S(Micros t) { return t.us / 1000000; }

// tiresias:thresholds. One GPU; A 0 s, 10,000 s; B 5,000 s, 8,000 s.
// thresholds=3250/7200:
//   t=5000: A has 5,000 GPU-s (queue 1), B (queue 0) preempts it.
//   t=8250: B reaches 3,250 (queue 1, A's queue): no preemption.
//   t=12200: B reaches 7,200 (queue 2): A (queue 1) preempts B and runs its
//   last 5,000 s: A ends at 17,200. B restarts with 800 s left: 18,000.
// Default (3600/36000): at 5,000 B preempts A as above; B reaches 3,600 at
//   8,600 (queue 1, A's) and never 36,000: B runs to 13,000, then A to 18,000.
TEST(ParamDecisions, TiresiasThresholdsMoveTheDemotions) {
  Workload w;
  w.jobs = {GpuJob("A", 0, 1, 10000), GpuJob("B", 5000, 1, 8000)};
  w.Finalize();
  const ClusterSpec c = Nodes(1, 1, 32000);
  RunResult r = Simulated(c, w, *Make("tiresias:thresholds=3250/7200"));
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(S(r.jobs[0].finish), 17200);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_EQ(S(r.jobs[1].start), 5000);
  EXPECT_EQ(S(r.jobs[1].finish), 18000);
  EXPECT_EQ(r.jobs[1].preemptions, 1);
  EXPECT_EQ(r.meta.queue_policy_params, "thresholds=3250/7200");
  r = Simulated(c, w, *Make("tiresias"));
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(S(r.jobs[0].finish), 18000);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_EQ(S(r.jobs[1].finish), 13000);
  EXPECT_EQ(r.jobs[1].preemptions, 0);
  EXPECT_EQ(r.meta.queue_policy_params, "thresholds=3600/36000");
}

// epvm:base. Two nodes of 4 GPUs, 32 cores, 256 GiB (so the default base is
// max(2, 2) = 2). n0 has 2 GPUs in use, n1 24 cores. Task: 1 GPU, 4 cores, no
// memory: delta = (0.25, 0.125, 0). Marginal cost B^u (B^delta - 1), x 1e6:
//   B = 2:   n0  1.414214 x 0.189207 + 0.090508            = 0.358087
//            n1  0.189207 + 2^0.75 (1.681793) x 0.090508   = 0.341422  -> n1
//   B = 100: n0  10 x 2.162278 + 0.778279                  = 22.401056
//            n1  2.162278 + 100^0.75 (31.622777) x 0.778279 = 26.773634 -> n0
// A small base weighs the summed use (n1 less), a large one the fullest
// resource (n0's GPUs at one half against n1's CPU at three quarters).
TEST(ParamDecisions, EpvmBaseTradesGpuAgainstCpu) {
  ClusterSpec spec = Nodes(2, 4, 32000);
  ClusterState c = ClusterState::Build(spec).value();
  auto use = [&](NodeIndex n, int gpus, int64_t cpu) {
    TaskDemand d;
    d.gpus = gpus;
    d.cpu_milli = cpu;
    ASSERT_TRUE(c.Allocate({n, c.PickGpus(n, d)}, d).ok());
  };
  use(0, 2, 0);
  use(1, 0, 24000);
  Job j = GpuJob("t", 0, 1, 1);
  j.task.cpu_milli = 4000;
  auto chosen = [&](const std::string& name) -> int64_t {
    auto p = BuiltinPolicies().MakePlacement(name);
    EXPECT_TRUE(p.ok()) << p.status().message();
    if (!p.ok()) return -2;
    auto pl = p.value()->Place(j, kAnyModel, c);
    return pl ? static_cast<int64_t>((*pl)[0].node) : -1;
  };
  EXPECT_EQ(chosen("epvm"), 1);
  EXPECT_EQ(chosen("epvm:base=2"), 1);
  EXPECT_EQ(chosen("epvm:base=100"), 0);
  EXPECT_EQ(chosen("epvm:base=1e+02"), 0);  // an exponent's '+' is not QUEUE+PLACEMENT
  EXPECT_EQ(MakeEpvm(100.0)->id().params, "base=100");
  EXPECT_EQ(MakeEpvm()->id().params, "base=nodes");
}

// colocate:threshold. One node of two 16 GiB GPUs; fractional jobs (share,
// solo utilization u = util x share), all at 0 s:
//   a 500 u .5, b 400 u .4, c 300 u .3, d 200 (util .5) u .1, e 300 u .3,
//   f 100 u .1 (10 s; the others 100 s).
// threshold=0.8: a GPU 0; b: GPU 0 would carry .9 > .8 -> GPU 1; c: GPU 0
//   .8 or GPU 1 .7, the fuller: GPU 0; d: GPU 0 .9 no -> GPU 1 (.5); e:
//   GPU 0 has 200 free -> GPU 1 (.8); f: .9 on either: waits to 100 s.
// Default (1.0): a GPU 0; b GPU 0 (.9); c: GPU 0 has 100 free -> GPU 1; d
//   GPU 1 (.4); e GPU 1 (.7); f: GPU 0 1.0 or GPU 1 .8, the fuller: GPU 0
//   at 0 s.
TEST(ParamDecisions, ColocateThresholdKeepsBusyJobsApart) {
  auto frac = [](const char* name, int32_t milli, float util, int run_s) {
    Job j = GpuJob(name, 0, 1, run_s);
    j.task.gpu_milli = milli;
    j.util = util;
    j.util_known = true;
    return j;
  };
  Workload w;
  w.jobs = {frac("a", 500, 1, 100),    frac("b", 400, 1, 100), frac("c", 300, 1, 100),
            frac("d", 200, 0.5f, 100), frac("e", 300, 1, 100), frac("f", 100, 1, 10)};
  w.Finalize();
  const ClusterSpec c = Nodes(1, 2, 16000);
  RunResult r = Simulated(c, w, *Make("colocate:threshold=0.8"));
  ASSERT_EQ(r.jobs.size(), 6u);
  const std::vector<std::string> tight = {"n:0", "n:1", "n:0", "n:1", "n:1", "n:0"};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(r.jobs[i].placement, tight[i]) << r.jobs[i].name;
  EXPECT_EQ(S(r.jobs[5].start), 100);
  EXPECT_EQ(r.meta.placement_policy_params, "threshold=0.8");
  r = Simulated(c, w, *Make("colocate"));
  ASSERT_EQ(r.jobs.size(), 6u);
  const std::vector<std::string> loose = {"n:0", "n:0", "n:1", "n:1", "n:1", "n:0"};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(r.jobs[i].placement, loose[i]) << r.jobs[i].name;
    EXPECT_EQ(S(r.jobs[i].start), 0) << r.jobs[i].name;
  }
  EXPECT_EQ(r.meta.placement_policy_params, "threshold=1");
}

// conservative-backfill:depth. Two nodes of 4 GPUs, first fit; jobs
// (submit, GPUs x tasks, run = walltime estimate):
//   A 0, 4, 100   B 0, 2, 50   C 1, 4 x 2, 10   D 2, 4, 30   E 3, 2, 60
// t=0: A n-0, B n-1 (2 GPUs).
// Default depth: C reserved [100, 110) on both nodes, D [50, 80) on n-1; E
//   would overlap D's reservation now, C's later: reserved at 110. Starts:
//   A 0, B 0, C 100, D 50, E 110.
// depth=1: only C is reserved; E fits now on n-1 and ends at 63 <= 100
//   (touching no reservation): starts at 3; D then waits for E: 63.
//   A 0, B 0, C 100, D 63, E 3 (EASY's starts).
TEST(ParamDecisions, ConservativeBackfillDepthLimitsReservations) {
  auto job = [](const char* name, int64_t submit, int gpus, int tasks, int64_t run) {
    Job j = GpuJob(name, submit, gpus, run);
    j.tasks = tasks;
    j.walltime_limit = Seconds(run);
    return j;
  };
  Workload w;
  w.jobs = {job("A", 0, 4, 1, 100), job("B", 0, 2, 1, 50), job("C", 1, 4, 2, 10),
            job("D", 2, 4, 1, 30), job("E", 3, 2, 1, 60)};
  w.Finalize();
  const ClusterSpec c = Nodes(2, 4, 32000);
  auto starts = [&](const std::string& name) {
    std::vector<int64_t> out;
    for (const auto& j : Simulated(c, w, *Make(name)).jobs) out.push_back(S(j.start));
    return out;
  };
  EXPECT_EQ(starts("conservative-backfill"), (std::vector<int64_t>{0, 0, 100, 50, 110}));
  EXPECT_EQ(starts("conservative-backfill:depth=1"), (std::vector<int64_t>{0, 0, 100, 63, 3}));
  EXPECT_EQ(starts("easy-backfill"), (std::vector<int64_t>{0, 0, 100, 63, 3}));
  EXPECT_EQ(Make("conservative-backfill:depth=1")->queue_policy().params, "depth=1");
}

// The defaults are today's constants: the registry name alone, the name
// with every default spelled out and the C++ constructors give the same
// schedule on random mixes (gangs, fractions, CPU-only jobs, preemptions).
TEST(ParamDecisions, DefaultsEqualTheUnparameterizedPolicies) {
  struct Case {
    std::string plain, spelled;
    std::function<std::unique_ptr<Scheduler>()> direct;
  };
  const std::vector<Case> cases = {
      {"tiresias+best-fit", "tiresias:thresholds=3600/36000+best-fit",
       [] { return MakeTiresias("t", MakeBestFit(), DefaultTiresiasThresholds()); }},
      {"fifo-skip+epvm", "fifo-skip+epvm:base=nodes",
       [] { return std::make_unique<ComposedScheduler>("e", MakeFifoSkipQueue(), MakeEpvm()); }},
      {"fifo-skip+colocate", "fifo-skip+colocate:threshold=1",
       [] {
         return std::make_unique<ComposedScheduler>("c", MakeFifoSkipQueue(), MakeColocate());
       }},
      {"conservative-backfill", "conservative-backfill:depth=256",
       [] { return MakeConservativeBackfill("b", MakeFirstFit()); }},
  };
  for (uint32_t seed : {1u, 2u}) {
    const Workload w = mix::RandomJobs(seed);
    for (const Case& c : cases) {
      const auto want = mix::Finishes(*c.direct(), w);
      EXPECT_EQ(mix::Finishes(*Make(c.plain), w), want) << c.plain << " seed " << seed;
      EXPECT_EQ(mix::Finishes(*Make(c.spelled), w), want) << c.spelled << " seed " << seed;
    }
  }
}

// With no reservation ahead, conservative backfilling starts what fits in
// submit order: fifo-skip's schedule.
TEST(ParamDecisions, ConservativeDepthZeroIsFifoSkip) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const Workload w = mix::RandomJobs(seed);
    EXPECT_EQ(mix::Finishes(*Make("conservative-backfill:depth=0"), w),
              mix::Finishes(*Make("fifo-skip"), w))
        << seed;
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
