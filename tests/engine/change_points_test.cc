// The change-point series (SimConfig::series, RunResult::changes): a
// hand-computed run, the samples derived from it, the auto rule, and
// SamplesFromChanges' contract. That both forms give the same run on every
// streaming scenario is result_sink_test.cc's (ExpectStreamingMatches).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/fake_scheduler.h"
#include "engine/hand_built.h"
#include "utilsim/engine/metrics.h"
#include "utilsim/engine/simulator.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testing::FakeFifo;
using testing::MakeJob;
using testing::OneNode;

// One node of 4 GPUs. a (2 GPUs, util 0.5) runs 0..100; b (2 GPUs, util 1)
// 10..60; c (4 GPUs, util 1) arrives at 20, waits for both and runs
// 100..130.
Workload Three() {
  Workload w;
  w.jobs = {MakeJob("a", 0, 100, 2, 0.5f), MakeJob("b", 10, 50, 2, 1.0f),
            MakeJob("c", 20, 30, 4, 1.0f)};
  w.Finalize();
  return w;
}

SimConfig Config(SeriesForm form) {
  SimConfig cfg;
  cfg.sample_interval = Seconds(50);
  cfg.comm_fraction = 0;  // busy = util x GPUs, for any GPU count
  cfg.series = form;
  return cfg;
}

RunResult Simulated(const Workload& w, const SimConfig& cfg) {
  FakeFifo s;
  auto r = Simulate(OneNode(4), w, s, cfg);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : RunResult{};
}

struct Expected {
  int64_t time_s;
  double allocated, busy;
  int64_t queued, running;
};

void ExpectState(const Sample& s, const Expected& e) {
  SCOPED_TRACE("at " + std::to_string(e.time_s) + " s");
  EXPECT_EQ(s.time, Seconds(e.time_s));
  EXPECT_DOUBLE_EQ(s.gpus_allocated, e.allocated);
  EXPECT_DOUBLE_EQ(s.gpus_busy, e.busy);
  EXPECT_EQ(s.queued, e.queued);
  EXPECT_EQ(s.running, e.running);
  EXPECT_EQ(s.gpus_free_whole, 4 - static_cast<int64_t>(e.allocated));
  double idle = 0;
  for (double v : s.gpus_idle) idle += v;
  EXPECT_NEAR(idle, e.allocated - e.busy, 1e-9);
}

