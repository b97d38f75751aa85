// Streaming results (result_sink.h) on hand-built workloads: what a sink is
// given equals the rows of a plain run, in the contract's order and as soon
// as each is final; without rows the summary and meta are bit for bit those
// of a plain run, through Simulate and through the Engine object, to the end,
// at the horizon and after a stop.
#include "utilsim/engine/result_sink.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "engine/fake_scheduler.h"
#include "engine/hand_built.h"
#include "engine/result_sink_check.h"
#include "utilsim/engine/engine.h"
#include "utilsim/engine/simulator.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testing::ExpectSameRecord;
using testing::ExpectSameSamples;
using testing::ExpectSameSummary;
using testing::ExpectStreamingMatches;
using testing::FakeFifo;
using testing::MakeJob;
using testing::Outcome;
using testing::RecordingSink;
using testing::Simulated;

// Node 0 ("fast-0"): 4 GPUs of speed 1; node 1 ("slow-0"): 4 GPUs of speed
// 0.5 (a fully busy job runs at half its recorded rate there).
ClusterSpec FastAndSlow() {
  ClusterSpec s;
  s.name = "fast-and-slow";
  s.models = {{"G", 16LL << 30, 1.0}, {"S", 16LL << 30, 0.5}};
  s.groups = {{"fast", 1, "G", 4, 16000, 64LL << 30, 0}, {"slow", 1, "S", 4, 16000, 64LL << 30, 0}};
  return s;
}

// Under strict FIFO first fit: a (fast, 0..100), b (slow, 10..110 at half
// rate), c (fast, 20..50), big rejected at 30, k (slow only, 110.., killed at
// its 60 s limit at 170 with half its work done), d and e of tenant 1 behind
// k (FIFO), so finishes, a kill, a rejection and waits of all sizes.
Workload Mixed() {
  Workload w;
  w.tenants = {"default", "t1"};
  Job big = MakeJob("big", 30, 10, 16, 1.0f);
  Job k = MakeJob("k", 40, 60, 4, 1.0f);
  k.gpu_models = {"S"};
  k.walltime_limit = Seconds(60);
  k.kill_at_limit = true;
  Job d = MakeJob("d", 45, 200, 1, 0.3f);
  d.tenant = 1;
  Job e = MakeJob("e", 60, 300, 3, 0.7f);
  e.tenant = 1;
  w.jobs = {MakeJob("a", 0, 100, 2, 0.5f),
            MakeJob("b", 10, 50, 4, 1.0f),
            MakeJob("c", 20, 30, 2, 1.0f),
            big,
            k,
            d,
            e};
  w.Finalize();
  return w;
}

SimConfig Config(Window window = Window::kFull, Micros warmup = Micros(0)) {
  SimConfig cfg;
  cfg.sample_interval = Seconds(25);
  cfg.window = window;
  cfg.warmup = warmup;
  cfg.fragmentation = testing::TestFragmentation;
  return cfg;
}

JobIndex Index(const Workload& w, const std::string& name) {
  for (JobIndex j = 0; j < w.jobs.size(); ++j)
    if (w.jobs[j].name == name) return j;
  ADD_FAILURE() << "no job " << name;
  return 0;
}

TEST(ResultSink, MixedWorkloadHasEveryOutcome) {
  // The workload is what the other tests say it is.
  const Workload w = Mixed();
  const ClusterSpec c = FastAndSlow();
  auto r = Simulated<FakeFifo>(c, w)(Config());
  ASSERT_TRUE(r.ok) << r.error;
  const RunResult& x = r.result;
  EXPECT_EQ(x.summary.finished, 5);
  EXPECT_EQ(x.summary.rejected, 1);
  EXPECT_EQ(x.summary.killed, 1);
  const JobRecord& k = x.jobs[Index(w, "k")];
  EXPECT_EQ(k.outcome, JobOutcome::kKilled);
  EXPECT_EQ(k.start, Seconds(110));
  EXPECT_EQ(k.finish, Seconds(170));
  EXPECT_EQ(x.jobs[Index(w, "c")].finish, Seconds(50));
  EXPECT_FALSE(std::isnan(x.summary.frag_mean_pct)) << "the sampled figure is computed";
}

