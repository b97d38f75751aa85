#include "utilsim/engine/simulator.h"

#include <gtest/gtest.h>

#include <thread>

#include "engine/fake_scheduler.h"
#include "engine/hand_built.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testing::FakeFifo;
using testing::MakeJob;
using testing::OneNode;

TEST(Simulator, FifoOnOneNodeHandComputed) {
  // 4 GPUs. a: t=0, 2 GPUs, 100 s. b: t=10, 4 GPUs, 50 s. c: t=20, 2 GPUs,
  // 30 s. Strict FIFO: a runs 0..100; b waits for a (needs all 4) and runs
  // 100..150; c is behind b and runs 150..180.
  Workload w;
  w.jobs = {MakeJob("a", 0, 100, 2, 0.5f), MakeJob("b", 10, 50, 4), MakeJob("c", 20, 30, 2)};
  w.Finalize();
  FakeFifo s;
  SimConfig cfg;
  cfg.sample_interval = Seconds(25);
  cfg.window = Window::kFull;
  auto r = Simulate(OneNode(4), w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto& jobs = r.value().jobs;
  EXPECT_EQ(jobs[0].start, Seconds(0));
  EXPECT_EQ(jobs[0].finish, Seconds(100));
  EXPECT_EQ(jobs[1].start, Seconds(100));
  EXPECT_EQ(jobs[1].finish, Seconds(150));
  EXPECT_EQ(jobs[2].start, Seconds(150));
  EXPECT_EQ(jobs[2].finish, Seconds(180));
  EXPECT_DOUBLE_EQ(jobs[1].wait_s(), 90);
  EXPECT_DOUBLE_EQ(jobs[2].wait_s(), 130);
  // a holds 2 GPUs for 100 s = 200 GPU-s, busy half of it.
  EXPECT_DOUBLE_EQ(jobs[0].alloc_gpu_s, 200);
  EXPECT_DOUBLE_EQ(jobs[0].useful_gpu_s, 100);
  const Summary& sum = r.value().summary;
  // Window 0..180 s on 4 GPUs = 720 GPU-s; allocated 200+200+60 = 460.
  EXPECT_NEAR(sum.allocation_pct, 100.0 * 460 / 720, 1e-9);
  // Useful 100 + 200 + 60 = 360.
  EXPECT_NEAR(sum.effective_util_pct, 50.0, 1e-9);
  EXPECT_EQ(sum.finished, 3);
  // Samples every 25 s from 0: at t=0 a runs (2 GPUs, 1 busy), b and c not yet.
  const auto& smp = r.value().samples;
  ASSERT_GE(smp.size(), 8u);
  EXPECT_EQ(smp[0].time, Seconds(0));
  EXPECT_DOUBLE_EQ(smp[0].gpus_allocated, 2);
  EXPECT_DOUBLE_EQ(smp[0].gpus_busy, 1);
  EXPECT_EQ(smp[1].queued, 2);                 // t=25: b and c wait
  EXPECT_DOUBLE_EQ(smp[4].gpus_allocated, 4);  // t=100: b runs
  EXPECT_DOUBLE_EQ(smp[6].gpus_allocated, 2);  // t=150: c runs
  for (const auto& x : smp) EXPECT_GE(x.gpus_allocated, x.gpus_busy);
}

// A scheduling cycle of 30 s: passes only at multiples of 30 s. a arrives
// at 0 (a cycle) and starts at once; b arrives at 10, starts at 30; a
// ends at 100, c (arrived at 40, waiting for the GPUs b and a hold) starts
// at the next cycle, 120.
TEST(Simulator, PassIntervalStartsJobsAtTheNextCycle) {
  Workload w;
  w.jobs = {MakeJob("a", 0, 100, 2), MakeJob("b", 10, 500, 2), MakeJob("c", 40, 10, 2)};
  w.Finalize();
  FakeFifo s;
  SimConfig cfg;
  cfg.pass_interval = Seconds(30);
  auto r = Simulate(OneNode(4), w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto& jobs = r.value().jobs;
  EXPECT_EQ(jobs[0].start, Seconds(0));
  EXPECT_EQ(jobs[1].start, Seconds(30));
  EXPECT_EQ(jobs[2].start, Seconds(120));
  FakeFifo s2;
  cfg.pass_interval = Seconds(-1);
  EXPECT_FALSE(Simulate(OneNode(4), w, s2, cfg).ok());
}

TEST(Simulator, ArrivalsWindowClipsAllocation) {
  // Same jobs as above; the arrivals window is [0, 20] s (first to last
  // submit). Inside it only a runs: 2 GPUs x 20 s = 40 GPU-s of 4 x 20 = 80
  // -> 50 %; useful 0.5 x 40 = 20 -> 25 %. With a 5 s warm-up: [5, 20] ->
  // 30 of 60 GPU-s, still 50 % / 25 %, and window_start = 5 s.
  Workload w;
  w.jobs = {MakeJob("a", 0, 100, 2, 0.5f), MakeJob("b", 10, 50, 4), MakeJob("c", 20, 30, 2)};
  w.Finalize();
  FakeFifo s;
  SimConfig cfg;
  auto r = Simulate(OneNode(4), w, s, cfg);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().summary.window_end, Seconds(20));
  EXPECT_NEAR(r.value().summary.allocation_pct, 50.0, 1e-9);
  EXPECT_NEAR(r.value().summary.effective_util_pct, 25.0, 1e-9);
  EXPECT_NEAR(r.value().summary.alloc_gpu_h, 40.0 / 3600, 1e-12);
  EXPECT_DOUBLE_EQ(r.value().summary.makespan_s, 180);
  FakeFifo s2;
  cfg.warmup = Seconds(5);
  auto r2 = Simulate(OneNode(4), w, s2, cfg);
  EXPECT_EQ(r2.value().summary.window_start, Seconds(5));
  EXPECT_NEAR(r2.value().summary.alloc_gpu_h, 30.0 / 3600, 1e-12);
  EXPECT_NEAR(r2.value().summary.allocation_pct, 50.0, 1e-9);
}

TEST(Simulator, SameTimeFinishThenArrivalThenPass) {
  // a finishes at t=100 exactly when b arrives; finish is processed first,
  // so b starts at 100 on the freed GPUs.
  Workload w;
  w.jobs = {MakeJob("a", 0, 100, 4), MakeJob("b", 100, 10, 4)};
  w.Finalize();
  FakeFifo s;
  SimConfig cfg;
  std::vector<std::string> log;
  cfg.observer = [&](const EngineEvent& e, RunControl&) {
    if (e.kind == EventKind::kSample) return;
    log.push_back(std::to_string(e.time.us / 1000000) + " " + EventKindName(e.kind) + " " +
                  std::to_string(e.job));
  };
  auto r = Simulate(OneNode(4), w, s, cfg);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().jobs[1].start, Seconds(100));
  const std::vector<std::string> expect = {"0 arrival 0",  "0 pass 0",      "0 start 0",
                                           "100 finish 0", "100 arrival 1", "100 pass 0",
                                           "100 start 1",  "110 finish 1"};
  // No pass after the last finish: the queue is empty.
  EXPECT_EQ(log, expect);
}