TEST(ChangePoints, OnePointPerInstantThatChangedTheState) {
  const Workload w = Three();
  const RunResult r = Simulated(w, Config(SeriesForm::kChanges));
  EXPECT_EQ(r.meta.series, "changes");
  // Instants: 0 a starts; 10 b starts; 20 c queues; 50 a tick, nothing
  // changes; 60 b ends; 100 a ends and c starts (and a tick); 130 c ends;
  // 150 the last tick, nothing changes.
  const std::vector<Expected> want = {{0, 2, 1, 0, 1},  {10, 4, 3, 0, 2},  {20, 4, 3, 1, 2},
                                      {60, 2, 1, 1, 1}, {100, 4, 4, 0, 1}, {130, 0, 0, 0, 0}};
  ASSERT_EQ(r.changes.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ExpectState(r.changes[i], want[i]);
  // The ticks 0, 50, 100, 150 show the last point at or before them.
  EXPECT_EQ(r.meta.sample_start, Seconds(0));
  EXPECT_EQ(r.meta.sample_interval, Seconds(50));
  ASSERT_EQ(r.meta.sample_count, 4);
  ASSERT_EQ(r.samples.size(), 4u);
  ExpectState(r.samples[0], {0, 2, 1, 0, 1});
  ExpectState(r.samples[1], {50, 4, 3, 1, 2});
  ExpectState(r.samples[2], {100, 4, 4, 0, 1});
  ExpectState(r.samples[3], {150, 0, 0, 0, 0});
}

TEST(ChangePoints, SamplesTakenEqualSamplesDerived) {
  const Workload w = Three();
  const RunResult taken = Simulated(w, Config(SeriesForm::kSamples));
  const RunResult derived = Simulated(w, Config(SeriesForm::kChanges));
  EXPECT_EQ(taken.meta.series, "samples");
  EXPECT_TRUE(taken.changes.empty());
  ASSERT_EQ(taken.samples.size(), derived.samples.size());
  for (size_t i = 0; i < taken.samples.size(); ++i) {
    EXPECT_EQ(taken.samples[i].time, derived.samples[i].time);
    EXPECT_TRUE(SameState(taken.samples[i], derived.samples[i])) << "tick " << i;
  }
  EXPECT_EQ(taken.summary.alloc_gpu_h, derived.summary.alloc_gpu_h);
  EXPECT_EQ(taken.summary.events, derived.summary.events);
}

TEST(ChangePoints, AutoTakesChangePointsWhenTheyAreFewer) {
  const Workload w = Three();
  // 3 jobs: 6 points against 20 s / 50 s + 1 = 1 tick over the arrivals,
  // so samples; with 1 s ticks (21 of them) change points.
  SimConfig cfg = Config(SeriesForm::kAuto);
  EXPECT_EQ(Simulated(w, cfg).meta.series, "samples");
  cfg.sample_interval = Seconds(1);
  const RunResult fine = Simulated(w, cfg);
  EXPECT_EQ(fine.meta.series, "changes");
  EXPECT_EQ(fine.changes.size(), 6u);
  EXPECT_EQ(fine.meta.sample_count, 131);  // 0, 1, ..., 130 s
  // At the threshold: 2 x 3 jobs = 6 <= 20 s / 4 s + 1 = 6 ticks; one
  // microsecond more per tick and there are 5.
  cfg.sample_interval = Seconds(4);
  EXPECT_EQ(Simulated(w, cfg).meta.series, "changes");
  cfg.sample_interval = Micros(Seconds(4).us + 1);
  EXPECT_EQ(Simulated(w, cfg).meta.series, "samples");
}

TEST(ChangePoints, NoRowsKeptGivesTheSameSummary) {
  const Workload w = Three();
  SimConfig cfg = Config(SeriesForm::kChanges);
  const RunResult kept = Simulated(w, cfg);
  cfg.keep_rows = false;
  const RunResult bare = Simulated(w, cfg);
  EXPECT_TRUE(bare.changes.empty());
  EXPECT_TRUE(bare.samples.empty());
  EXPECT_EQ(bare.meta.sample_count, kept.meta.sample_count);
  EXPECT_EQ(bare.summary.allocation_pct, kept.summary.allocation_pct);
  EXPECT_EQ(bare.summary.wait_p95_s, kept.summary.wait_p95_s);
}

Sample At(int64_t s, double allocated) {
  Sample x;
  x.time = Seconds(s);
  x.gpus_allocated = allocated;
  return x;
}

// Ticks at which nothing changed are not taken, and the meters are not
// advanced there; a window mark that falls between such ticks must still be
// taken at its own instant. a (4 GPUs, util 0.5) runs 0..1000, b arrives at
// 2000: the arrivals window from a 130 s warm-up is [130, 2000], ticks every
// 60 s are all idle from 60 s to 960 s. a holds 4 x 870 GPU-s of the 4 x
// 1,870 there, busy half of it.
TEST(ChangePoints, AWindowMarkBetweenIdleTicksIsTakenAtItsInstant) {
  Workload w;
  w.jobs = {MakeJob("a", 0, 1000, 4, 0.5f), MakeJob("b", 2000, 10, 1, 1.0f)};
  w.Finalize();
  for (SeriesForm form : {SeriesForm::kChanges, SeriesForm::kSamples}) {
    SimConfig cfg = Config(form);
    cfg.sample_interval = Seconds(60);
    cfg.warmup = Seconds(130);
    FakeFifo s;
    auto r = Simulate(OneNode(4), w, s, cfg);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_NEAR(r.value().summary.allocation_pct, 100.0 * 3480 / 7480, 1e-9)
        << SeriesFormName(form);
    EXPECT_NEAR(r.value().summary.effective_util_pct, 100.0 * 1740 / 7480, 1e-9)
        << SeriesFormName(form);
  }
}

TEST(SamplesFromChanges, EachTickShowsTheLastPointAtOrBeforeIt) {
  const std::vector<Sample> pts = {At(0, 1), At(5, 2), At(10, 3), At(25, 4)};
  std::vector<Sample> out;
  ASSERT_TRUE(SamplesFromChanges(pts, Seconds(0), Seconds(10), 4, &out));
  ASSERT_EQ(out.size(), 4u);
  const double want[] = {1, 3, 3, 4};  // ticks 0, 10, 20, 30
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(out[k].time, Seconds(10 * static_cast<int64_t>(k)));
    EXPECT_EQ(out[k].gpus_allocated, want[k]);
  }
  ASSERT_TRUE(SamplesFromChanges(pts, Seconds(0), Seconds(10), 0, &out));
  EXPECT_TRUE(out.empty());
}

TEST(SamplesFromChanges, RefusesATickBeforeThePointsAndPointsOutOfOrder) {
  std::vector<Sample> out = {At(0, 1)};
  EXPECT_FALSE(SamplesFromChanges({At(5, 1)}, Seconds(0), Seconds(10), 1, &out));
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(SamplesFromChanges({}, Seconds(0), Seconds(10), 1, &out));
  EXPECT_FALSE(
      SamplesFromChanges({At(0, 1), At(20, 2), At(10, 3)}, Seconds(0), Seconds(10), 1, &out));
  EXPECT_FALSE(SamplesFromChanges({At(0, 1)}, Seconds(0), Micros(0), 1, &out));
}

TEST(SameState, ComparesEveryFieldButTheTime) {
  Sample a = At(0, 1), b = At(7, 1);
  EXPECT_TRUE(SameState(a, b));  // frag NaN in both
  b.power_w = 1e-9;
  EXPECT_FALSE(SameState(a, b));
  b = a;
  b.gpus_idle[3] = 0.5;
  EXPECT_FALSE(SameState(a, b));
  b = a;
  b.gpus_down = 1;
  EXPECT_FALSE(SameState(a, b));
  b = a;
  b.frag_gpu_milli = 0;
  EXPECT_FALSE(SameState(a, b));
  a.frag_gpu_milli = std::nan("1");
  b.frag_gpu_milli = std::nan("2");
  EXPECT_TRUE(SameState(a, b));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
