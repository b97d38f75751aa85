// Shared by the streaming-results tests (result_sink_test.cc on hand-built
// workloads, result_sink_demo_test.cc on the built-in demo): a sink that
// records what it is given, exact (bit for bit) comparisons of records,
// samples, meta and summaries, and the check that a run streamed into a sink,
// with or without rows, gives what a plain run gives.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "utilsim/engine/engine.h"
#include "utilsim/engine/result_sink.h"
#include "utilsim/engine/simulator.h"

namespace utilsim::testing {

// Bit-for-bit equality of doubles (NaN equals NaN, 0 differs from -0).
inline bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

#define UTILSIM_EXPECT_BITS(a, b, field) \
  EXPECT_TRUE(SameBits((a).field, (b).field)) << #field << ": " << (a).field << " vs " << (b).field

// Every field of two job records, exactly.
inline void ExpectSameRecord(const JobRecord& a, const JobRecord& b) {
  SCOPED_TRACE("job " + std::to_string(a.job) + " " + a.name);
  EXPECT_EQ(a.job, b.job);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.tenant, b.tenant);
  EXPECT_EQ(a.outcome, b.outcome);
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_EQ(a.submit, b.submit);
  EXPECT_EQ(a.start, b.start);
  UTILSIM_EXPECT_BITS(a, b, queued_s);
  EXPECT_EQ(a.finish, b.finish);
  EXPECT_EQ(a.recorded_runtime, b.recorded_runtime);
  EXPECT_EQ(a.tasks, b.tasks);
  EXPECT_EQ(a.gpu_milli, b.gpu_milli);
  EXPECT_EQ(a.placement, b.placement);
  EXPECT_EQ(a.preemptions, b.preemptions);
  EXPECT_EQ(a.interruptions, b.interruptions);
  UTILSIM_EXPECT_BITS(a, b, lost_gpu_s);
  UTILSIM_EXPECT_BITS(a, b, ettr);
  UTILSIM_EXPECT_BITS(a, b, alloc_gpu_s);
  UTILSIM_EXPECT_BITS(a, b, useful_gpu_s);
  for (size_t c = 0; c < a.idle_gpu_s.size(); ++c)
    EXPECT_TRUE(SameBits(a.idle_gpu_s[c], b.idle_gpu_s[c])) << "idle cause " << c;
  UTILSIM_EXPECT_BITS(a, b, energy_kwh);
  UTILSIM_EXPECT_BITS(a, b, idle_energy_kwh);
  for (size_t c = 0; c < a.wait_cause_s.size(); ++c)
    EXPECT_TRUE(SameBits(a.wait_cause_s[c], b.wait_cause_s[c])) << "wait cause " << c;
  ASSERT_EQ(a.waits.size(), b.waits.size());
  for (size_t i = 0; i < a.waits.size(); ++i) {
    EXPECT_EQ(a.waits[i].from, b.waits[i].from);
    EXPECT_EQ(a.waits[i].to, b.waits[i].to);
    EXPECT_EQ(a.waits[i].cause, b.waits[i].cause);
    EXPECT_EQ(a.waits[i].blocker, b.waits[i].blocker);
  }
}

// Every field of two samples, exactly.
inline void ExpectSameSample(const Sample& a, const Sample& b) {
  SCOPED_TRACE("sample at " + std::to_string(a.time.seconds()) + " s");
  EXPECT_EQ(a.time, b.time);
  UTILSIM_EXPECT_BITS(a, b, gpus_allocated);
  UTILSIM_EXPECT_BITS(a, b, gpus_busy);
  EXPECT_EQ(a.queued, b.queued);
  EXPECT_EQ(a.running, b.running);
  UTILSIM_EXPECT_BITS(a, b, cpu_allocated_frac);
  UTILSIM_EXPECT_BITS(a, b, mem_allocated_frac);
  EXPECT_EQ(a.gpus_free_whole, b.gpus_free_whole);
  EXPECT_EQ(a.gpus_stranded, b.gpus_stranded);
  for (size_t c = 0; c < a.gpus_idle.size(); ++c)
    EXPECT_TRUE(SameBits(a.gpus_idle[c], b.gpus_idle[c])) << "idle cause " << c;
  UTILSIM_EXPECT_BITS(a, b, frag_gpu_milli);
  UTILSIM_EXPECT_BITS(a, b, power_w);
  EXPECT_EQ(a.gpus_down, b.gpus_down);
}