TEST(Simulator, RejectsJobsThatCanNeverFit) {
  Workload w;
  w.jobs = {MakeJob("too-big", 0, 10, 8), MakeJob("gang", 0, 10, 4, 1.0f, 3),
            MakeJob("ok", 0, 10, 4, 1.0f, 2)};
  w.jobs.push_back(MakeJob("model", 0, 10, 1));
  w.jobs.back().gpu_models = {"H100"};
  w.Finalize();
  FakeFifo s;
  auto r = Simulate(OneNode(4, 2), w, s, SimConfig{});
  ASSERT_TRUE(r.ok());
  const auto& j = r.value().jobs;
  EXPECT_EQ(j[0].outcome, JobOutcome::kRejected);
  EXPECT_NE(j[0].reason.find("no node can host one task"), std::string::npos);
  EXPECT_EQ(j[1].outcome, JobOutcome::kRejected);
  EXPECT_NE(j[1].reason.find("gang of 3 tasks exceeds the 2"), std::string::npos);
  EXPECT_EQ(j[2].outcome, JobOutcome::kFinished);
  EXPECT_EQ(j[3].outcome, JobOutcome::kRejected);
  EXPECT_EQ(r.value().summary.rejected, 3);
}

TEST(Simulator, BadPlacementStopsRunNamingPolicy) {
  Workload w;
  w.jobs = {MakeJob("a", 0, 10, 1)};
  w.Finalize();
  FakeFifo s;
  s.corrupt = true;
  auto r = Simulate(OneNode(4), w, s, SimConfig{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("policy 'fake' returned an invalid placement for job a"),
            std::string::npos);
}

// Rate = 1 / (tasks on the node): two co-runners each run at half speed.
class SharedNodeProgress final : public ProgressModel {
 public:
  std::string name() const override { return "shared-node"; }
  double Rate(const Job&, const Placement& p, const ClusterState& c) const override {
    return 1.0 / c.tasks_on(p.front().node);
  }
  bool interacts() const override { return true; }
};

TEST(Simulator, RatesChangeWhileRunning) {
  // a: 0..?, 100 s of work; b arrives at 50 s with 100 s of work. a runs
  // alone 50 s (50 done), then both at rate 1/2: a's last 50 s of work takes
  // 100 s -> a ends at 150. b then has 50 done and runs alone: ends at 200.
  Workload w;
  w.jobs = {MakeJob("a", 0, 100, 1), MakeJob("b", 50, 100, 1)};
  w.Finalize();
  FakeFifo s;
  SharedNodeProgress model;
  SimConfig cfg;
  cfg.progress = &model;
  auto r = Simulate(OneNode(4), w, s, cfg);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().jobs[0].finish, Seconds(150));
  EXPECT_EQ(r.value().jobs[1].finish, Seconds(200));
  // Useful work is what was recorded, whatever the slowdown.
  EXPECT_DOUBLE_EQ(r.value().jobs[0].useful_gpu_s, 100);
  EXPECT_DOUBLE_EQ(r.value().jobs[0].alloc_gpu_s, 150);
}