TEST(ResultSink, StreamedRunsEqualThePlainRunInEveryWindow) {
  const Workload w = Mixed();
  const ClusterSpec c = FastAndSlow();
  struct Case {
    const char* what;
    SimConfig cfg;
  };
  std::vector<Case> cases = {
      {"full window", Config(Window::kFull)},
      {"arrivals window", Config(Window::kArrivals)},
      {"arrivals window after a 15 s warmup", Config(Window::kArrivals, Seconds(15))},
      {"warmup past the last submit (falls back to full)", Config(Window::kArrivals, Seconds(90))},
  };
  {
    SimConfig at_horizon = Config(Window::kArrivals, Seconds(5));
    at_horizon.horizon = Seconds(150);
    cases.push_back({"stopped at the horizon", at_horizon});
    SimConfig no_frag = Config();
    no_frag.fragmentation = nullptr;
    cases.push_back({"no fragmentation hook", no_frag});
    SimConfig on_sample = Config(Window::kFull);
    on_sample.sample_interval = Seconds(10);  // a sample at 50 s, c's finish, and at 170 s
    cases.push_back({"samples at finish instants", on_sample});
  }
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    const RunResult plain = ExpectStreamingMatches(Simulated<FakeFifo>(c, w), k.cfg);
    EXPECT_EQ(plain.jobs.size(), w.jobs.size());
  }
  // A job rejected long after the last finish: sampling goes on until it
  // arrives, so the full window ends (at the last finish) before the last
  // sample, not at it.
  Workload late = Mixed();
  late.jobs.push_back(MakeJob("late-big", 1000, 10, 32, 1.0f));
  late.Finalize();
  for (Window window : {Window::kFull, Window::kArrivals}) {
    const RunResult x =
        ExpectStreamingMatches(Simulated<FakeFifo>(c, late), Config(window, Seconds(5)));
    EXPECT_LT(x.summary.window_end, x.samples.back().time);
  }
}

TEST(ResultSink, RequestStopMidRunDeliversWhatItHas) {
  // (d) Stopped by the observer at k's start (t=110) and at the sample at
  // 75 s: a, b (at 110), c and big are final, the rest are delivered as
  // unfinished in Finish, in job order; the summaries still agree exactly.
  const Workload w = Mixed();
  const ClusterSpec c = FastAndSlow();
  const JobIndex k = Index(w, "k");
  for (Window window : {Window::kFull, Window::kArrivals}) {
    SimConfig at_start = Config(window, Seconds(5));
    at_start.observer = [k](const EngineEvent& ev, RunControl& run) {
      if (ev.kind == EventKind::kStart && ev.job == k) run.RequestStop();
    };
    const RunResult x = ExpectStreamingMatches(Simulated<FakeFifo>(c, w), at_start);
    EXPECT_NE(x.meta.notes.find("stopped on request at 110 s"), std::string::npos) << x.meta.notes;
    EXPECT_EQ(x.jobs[k].outcome, JobOutcome::kUnfinished);
    EXPECT_EQ(x.jobs[Index(w, "b")].outcome, JobOutcome::kFinished);

    SimConfig at_sample = Config(window);
    at_sample.observer = [](const EngineEvent& ev, RunControl& run) {
      if (ev.kind == EventKind::kSample && ev.time == Seconds(75)) run.RequestStop();
    };
    const RunResult y = ExpectStreamingMatches(Simulated<FakeFifo>(c, w), at_sample);
    // The full window ends at the stop, the arrivals window at the last
    // submit (60 s).
    EXPECT_EQ(y.summary.window_end, window == Window::kFull ? Seconds(75) : Seconds(60));
    EXPECT_EQ(y.samples.back().time, Seconds(75)) << "the last sample is at the stop";
  }
}

// Drives an engine: RunUntil(60 s), three Steps, RequestStop() from the
// driver, one more Step (which processes nothing), Finish().
std::function<Outcome(SimConfig)> DrivenAndStopped(const ClusterSpec& c, const Workload& w) {
  return [&c, &w](SimConfig cfg) {
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
    if (Status st = eng.RunUntil(Seconds(60)); !st.ok()) {
      o.error = st.message();
      return o;
    }
    if (sink != nullptr) {
      // Delivered as soon as final: c (finished at 50) and big (rejected
      // at 30), nothing unfinished yet; the samples up to 50 s.
      EXPECT_EQ(sink->jobs.size(), 2u);
      for (const JobRecord& r : sink->jobs) EXPECT_NE(r.outcome, JobOutcome::kUnfinished);
      if (sink->changes_form) {
        // The instants 0, 10, 30 and 50 s changed the state (arrivals,
        // the rejection, c's finish); 60 s has not ended yet.
        EXPECT_FALSE(sink->points.empty());
        if (!sink->points.empty()) {
          EXPECT_LE(sink->points.back().time, Seconds(50));
        }
      } else {
        EXPECT_EQ(sink->samples.size(), 3u);
      }
    }
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(eng.Step().ok());
    eng.RequestStop();
    auto more = eng.Step();
    EXPECT_TRUE(more.ok() && !more.value()) << "nothing is processed after a stop";
    const size_t before = sink != nullptr ? sink->jobs.size() : 0;
    auto r = eng.Finish();
    if (sink != nullptr) {
      sink->finish_now = eng.Now();
      sink->clock = nullptr;
      EXPECT_GT(sink->jobs.size(), before) << "the unfinished jobs come in Finish";
    }
    o.ok = r.ok();
    if (r.ok())
      o.result = std::move(r).value();
    else
      o.error = r.status().message();
    return o;
  };
}