// Two series of samples (or change points), the same length and sample for
// sample exactly.
inline void ExpectSameSamples(const std::vector<Sample>& a, const std::vector<Sample>& b) {
  EXPECT_EQ(a.size(), b.size());
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) ExpectSameSample(a[i], b[i]);
}

// Summary is all 8-byte fields (no padding): when one is added, this size
// changes and ExpectSameSummary must name it too.
static_assert(sizeof(Summary) == 83 * 8, "a Summary field was added: compare it below");

// Every field of two summaries, exactly, and then their bytes.
inline void ExpectSameSummary(const Summary& a, const Summary& b) {
  EXPECT_EQ(a.jobs, b.jobs);
  EXPECT_EQ(a.finished, b.finished);
  EXPECT_EQ(a.rejected, b.rejected);
  EXPECT_EQ(a.unfinished, b.unfinished);
  EXPECT_EQ(a.killed, b.killed);
  EXPECT_EQ(a.capacity_gpus, b.capacity_gpus);
  EXPECT_EQ(a.window_start, b.window_start);
  EXPECT_EQ(a.window_end, b.window_end);
  UTILSIM_EXPECT_BITS(a, b, alloc_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, useful_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, idle_alloc_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, allocation_pct);
  UTILSIM_EXPECT_BITS(a, b, effective_util_pct);
  UTILSIM_EXPECT_BITS(a, b, price_per_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, idle_cost);
  UTILSIM_EXPECT_BITS(a, b, idle_input_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, idle_storage_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, idle_comm_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, idle_fixed_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, idle_sharing_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, idle_unattributed_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, stranded_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, cpu_alloc_pct);
  UTILSIM_EXPECT_BITS(a, b, mem_alloc_pct);
  UTILSIM_EXPECT_BITS(a, b, frag_mean_pct);
  UTILSIM_EXPECT_BITS(a, b, wait_mean_s);
  UTILSIM_EXPECT_BITS(a, b, wait_p50_s);
  UTILSIM_EXPECT_BITS(a, b, wait_p95_s);
  UTILSIM_EXPECT_BITS(a, b, wait_p99_s);
  UTILSIM_EXPECT_BITS(a, b, wait_max_s);
  UTILSIM_EXPECT_BITS(a, b, queued_mean_s);
  UTILSIM_EXPECT_BITS(a, b, queued_p50_s);
  UTILSIM_EXPECT_BITS(a, b, queued_p95_s);
  UTILSIM_EXPECT_BITS(a, b, queued_p99_s);
  UTILSIM_EXPECT_BITS(a, b, queued_max_s);
  UTILSIM_EXPECT_BITS(a, b, jct_mean_s);
  UTILSIM_EXPECT_BITS(a, b, jct_p50_s);
  UTILSIM_EXPECT_BITS(a, b, jct_p95_s);
  UTILSIM_EXPECT_BITS(a, b, slowdown_mean);
  UTILSIM_EXPECT_BITS(a, b, slowdown_p50);
  UTILSIM_EXPECT_BITS(a, b, slowdown_p95);
  UTILSIM_EXPECT_BITS(a, b, makespan_s);
  UTILSIM_EXPECT_BITS(a, b, tenant_fairness);
  UTILSIM_EXPECT_BITS(a, b, energy_it_kwh);
  UTILSIM_EXPECT_BITS(a, b, energy_busy_kwh);
  UTILSIM_EXPECT_BITS(a, b, energy_alloc_idle_kwh);
  for (size_t c = 0; c < a.energy_idle_kwh.size(); ++c)
    EXPECT_TRUE(SameBits(a.energy_idle_kwh[c], b.energy_idle_kwh[c])) << "idle cause " << c;
  UTILSIM_EXPECT_BITS(a, b, energy_free_kwh);
  UTILSIM_EXPECT_BITS(a, b, energy_stranded_kwh);
  UTILSIM_EXPECT_BITS(a, b, energy_node_kwh);
  UTILSIM_EXPECT_BITS(a, b, pue);
  UTILSIM_EXPECT_BITS(a, b, energy_facility_kwh);
  UTILSIM_EXPECT_BITS(a, b, energy_price_per_kwh);
  UTILSIM_EXPECT_BITS(a, b, energy_cost);
  UTILSIM_EXPECT_BITS(a, b, idle_alloc_energy_cost);
  UTILSIM_EXPECT_BITS(a, b, off_gpu_h);
  EXPECT_EQ(a.wakeups, b.wakeups);
  UTILSIM_EXPECT_BITS(a, b, down_absent_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, down_maintenance_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, down_failure_gpu_h);
  EXPECT_EQ(a.interruptions, b.interruptions);
  UTILSIM_EXPECT_BITS(a, b, lost_gpu_h);
  UTILSIM_EXPECT_BITS(a, b, ettr_mean);
  UTILSIM_EXPECT_BITS(a, b, ettr_p5);
  for (size_t c = 0; c < a.wait_cause_h.size(); ++c)
    EXPECT_TRUE(SameBits(a.wait_cause_h[c], b.wait_cause_h[c])) << "wait cause " << c;
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << "the summaries' bytes differ";
}