TEST(Simulator, HorizonLeavesJobsUnfinished) {
  Workload w;
  w.jobs = {MakeJob("a", 0, 100, 4), MakeJob("b", 10, 100, 4)};
  w.Finalize();
  FakeFifo s;
  SimConfig cfg;
  cfg.horizon = Seconds(50);
  cfg.window = Window::kFull;
  auto r = Simulate(OneNode(4), w, s, cfg);
  ASSERT_TRUE(r.ok());
  const auto& j = r.value().jobs;
  EXPECT_EQ(j[0].outcome, JobOutcome::kUnfinished);
  EXPECT_DOUBLE_EQ(j[0].alloc_gpu_s, 200);  // 4 GPUs x 50 s
  EXPECT_EQ(j[1].outcome, JobOutcome::kUnfinished);
  EXPECT_EQ(j[1].start.us, -1);
  EXPECT_EQ(r.value().summary.window_end, Seconds(50));
}

TEST(Simulator, SeriesProfileDrivesSampledBusy) {
  // One job of 100 s on 2 GPUs: busy 0.2 for its first 40 s, then 1.0.
  Workload w;
  w.series.push_back(UtilSeries{{Seconds(0), Seconds(40)}, {0.2f, 1.0f}});
  Job j = MakeJob("s", 0, 100, 2);
  j.series = 0;
  j.util = static_cast<float>(SeriesMean(w.series[0], j.runtime));
  w.jobs = {j};
  w.Finalize();
  FakeFifo s;
  SimConfig cfg;
  cfg.sample_interval = Seconds(30);
  auto r = Simulate(OneNode(4), w, s, cfg);
  ASSERT_TRUE(r.ok());
  const auto& smp = r.value().samples;
  ASSERT_GE(smp.size(), 3u);
  EXPECT_NEAR(smp[0].gpus_busy, 0.4, 1e-6);  // t=0: 2 x 0.2
  EXPECT_NEAR(smp[1].gpus_busy, 0.4, 1e-6);  // t=30
  EXPECT_NEAR(smp[2].gpus_busy, 2.0, 1e-6);  // t=60
  // Useful = 2 GPUs x (40 x 0.2 + 60 x 1.0) = 136 GPU-s.
  EXPECT_NEAR(r.value().jobs[0].useful_gpu_s, 136, 1e-3);
}

TEST(Simulator, ParallelRunsInThreadsMatchSequential) {
  Workload w;
  for (int i = 0; i < 200; ++i)
    w.jobs.push_back(MakeJob("j" + std::to_string(i), i * 7, 50 + (i * 37) % 300, 1 + i % 4,
                             0.3f + 0.005f * (i % 100)));
  w.Finalize();
  FakeFifo s0;
  auto ref = Simulate(OneNode(8, 3), w, s0, SimConfig{});
  ASSERT_TRUE(ref.ok());
  std::vector<Result<RunResult>> out(4, Status::Error("not run"));
  std::vector<std::thread> threads;
  std::vector<FakeFifo> scheds(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] { out[t] = Simulate(OneNode(8, 3), w, scheds[t], SimConfig{}); });
  for (auto& th : threads) th.join();
  for (const auto& r : out) {
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r.value().jobs.size(), ref.value().jobs.size());
    for (size_t i = 0; i < r.value().jobs.size(); ++i) {
      EXPECT_EQ(r.value().jobs[i].start, ref.value().jobs[i].start);
      EXPECT_EQ(r.value().jobs[i].finish, ref.value().jobs[i].finish);
    }
    EXPECT_EQ(r.value().summary.alloc_gpu_h, ref.value().summary.alloc_gpu_h);
  }
}