TEST(ResultSink, EngineDrivenAndStoppedByTheDriver) {
  const Workload w = Mixed();
  const ClusterSpec c = FastAndSlow();
  for (Window window : {Window::kFull, Window::kArrivals}) {
    const RunResult x = ExpectStreamingMatches(DrivenAndStopped(c, w), Config(window, Seconds(5)));
    EXPECT_GT(x.summary.unfinished, 0);
    EXPECT_NE(x.meta.notes.find("stopped on request"), std::string::npos);
  }
}

// Steps an engine to the end, or cuts it short with Finish() at `cut`.
std::function<Outcome(SimConfig)> Stepped(const ClusterSpec& c, const Workload& w, Micros cut) {
  return [&c, &w, cut](SimConfig cfg) {
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
    if (cut == kNever) {
      for (;;) {
        auto more = eng.Step();
        if (!more.ok()) {
          o.error = more.status().message();
          return o;
        }
        if (!more.value()) break;
      }
    } else if (Status st = eng.RunUntil(cut); !st.ok()) {
      o.error = st.message();
      return o;
    }
    auto r = eng.Finish();  // before the end: as if stopped on request
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
}

TEST(ResultSink, EngineSteppedToTheEndOrCutShortByFinish) {
  const Workload w = Mixed();
  const ClusterSpec c = FastAndSlow();
  for (Window window : {Window::kFull, Window::kArrivals}) {
    for (Micros cut : {kNever, Seconds(130), Seconds(170)}) {
      SCOPED_TRACE("cut at " + std::to_string(cut.us));
      const RunResult x = ExpectStreamingMatches(Stepped(c, w, cut), Config(window));
      if (cut == kNever) {
        EXPECT_EQ(x.summary.unfinished, 0);
      } else {
        EXPECT_GT(x.summary.unfinished, 0);
        if (window == Window::kFull) {
          EXPECT_EQ(x.summary.window_end, cut) << "the clock was moved to the cut";
        }
      }
    }
  }
}

TEST(ResultSink, SimulateAndTheEngineStreamTheSameSequence) {
  // Determinism: the same inputs give the same deliveries, in the same order,
  // whichever way the run is driven.
  const Workload w = Mixed();
  const ClusterSpec c = FastAndSlow();
  for (SeriesForm form : {SeriesForm::kChanges, SeriesForm::kSamples}) {
    SCOPED_TRACE(SeriesFormName(form));
    RecordingSink a, b;
    a.changes_form = b.changes_form = form == SeriesForm::kChanges;
    SimConfig ca = Config(), cb = Config();
    ca.series = cb.series = form;
    ca.sink = &a;
    ca.keep_rows = false;
    cb.sink = &b;
    ASSERT_TRUE(Simulated<FakeFifo>(c, w)(ca).ok);
    ASSERT_TRUE(Stepped(c, w, kNever)(cb).ok);
    ASSERT_EQ(a.jobs.size(), b.jobs.size());
    for (size_t i = 0; i < a.jobs.size(); ++i) ExpectSameRecord(a.jobs[i], b.jobs[i]);
    ExpectSameSamples(a.samples, b.samples);
    ExpectSameSamples(a.points, b.points);
    EXPECT_FALSE((a.changes_form ? a.points : a.samples).empty());
    ExpectSameSummary(a.summary, b.summary);
    // The order: big (rejected at 30), c (50), a (100), b (110), k (killed
    // at 170), then d and e as they finish.
    std::vector<std::string> order;
    for (const JobRecord& r : a.jobs) order.push_back(r.name);
    EXPECT_EQ(order, (std::vector<std::string>{"big", "c", "a", "b", "k", "d", "e"}));
  }
}

// A priority scheduler on one 1-GPU node: a queued job of higher priority
// preempts the running one (as in preempt_test.cc).
class PreemptingFake final : public Scheduler {
 public:
  std::string label() const override { return "preempt-fake"; }
  PolicyId queue_policy() const override { return {"preempt-fake", "0"}; }
  PolicyId placement_policy() const override { return {"only-node", "0"}; }
  Status Init(const ClusterState&, const Workload& w) override {
    w_ = &w;
    return Status::Ok();
  }
  void OnArrival(JobIndex j, Micros) override { q_.push_back(j); }
  void OnFinish(JobIndex, Micros) override {}
  Micros NextWakeup(Micros) const override { return kNever; }
  size_t queued() const override { return q_.size(); }
  Status Pass(PassContext& ctx) override {
    std::stable_sort(q_.begin(), q_.end(), [&](JobIndex a, JobIndex b) {
      return w_->jobs[a].priority > w_->jobs[b].priority;
    });
    while (!q_.empty()) {
      const JobIndex j = q_.front();
      if (ctx.cluster().free_whole_gpus(0) == 0) {
        const JobIndex r = ctx.running().front();
        if (w_->jobs[r].priority >= w_->jobs[j].priority) return Status::Ok();
        if (Status s = ctx.Preempt(r); !s.ok()) return s;
        q_.push_back(r);
      }
      q_.pop_front();
      if (Status s = ctx.Start(j, {TaskPlacement{0, 1}}); !s.ok()) return s;
    }
    return Status::Ok();
  }

 private:
  const Workload* w_ = nullptr;
  std::deque<JobIndex> q_;
};

TEST(ResultSink, PreemptedJobsRecordsAreFinalOnlyAtTheirLastEnd) {
  // lo (100 s) runs from 0, is preempted by hi (50 s) at 20 and by hi2 at
  // 90; its record comes when it finishes for good, with both preemptions
  // and every queued interval; stopped at 100 s it is queued again and comes
  // as unfinished in Finish.
  ClusterSpec c;
  c.name = "one-gpu";
  c.models = {{"G", 16LL << 30, 1.0}};
  c.groups = {{"n", 1, "G", 1, 8000, 32LL << 30, 0}};
  Workload w;
  Job lo = MakeJob("lo", 0, 100, 1, 0.6f);
  Job hi = MakeJob("hi", 20, 50, 1, 0.9f);
  hi.priority = 1;
  Job hi2 = MakeJob("hi2", 90, 20, 1, 0.4f);
  hi2.priority = 1;
  w.jobs = {lo, hi, hi2};
  w.Finalize();
  SimConfig cfg = Config(Window::kArrivals, Seconds(10));
  cfg.restart_cost = Seconds(5);
  const RunResult x = ExpectStreamingMatches(Simulated<PreemptingFake>(c, w), cfg);
  ASSERT_EQ(x.jobs.size(), 3u);
  EXPECT_EQ(x.jobs[0].preemptions, 2);
  EXPECT_GT(x.jobs[0].queued_s, x.jobs[0].wait_s());
  SimConfig stopped = cfg;
  stopped.horizon = Seconds(100);
  const RunResult y = ExpectStreamingMatches(Simulated<PreemptingFake>(c, w), stopped);
  EXPECT_EQ(y.jobs[0].outcome, JobOutcome::kUnfinished);
  EXPECT_EQ(y.jobs[0].reason, "queued at end of run");
}

TEST(ResultSink, EmptyWorkloadAndNoSink) {
  // No jobs: nothing is delivered, the (empty) summary still agrees; and
  // keep_rows = false without a sink is a summary-only run.
  Workload none;
  none.Finalize();
  const ClusterSpec c = FastAndSlow();
  ExpectStreamingMatches(Simulated<FakeFifo>(c, none), Config());
  const Workload w = Mixed();
  auto plain = Simulated<FakeFifo>(c, w)(Config());
  SimConfig lean = Config(Window::kArrivals);
  lean.keep_rows = false;
  auto summary_only = Simulated<FakeFifo>(c, w)(lean);
  auto plain_arrivals = Simulated<FakeFifo>(c, w)(Config(Window::kArrivals));
  ASSERT_TRUE(plain.ok && summary_only.ok && plain_arrivals.ok);
  EXPECT_TRUE(summary_only.result.jobs.empty());
  EXPECT_TRUE(summary_only.result.samples.empty());
  ExpectSameSummary(summary_only.result.summary, plain_arrivals.result.summary);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