inline void ExpectSameMeta(const RunMeta& a, const RunMeta& b) {
  EXPECT_EQ(a.utilsim_version, b.utilsim_version);
  EXPECT_EQ(a.queue_policy, b.queue_policy);
  EXPECT_EQ(a.queue_policy_version, b.queue_policy_version);
  EXPECT_EQ(a.placement_policy, b.placement_policy);
  EXPECT_EQ(a.placement_policy_version, b.placement_policy_version);
  EXPECT_EQ(a.label, b.label);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.input_digest, b.input_digest);
  EXPECT_EQ(a.workload_source, b.workload_source);
  EXPECT_EQ(a.cluster_name, b.cluster_name);
  EXPECT_EQ(a.sample_interval, b.sample_interval);
  EXPECT_EQ(a.series, b.series);
  EXPECT_EQ(a.sample_start, b.sample_start);
  EXPECT_EQ(a.sample_count, b.sample_count);
  EXPECT_EQ(a.progress_model, b.progress_model);
  EXPECT_EQ(a.notes, b.notes);
}

// Keeps what it is given, and when (the engine's clock, when `clock` is set
// to the engine), and checks the engine's events against it: each record
// arrives before the observer sees the event that made it final.
class RecordingSink final : public ResultSink {
 public:
  void OnJob(const JobRecord& r) override {
    EXPECT_FALSE(ended) << "OnJob after OnEnd";
    jobs.push_back(r);
    job_at.push_back(clock ? clock->Now() : Micros(-1));
  }
  void OnSample(const Sample& s) override {
    EXPECT_FALSE(ended) << "OnSample after OnEnd";
    samples.push_back(s);
    sample_at.push_back(clock ? clock->Now() : Micros(-1));
  }
  void OnChangePoint(const Sample& s) override {
    EXPECT_FALSE(ended) << "OnChangePoint after OnEnd";
    EXPECT_TRUE(changes_form) << "a change point in a run of samples";
    if (!points.empty()) {
      EXPECT_GT(s.time, points.back().time) << "one point per instant, in time order";
      EXPECT_FALSE(SameState(s, points.back())) << "a point that changes nothing";
    }
    points.push_back(s);
    // Delivered when its instant is over, before the clock moves on.
    if (clock) {
      EXPECT_EQ(clock->Now(), s.time);
    }
  }
  void OnEnd(const RunMeta& m, const Summary& s) override {
    EXPECT_FALSE(ended) << "OnEnd twice";
    ended = true;
    meta = m;
    summary = s;
  }
  // An observer for SimConfig::observer that checks the order of deliveries
  // and events (and calls `then`, e.g. to stop the run).
  EventObserver Observer(std::function<void(const EngineEvent&, RunControl&)> then = {}) {
    return [this, then](const EngineEvent& ev, RunControl& run) {
      switch (ev.kind) {
        case EventKind::kReject:
        case EventKind::kFinish:
        case EventKind::kKill:
          // (e) the record is already here: the last one delivered, during
          // this very event (the engine's clock then was the event's time).
          EXPECT_FALSE(jobs.empty());
          if (!jobs.empty()) {
            EXPECT_EQ(jobs.back().job, ev.job) << EventKindName(ev.kind);
            if (clock != nullptr) {
              EXPECT_EQ(job_at.back(), ev.time);
            }
          }
          final_order.push_back(ev.job);
          final_at.push_back(ev.time);
          break;
        case EventKind::kSample:
          if (changes_form) break;  // no samples: points come when the instant is over
          EXPECT_FALSE(samples.empty());
          if (!samples.empty()) {
            EXPECT_EQ(samples.back().time, ev.time);
            if (clock != nullptr) {
              EXPECT_EQ(sample_at.back(), ev.time);
            }
          }
          break;
        default:
          break;
      }
      if (then) then(ev, run);
    };
  }

