// The engine object (engine.h): stepping, running up to a time, stopping on
// request, and equality with Simulate().
#include "utilsim/engine/engine.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/fake_scheduler.h"
#include "engine/hand_built.h"
#include "utilsim/engine/simulator.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testing::FakeFifo;
using testing::MakeJob;
using testing::OneNode;

ClusterSpec FourGpus() { return OneNode(4); }

// The FIFO case of simulator_test: a 0..100 (2 GPUs, util .5), b 100..150
// (4 GPUs, waits for a), c 150..180 (2 GPUs, behind b).
Workload Abc() {
  Workload w;
  w.jobs = {MakeJob("a", 0, 100, 2, 0.5f), MakeJob("b", 10, 50, 4), MakeJob("c", 20, 30, 2)};
  w.Finalize();
  return w;
}

SimConfig Config() {
  SimConfig cfg;
  cfg.sample_interval = Seconds(25);
  cfg.window = Window::kFull;
  return cfg;
}

TEST(Engine, SteppingGivesExactlyWhatSimulateGives) {
  const Workload w = Abc();
  FakeFifo s1, s2;
  auto whole = Simulate(FourGpus(), w, s1, Config());
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  auto e = Engine::Create(FourGpus(), w, s2, Config());
  ASSERT_TRUE(e.ok()) << e.status().message();
  int64_t steps = 0;
  for (;;) {
    auto more = e.value()->Step();
    ASSERT_TRUE(more.ok()) << more.status().message();
    if (!more.value()) break;
    ++steps;
  }
  EXPECT_TRUE(e.value()->Done());
  auto stepped = e.value()->Finish();
  ASSERT_TRUE(stepped.ok()) << stepped.status().message();
  const RunResult& a = whole.value();
  const RunResult& b = stepped.value();
  // One Step per event taken off the queues; superseded passes do nothing
  // and are not counted as processed.
  EXPECT_GE(steps, b.summary.events);
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (size_t j = 0; j < a.jobs.size(); ++j) {
    EXPECT_EQ(a.jobs[j].start, b.jobs[j].start);
    EXPECT_EQ(a.jobs[j].finish, b.jobs[j].finish);
  }
  EXPECT_EQ(a.samples.size(), b.samples.size());
  EXPECT_EQ(a.summary.allocation_pct, b.summary.allocation_pct);
  EXPECT_EQ(a.summary.effective_util_pct, b.summary.effective_util_pct);
  EXPECT_EQ(b.jobs[2].finish, Seconds(180));
}

TEST(Engine, RunUntilStopsAtTheTimeAndMovesTheClock) {
  const Workload w = Abc();
  FakeFifo s;
  auto e = Engine::Create(FourGpus(), w, s, Config());
  ASSERT_TRUE(e.ok());
  Engine& eng = *e.value();
  ASSERT_TRUE(eng.RunUntil(Seconds(120)).ok());
  // a finished at 100 and b started then; c is queued; the clock is at 120.
  EXPECT_EQ(eng.Now(), Seconds(120));
  EXPECT_FALSE(eng.Done());
  ASSERT_TRUE(eng.RunUntil(kNever).ok());
  EXPECT_TRUE(eng.Done());
  EXPECT_EQ(eng.Now(), Seconds(200)) << "the last sample (every 25 s) after c ends at 180";
  auto r = eng.Finish();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().jobs[1].start, Seconds(100));
  EXPECT_EQ(r.value().jobs[2].finish, Seconds(180));
  EXPECT_FALSE(eng.Finish().ok()) << "Finish twice is an error";
}

