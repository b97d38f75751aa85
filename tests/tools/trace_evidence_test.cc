// Evidence in a recorded schedule (analysis/trace_evidence.h): the latency
// floor, the rank correlation above it, and gaps with no recorded start
// while jobs waited, all on hand-made workloads.
#include "utilsim/analysis/trace_evidence.h"

#include <gtest/gtest.h>

#include "utilsim/analysis/validate.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

Job Recorded(double submit_h, double start_h) {
  Job j;
  j.submit = Micros(static_cast<int64_t>(submit_h * 3600 * kMicrosPerSecond));
  j.recorded_start = Micros(static_cast<int64_t>(start_h * 3600 * kMicrosPerSecond));
  return j;
}

TEST(TraceEvidence, LatencyFloorIsTwiceTheTenthPercentile) {
  // Waits 1..20 s: the 10th percentile by nearest rank is the 2nd smallest,
  // 2 s; the floor is 4 s. A job without a recorded start does not count.
  Workload w;
  for (int s = 20; s >= 1; --s) {
    Job j;
    j.submit = Seconds(100);
    j.recorded_start = Seconds(100 + s);
    w.jobs.push_back(j);
  }
  w.jobs.push_back(Job{});
  EXPECT_DOUBLE_EQ(LatencyFloorSeconds(w), 4.0);
  EXPECT_DOUBLE_EQ(LatencyFloorSeconds(Workload{}), 0.0);
}

TEST(TraceEvidence, RankCorrelationAboveTheFloor) {
  // Ten jobs, recorded waits 1, 1, 1, 1, 1, 1, 1, 1, 10, 20 s: floor 2 s.
  // Simulated waits reverse the order of the first eight (they rank at
  // random under the floor) and keep 10 < 20 above it: above the floor the
  // ranks agree (1.0); over all ten they do not.
  Workload w;
  RunResult r;
  const int64_t rec[] = {1, 1, 1, 1, 1, 1, 1, 1, 10, 20};
  const int64_t sim[] = {8, 7, 6, 5, 4, 3, 2, 1, 30, 40};
  for (int i = 0; i < 10; ++i) {
    Job j;
    j.submit = Seconds(i);
    j.recorded_start = j.submit + Seconds(rec[i]);
    w.jobs.push_back(j);
    JobRecord x;
    x.submit = j.submit;
    x.start = j.submit + Seconds(sim[i]);
    r.jobs.push_back(x);
  }
  const WaitFidelity f = CompareWaits(w, r);
  EXPECT_DOUBLE_EQ(f.latency_floor_s, 2.0);
  EXPECT_EQ(f.jobs_above_floor, 2);
  EXPECT_NEAR(f.spearman_above_floor, 1.0, 1e-12);
  // All ten: the eight tied recorded waits share rank 4.5, so only the two
  // above the floor carry order; the plain correlation is lower.
  EXPECT_LT(f.spearman, 0.9);
  EXPECT_NEAR(f.spearman,
              Spearman({1, 1, 1, 1, 1, 1, 1, 1, 10, 20}, {8, 7, 6, 5, 4, 3, 2, 1, 30, 40}), 1e-12);
}

TEST(TraceEvidence, GapsWithJobsWaitingThroughThem) {
  // Recorded starts at 0, 1, 30, 31, 60 and 100 h (the jobs below).
  //  - 1..30 h (29 h): job b, submitted at 0.5 h, starts at 30 h: listed.
  //  - 31..60 h (29 h): job e was submitted inside it (40 h): not listed.
  //  - 60..100 h (40 h): f (59 h) and g (60 h) wait through it: listed.
  // Running through: job a (4 GPUs, 0..200 h) through every gap; job c
  // (2 GPUs, 1..51 h) through the first only.
  Workload w;
  w.jobs = {Recorded(0, 0),   Recorded(0.5, 30), Recorded(0.9, 1), Recorded(31, 31),
            Recorded(40, 60), Recorded(59, 100), Recorded(60, 100)};
  w.jobs[0].runtime = Seconds(200 * 3600);
  w.jobs[0].task.gpus = 4;
  w.jobs[2].runtime = Seconds(50 * 3600);
  w.jobs[2].task.gpus = 2;
  const std::vector<StartGap> gaps = FindStartGaps(w, Seconds(24 * 3600));
  ASSERT_EQ(gaps.size(), 2u);
  EXPECT_EQ(gaps[0].from, Seconds(60 * 3600));
  EXPECT_EQ(gaps[0].to, Seconds(100 * 3600));
  EXPECT_EQ(gaps[0].waiting, 2);
  EXPECT_EQ(gaps[0].running_gpus, 4);
  EXPECT_EQ(gaps[1].from, Seconds(1 * 3600));
  EXPECT_EQ(gaps[1].to, Seconds(30 * 3600));
  EXPECT_EQ(gaps[1].waiting, 1);
  EXPECT_EQ(gaps[1].running_gpus, 6);
  EXPECT_EQ(
      FormatStartGaps(gaps, 1),
      "  40.0 h from 2d 12:00:00 to 4d 04:00:00, 2 jobs waiting, 4 GPUs running through it\n");
  EXPECT_TRUE(FindStartGaps(w, Seconds(41 * 3600)).empty());
}