  const RunControl* clock = nullptr;  // the engine, while it runs (Engine-driven runs)
  bool changes_form = false;          // the run records change points (set by the driver)
  std::vector<Sample> points;
  Micros finish_now{-1};  // its clock in Finish (set by the driver)
  std::vector<JobRecord> jobs;
  std::vector<Micros> job_at;
  std::vector<Sample> samples;
  std::vector<Micros> sample_at;
  std::vector<JobIndex> final_order;  // jobs of the kReject / kFinish / kKill events, in order
  std::vector<Micros> final_at;       // and their times
  bool ended = false;
  RunMeta meta;
  Summary summary;
};

// (a) the contract's order: the records of the rejected, finished and
// killed jobs in the order of their events, each when it became final
// (submit for a rejection, finish otherwise); then every other job in
// ascending job order, delivered at the end (by Finish).
inline void ExpectDeliveryOrder(const RecordingSink& sink, const RunResult& plain) {
  const size_t n = plain.jobs.size();
  ASSERT_EQ(sink.jobs.size(), n) << "one record per job";
  ASSERT_LE(sink.final_order.size(), n);
  size_t k = 0;
  for (; k < sink.final_order.size(); ++k) {
    const JobRecord& r = sink.jobs[k];
    EXPECT_EQ(r.job, sink.final_order[k]) << "delivery " << k;
    EXPECT_NE(r.outcome, JobOutcome::kUnfinished);
    EXPECT_EQ(sink.final_at[k], r.outcome == JobOutcome::kRejected ? r.submit : r.finish);
  }
  JobIndex prev = 0;
  for (; k < n; ++k) {
    const JobRecord& r = sink.jobs[k];
    EXPECT_EQ(r.outcome, JobOutcome::kUnfinished) << "delivery " << k;
    if (k > sink.final_order.size()) {
      EXPECT_GT(r.job, prev) << "ascending at the end";
    }
    prev = r.job;
    if (sink.finish_now.us >= 0) {
      EXPECT_EQ(sink.job_at[k], sink.finish_now) << "in Finish";
    }
  }
}

// What a run gives: the result (or the error) of Simulate or of an engine
// driven by `drive`.
struct Outcome {
  bool ok = false;
  std::string error;
  RunResult result;
};

// ExpectStreamingMatches in one series form (base.series, not kAuto).
inline RunResult ExpectStreamingMatchesInForm(const std::function<Outcome(SimConfig)>& run,
                                              const SimConfig& base) {
  const bool changes = base.series == SeriesForm::kChanges;
  const Outcome plain = run(base);
  EXPECT_TRUE(plain.ok) << plain.error;
  if (!plain.ok) return {};
  const RunResult& p = plain.result;
  for (bool keep : {true, false}) {
    SCOPED_TRACE(keep ? "sink, keep_rows" : "sink, no rows");
    RecordingSink sink;
    sink.changes_form = changes;
    SimConfig cfg = base;
    cfg.sink = &sink;
    cfg.keep_rows = keep;
    const auto then = base.observer;
    cfg.observer = sink.Observer(then);
    const Outcome got = run(cfg);
    EXPECT_TRUE(got.ok) << got.error;
    if (!got.ok) continue;
    const RunResult& g = got.result;
    // (a) the same set of records, one per job, in the contract's order.
    ExpectDeliveryOrder(sink, p);
    std::vector<JobRecord> sorted = sink.jobs;
    std::sort(sorted.begin(), sorted.end(),
              [](const JobRecord& x, const JobRecord& y) { return x.job < y.job; });
    EXPECT_EQ(sorted.size(), p.jobs.size());
    for (size_t j = 0; j < std::min(sorted.size(), p.jobs.size()); ++j) {
      EXPECT_EQ(sorted[j].job, j);
      ExpectSameRecord(sorted[j], p.jobs[j]);
    }
    // (b) the same samples (or change points), in time order.
    const std::vector<Sample>& want = changes ? p.changes : p.samples;
    const std::vector<Sample>& sent = changes ? sink.points : sink.samples;
    EXPECT_TRUE((changes ? sink.samples : sink.points).empty());
    ExpectSameSamples(sent, want);
    // (c) the same meta and summary, with or without rows; OnEnd saw them.
    ExpectSameMeta(g.meta, p.meta);
    ExpectSameSummary(g.summary, p.summary);
    EXPECT_TRUE(sink.ended);
    ExpectSameMeta(sink.meta, p.meta);
    ExpectSameSummary(sink.summary, p.summary);
    if (keep) {
      EXPECT_EQ(g.jobs.size(), p.jobs.size());
      for (size_t j = 0; j < std::min(g.jobs.size(), p.jobs.size()); ++j)
        ExpectSameRecord(g.jobs[j], p.jobs[j]);
      ExpectSameSamples(g.samples, p.samples);
      ExpectSameSamples(g.changes, p.changes);
    } else {
      EXPECT_TRUE(g.jobs.empty());
      EXPECT_TRUE(g.samples.empty());
      EXPECT_TRUE(g.changes.empty());
    }
  }
  return p;
}

