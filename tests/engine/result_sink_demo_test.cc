// Streaming results (result_sink.h) on the built-in demo workload (a cut
// of `utilsim demo`'s generator, workloads/synthetic.h): thousands of jobs
// with gangs, series, tenants and walltime limits, run to the end, stopped
// by an observer and cut short through the Engine object; the sink gets the
// plain run's rows, and a run without rows its exact summary. Built as its
// own binary (engine_demo_tests, tests/CMakeLists.txt) because it needs
// utilsim::workloads, so engine_tests stays linked against the engine only.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "engine/fake_scheduler.h"
#include "engine/result_sink_check.h"
#include "utilsim/engine/engine.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/workloads/synthetic.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testing::ExpectStreamingMatches;
using testing::FakeFifo;
using testing::Outcome;
using testing::RecordingSink;
using testing::Simulated;

SyntheticParams SmallDemo() {
  SyntheticParams p = DemoParams();
  p.jobs = 3000;
  p.nodes = 16;  // 128 GPUs
  return p;
}

SimConfig Config(Window window, Micros warmup) {
  SimConfig cfg;
  cfg.window = window;
  cfg.warmup = warmup;
  cfg.seed = 7;
  cfg.fragmentation = testing::TestFragmentation;
  return cfg;
}

TEST(ResultSinkDemo, StreamedRunsEqualThePlainRun) {
  const SyntheticParams p = SmallDemo();
  const ClusterSpec c = SyntheticCluster(p);
  const Workload w = GenerateSynthetic(p, 7);
  ASSERT_EQ(w.jobs.size(), 3000u);
  for (Window window : {Window::kArrivals, Window::kFull}) {
    SCOPED_TRACE(window == Window::kFull ? "full window" : "arrivals window");
    const RunResult x =
        ExpectStreamingMatches(Simulated<FakeFifo>(c, w), Config(window, Seconds(3600)));
    EXPECT_EQ(x.summary.jobs, 3000);
    EXPECT_GT(x.summary.finished, 2900);
    EXPECT_GT(x.samples.size(), 100u);
    EXPECT_GT(x.summary.wait_p95_s, 0) << "a loaded cluster: jobs wait";
  }
}

TEST(ResultSinkDemo, StoppedByAnObserverMidRun) {
  // (d) Stopped at the first event at or after the middle submit.
  const SyntheticParams p = SmallDemo();
  const ClusterSpec c = SyntheticCluster(p);
  const Workload w = GenerateSynthetic(p, 7);
  const Micros mid = w.jobs[w.jobs.size() / 2].submit;
  SimConfig cfg = Config(Window::kArrivals, Seconds(3600));
  cfg.observer = [mid](const EngineEvent& ev, RunControl& run) {
    if (ev.time >= mid) run.RequestStop();
  };
  const RunResult x = ExpectStreamingMatches(Simulated<FakeFifo>(c, w), cfg);
  EXPECT_GT(x.summary.unfinished, 1000);
  EXPECT_GT(x.summary.finished, 100);
  EXPECT_NE(x.meta.notes.find("stopped on request"), std::string::npos);
}

TEST(ResultSinkDemo, EngineRunUntilThenCutShort) {
  // (d) Through the Engine object: RunUntil a third of the way, then
  // Finish() with events left (as if stopped on request).
  const SyntheticParams p = SmallDemo();
  const ClusterSpec c = SyntheticCluster(p);
  const Workload w = GenerateSynthetic(p, 7);
  const Micros third = w.jobs[w.jobs.size() / 3].submit;
  auto run = [&](SimConfig cfg) {
    Outcome o;
    FakeFifo s;
    auto e = Engine::Create(c, w, s, cfg);
    if (!e.ok()) {
      o.error = e.status().message();
      return o;
    }
    Engine& eng = *e.value();
    auto* sink = dynamic_cast<RecordingSink*>(cfg.sink);
    if (sink != nullptr) sink->clock = &eng;
    if (Status st = eng.RunUntil(third); !st.ok()) {
      o.error = st.message();
      return o;
    }
    auto r = eng.Finish();
    if (sink != nullptr) {
      sink->finish_now = eng.Now();
      sink->clock = nullptr;
    }
    o.ok = r.ok();
    if (r.ok())
      o.result = std::move(r).value();
    else
      o.error = r.status().message();
    return o;
  };
  const RunResult x = ExpectStreamingMatches(run, Config(Window::kArrivals, Seconds(3600)));
  EXPECT_EQ(x.summary.window_end, third);
  EXPECT_GT(x.summary.unfinished, 1000);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