TEST(Summary, NearestRankPercentiles) {
  EXPECT_EQ(Percentile({}, 50), 0);
  EXPECT_EQ(Percentile({5, 1, 3, 2, 4}, 50), 3);
  EXPECT_EQ(Percentile({5, 1, 3, 2, 4}, 95), 5);
  EXPECT_EQ(Percentile({5, 1, 3, 2, 4}, 20), 1);
  EXPECT_EQ(Percentile({5, 1, 3, 2, 4}, 21), 2);
}

// The engine keeps state only for the jobs in the system and reuses it as
// jobs end (simulation.h, Run): a job arriving after others ended starts
// from nothing of theirs, and the window figures of jobs whose records were
// final long before the end still count. 4 GPUs. a: t=0, 4 GPUs, 100 s; b:
// t=10, 4 GPUs, 50 s (queued 10..100, runs 100..150); c: t=200, 8 GPUs
// (rejected); d: t=300, 2 GPUs, 1,000 s (running at the horizon, 400); e:
// t=350, 4 GPUs (queued at the end: d holds 2).
TEST(Simulator, AJobStartsFromNothingOfTheJobsThatEndedBeforeIt) {
  Workload w;
  w.jobs = {MakeJob("a", 0, 100, 4, 0.5f), MakeJob("b", 10, 50, 4), MakeJob("c", 200, 10, 8),
            MakeJob("d", 300, 1000, 2), MakeJob("e", 350, 10, 4)};
  w.Finalize();
  SimConfig cfg;
  cfg.horizon = Seconds(400);
  cfg.window = Window::kFull;
  FakeFifo s;
  auto r = Simulate(OneNode(4), w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto& jobs = r.value().jobs;
  ASSERT_EQ(jobs.size(), 5u);
  EXPECT_EQ(jobs[1].start, Seconds(100));
  ASSERT_EQ(jobs[1].waits.size(), 1u);
  EXPECT_EQ(jobs[1].waits[0].from, Seconds(10));
  EXPECT_EQ(jobs[1].waits[0].to, Seconds(100));
  EXPECT_EQ(jobs[2].outcome, JobOutcome::kRejected);
  EXPECT_FALSE(jobs[2].reason.empty());
  EXPECT_TRUE(jobs[2].placement.empty());
  EXPECT_TRUE(jobs[2].waits.empty());
  // d: started at once on 2 GPUs, never queued; 100 s held by the horizon.
  EXPECT_EQ(jobs[3].outcome, JobOutcome::kUnfinished);
  EXPECT_EQ(jobs[3].reason, "running at end of run");
  EXPECT_EQ(jobs[3].start, Seconds(300));
  EXPECT_EQ(jobs[3].placement, "n:0,1");
  EXPECT_TRUE(jobs[3].waits.empty());
  EXPECT_DOUBLE_EQ(jobs[3].queued_s, 0);
  EXPECT_DOUBLE_EQ(jobs[3].alloc_gpu_s, 200);
  EXPECT_EQ(jobs[3].preemptions, 0);
  // e: never started, queued 350..400.
  EXPECT_EQ(jobs[4].reason, "queued at end of run");
  EXPECT_EQ(jobs[4].start, Micros(-1));
  EXPECT_TRUE(jobs[4].placement.empty());
  EXPECT_DOUBLE_EQ(jobs[4].queued_s, 50);
  ASSERT_EQ(jobs[4].waits.size(), 1u);
  EXPECT_EQ(jobs[4].waits[0].from, Seconds(350));
  // Window 0..400 on 4 GPUs = 1,600 GPU-s; held 400 (a) + 200 (b) + 200 (d).
  EXPECT_NEAR(r.value().summary.allocation_pct, 50.0, 1e-12);
  // The arrivals window from a warm-up of 50 s to the last arrival (350):
  // a holds 4 GPUs over 50..100, b over 100..150, d 2 GPUs over 300..350:
  // 500 of 1,200 GPU-s; a and d are met by the window's ends mid-run.
  cfg.window = Window::kArrivals;
  cfg.warmup = Seconds(50);
  FakeFifo s2;
  auto r2 = Simulate(OneNode(4), w, s2, cfg);
  ASSERT_TRUE(r2.ok()) << r2.status().message();
  EXPECT_NEAR(r2.value().summary.allocation_pct, 100.0 * 500 / 1200, 1e-12);
  // Useful: a is busy half its time (100 of 200 GPU-s there), b and d fully.
  EXPECT_NEAR(r2.value().summary.effective_util_pct, 100.0 * 400 / 1200, 1e-12);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