// Runs `run(cfg)` three ways: plain, into a sink keeping the rows, and into
// a sink without rows; checks (a) the streamed records equal the plain rows
// (same set, in the contract's order), (b) the streamed samples (change
// points) equal the plain ones, (c) both sink runs' summaries and meta equal
// the plain one exactly, and that a sink run with rows returns the plain
// rows. All that in both series forms, and then that the two forms give the
// same run: the same records and summary, and samples derived from the
// change points equal to the samples taken, bit for bit.
// Returns the plain result of the form "samples".
inline RunResult ExpectStreamingMatches(const std::function<Outcome(SimConfig)>& run,
                                        const SimConfig& base) {
  SimConfig cfg = base;
  cfg.series = SeriesForm::kSamples;
  RunResult taken;
  {
    SCOPED_TRACE("series: samples");
    taken = ExpectStreamingMatchesInForm(run, cfg);
  }
  cfg.series = SeriesForm::kChanges;
  RunResult derived;
  {
    SCOPED_TRACE("series: changes");
    derived = ExpectStreamingMatchesInForm(run, cfg);
  }
  SCOPED_TRACE("series: samples against changes");
  EXPECT_EQ(taken.meta.series, "samples");
  EXPECT_EQ(derived.meta.series, "changes");
  EXPECT_TRUE(taken.changes.empty());
  EXPECT_EQ(derived.meta.sample_count, taken.meta.sample_count);
  EXPECT_EQ(derived.meta.sample_start, taken.meta.sample_start);
  EXPECT_EQ(static_cast<int64_t>(taken.samples.size()), taken.meta.sample_count);
  ExpectSameSummary(derived.summary, taken.summary);
  EXPECT_EQ(derived.jobs.size(), taken.jobs.size());
  for (size_t j = 0; j < std::min(derived.jobs.size(), taken.jobs.size()); ++j)
    ExpectSameRecord(derived.jobs[j], taken.jobs[j]);
  ExpectSameSamples(derived.samples, taken.samples);
  return taken;
}

// Simulate(cluster, w, a fresh Sched, cfg) as an Outcome (the workload and
// cluster must outlive the function).
template <class Sched>
std::function<Outcome(SimConfig)> Simulated(const ClusterSpec& cluster, const Workload& w) {
  return [&cluster, &w](SimConfig cfg) {
    Sched s;
    auto r = Simulate(cluster, w, s, cfg);
    Outcome o;
    o.ok = r.ok();
    if (r.ok())
      o.result = std::move(r).value();
    else
      o.error = r.status().message();
    return o;
  };
}

// A fragmentation hook for tests (the real one, FGD, is in policies): a
// deterministic, non-round function of the cluster's state, so that the
// sampled mean depends on which samples it averages and in what order.
inline double TestFragmentation(const ClusterState& c) {
  const double free_whole = static_cast<double>(c.whole_free_gpus_total());
  return 1000.0 * free_whole / 3.0 + static_cast<double>(c.allocated_gpu_milli() % 997) / 7.0;
}

}  // namespace utilsim::testing