TEST(Engine, ObserverRequestsAStop) {
  // Stop as soon as b starts (t=100): a finished, b running, c queued. The
  // full window ends at the stop: [0, 100] holds a's 2 GPUs all of it and
  // b's 4 for 0 s: 200 of 400 GPU-s, 50 %; busy 0.5 x 200 = 100: 25 %.
  const Workload w = Abc();
  FakeFifo s;
  SimConfig cfg = Config();
  std::vector<std::string> seen;
  cfg.observer = [&](const EngineEvent& ev, RunControl& run) {
    seen.push_back(EventKindName(ev.kind));
    if (ev.kind == EventKind::kStart && ev.job == 1) run.RequestStop();
  };
  auto r = Simulate(FourGpus(), w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const RunResult& x = r.value();
  EXPECT_EQ(x.jobs[0].outcome, JobOutcome::kFinished);
  EXPECT_EQ(x.jobs[1].outcome, JobOutcome::kUnfinished);
  EXPECT_EQ(x.jobs[2].outcome, JobOutcome::kUnfinished);
  EXPECT_NE(x.meta.notes.find("stopped on request at 100 s"), std::string::npos) << x.meta.notes;
  EXPECT_EQ(x.summary.window_end, Seconds(100));
  EXPECT_NEAR(x.summary.allocation_pct, 50.0, 1e-9);
  EXPECT_NEAR(x.summary.effective_util_pct, 25.0, 1e-9);
  EXPECT_EQ(seen.back(), "start") << "nothing is processed after the stop";
}

TEST(Engine, CreateRefusesBadInputs) {
  Workload w = Abc();
  std::swap(w.jobs[0], w.jobs[2]);  // no longer sorted by submit
  FakeFifo s;
  auto e = Engine::Create(FourGpus(), w, s, Config());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("not sorted"), std::string::npos);
  SimConfig bad = Config();
  bad.sample_interval = Micros(0);
  EXPECT_FALSE(Engine::Create(FourGpus(), Abc(), s, bad).ok());
}

// A scheduler that, in its first pass, claims resources on the cluster state
// without starting a job (a policy bug the engine cannot see happen).
class LeakingFifo final : public FakeFifo {
 public:
  explicit LeakingFifo(TaskDemand leak) : leak_(leak) {}
  Status Pass(PassContext& ctx) override {
    if (!leaked_) {
      leaked_ = true;
      if (Status s = ctx.cluster().Allocate(TaskPlacement{0, leak_.gpus ? 0x8u : 0u}, leak_);
          !s.ok())
        return s;
    }
    return FakeFifo::Pass(ctx);
  }

 private:
  TaskDemand leak_;
  bool leaked_ = false;
};

TEST(Engine, ResourcesClaimedBehindTheEnginesBackBreakAnInvariant) {
  // One GPU held from t=0 that no job holds: the cluster's allocation
  // integral exceeds the jobs' by 1 GPU x the window; the run fails.
  Workload w;
  Job a;
  a.name = "a";
  a.task.gpus = 2;
  a.runtime = Seconds(100);
  w.jobs = {a};
  w.Finalize();
  TaskDemand gpu;
  gpu.gpus = 1;
  LeakingFifo s(gpu);
  auto r = Simulate(FourGpus(), w, s, Config());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(
                "invariant 'job allocations = integral of the cluster's allocation' violated"),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("no result was written"), std::string::npos);
}

TEST(Engine, SamplesThatDisagreeWithTheTrackedStateBreakAnInvariant) {
  // All the node's CPU claimed behind the engine's back: its free GPUs are
  // now stranded (no task of 1 core fits), which the engine's own count,
  // kept as jobs start and end, does not know; the first sample says so.
  Workload w;
  Job a;
  a.name = "a";
  a.task.gpus = 1;
  a.task.cpu_milli = 1000;
  a.submit = Seconds(10);
  a.runtime = Seconds(100);
  w.jobs = {a};
  w.Finalize();
  TaskDemand cpu;
  cpu.gpus = 0;
  cpu.cpu_milli = 16000;
  LeakingFifo s(cpu);
  auto r = Simulate(FourGpus(), w, s, Config());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("invariant 'samples show the tracked state' violated"),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("stranded GPUs: 4 sampled, 0 tracked"), std::string::npos)
      << r.status().message();
}

TEST(Engine, EventKindNames) {
  EXPECT_STREQ(EventKindName(EventKind::kArrival), "arrival");
  EXPECT_STREQ(EventKindName(EventKind::kPreempt), "preempt");
  EXPECT_STREQ(EventKindName(EventKind::kSample), "sample");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