TEST(TraceEvidence, PeakGpusInUsePerWindow) {
  // Windows of 10 h. a: 4 GPUs 2..25 h; b: 2 GPUs 5..8 h; c: 3 GPUs 25..31 h
  // (starts as a ends: not counted together); d: 1 GPU 41..42 h. Window 0
  // (0..10 h) peaks at 6, window 1 at 4 (a throughout), window 2 at 4 (a
  // until 25 h, then c: 3), window 3 at 3 (c until 31 h), window 4 at 1.
  Workload w;
  auto job = [&](double start_h, double hours, int gpus) {
    Job j = Recorded(start_h, start_h);
    j.runtime = Micros(static_cast<int64_t>(hours * 3600 * kMicrosPerSecond));
    j.task.gpus = gpus;
    w.jobs.push_back(j);
  };
  job(2, 23, 4);
  job(5, 3, 2);
  job(25, 6, 3);
  job(41, 1, 1);
  w.jobs.push_back(Job{});  // no recorded start: not counted
  EXPECT_EQ(PeakGpusInUse(w, Seconds(10 * 3600)), (std::vector<int64_t>{6, 4, 4, 3, 1}));
  EXPECT_TRUE(PeakGpusInUse(Workload{}, Seconds(3600)).empty());
  EXPECT_EQ(PeakWindowStart(w, Seconds(10 * 3600)), Micros(0));
  EXPECT_EQ(PeakWindowStart(w, Seconds(3600)), Seconds(2 * 3600));
}

// Peaks 6, 20, 9 GPUs in windows of 100 s from 1000 s, 4 GPUs per node,
// base 3 nodes: windows need max(3, ceil(peak / 4)) = 3, 5, 3 nodes; the
// group grows to 5, nodes 3 and 4 are absent but in window 1, and leave at
// window 2 once empty (running: wait). A gap 1500..1800 drains every node
// from 1501 s to 1800 s.
TEST(TraceEvidence, InferredEventsFollowThePeaksAndDrainTheGaps) {
  int64_t total = 0;
  const std::vector<ClusterEvent> ev =
      InferredEvents({6, 20, 9}, Seconds(100), Seconds(1000),
                     {StartGap{Seconds(1500), Seconds(1800), 3, 0}}, "g", 3, 4, &total);
  EXPECT_EQ(total, 5);
  ASSERT_EQ(ev.size(), 5u);
  const std::vector<std::string> upper = {"g-3", "g-4"};
  EXPECT_EQ(ev[0].at, kBeforeEverything);
  EXPECT_EQ(ev[0].change, NodeChange::kDown);
  EXPECT_EQ(ev[0].cause, DownCause::kAbsent);
  EXPECT_EQ(ev[0].nodes, upper);
  EXPECT_EQ(ev[1].at, Seconds(1100));
  EXPECT_EQ(ev[1].change, NodeChange::kUp);
  EXPECT_EQ(ev[1].nodes, upper);
  EXPECT_EQ(ev[2].at, Seconds(1200));
  EXPECT_EQ(ev[2].change, NodeChange::kDown);
  EXPECT_FALSE(ev[2].kill);
  EXPECT_EQ(ev[2].nodes, upper);
  EXPECT_EQ(ev[3].at, Seconds(1501));
  EXPECT_EQ(ev[3].change, NodeChange::kDrain);
  EXPECT_EQ(ev[3].nodes, std::vector<std::string>{"g"});
  EXPECT_EQ(ev[4].at, Seconds(1800));
  EXPECT_EQ(ev[4].change, NodeChange::kResume);
  for (const ClusterEvent& e : ev) EXPECT_TRUE(CheckClusterEvent(e).ok()) << e.where;
  // Peaks within the base: no capacity event.
  EXPECT_TRUE(InferredEvents({12}, Seconds(100), Seconds(0), {}, "g", 3, 4, &total).empty());
  EXPECT_EQ(total, 3);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
