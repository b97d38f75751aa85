// AttachTelemetry: join by pod id and by host + window, with hand-computed
// series and means; gaps, offsets, signals, counting.
#include "utilsim/traces/telemetry_join.h"

#include <gtest/gtest.h>

#include <string>

#include "testutil/testutil.h"
#include "utilsim/traces/telemetry.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;

UtilTrack Track(std::string job, std::string host, int32_t gpu, std::vector<int64_t> secs,
                std::vector<float> busy, std::vector<int64_t> mem = {}) {
  UtilTrack t;
  t.job = std::move(job);
  t.host = std::move(host);
  t.gpu = gpu;
  t.signal = UtilSignal::kGpuUtil;
  for (int64_t s : secs) t.time.push_back(Seconds(s));
  t.busy = std::move(busy);
  t.mem_bytes = std::move(mem);
  return t;
}

Job MakeJob(std::string name, int64_t start_s, int64_t runtime_s, std::vector<std::string> hosts,
            int32_t gpus = 1) {
  Job j;
  j.name = std::move(name);
  j.submit = Seconds(start_s);
  j.recorded_start = Seconds(start_s);
  j.runtime = Seconds(runtime_s);
  j.recorded_hosts = std::move(hosts);
  j.task.gpus = gpus;
  j.util = 0.7f;
  return j;
}

void ExpectSeries(const UtilSeries& s, std::vector<int64_t> offsets_s, std::vector<double> busy) {
  ASSERT_EQ(s.offset.size(), offsets_s.size());
  ASSERT_EQ(s.busy.size(), busy.size());
  for (size_t i = 0; i < offsets_s.size(); ++i) {
    EXPECT_EQ(s.offset[i], Seconds(offsets_s[i])) << i;
    EXPECT_NEAR(s.busy[i], busy[i], 1e-6) << i;
  }
}

// Pod track: samples at 0, 10, 20, 60 s; job run [5, 75); max gap 30 s.
//   0 s holds [0,10) -> [0,5) 0.2    10 s holds [10,20) -> [5,15) 0.4
//  20 s holds [20,50) -> [15,45) 0.8 (gap cut at 30 s; nothing in [45,55))
//  60 s holds [60,90) -> [55,70) 0.5
// Covered: 5*.2 + 10*.4 + 30*.8 + 15*.5 = 36.5 over 60 s -> mean 0.608333.
TelemetryData PodTelemetry(int64_t shift_s) {
  TelemetryData t;
  t.tracks.push_back(Track("pod-1", "", 0, {shift_s, shift_s + 10, shift_s + 20, shift_s + 60},
                           {0.2f, 0.4f, 0.8f, 0.5f}, {1 * kGiB, 5 * kGiB, 3 * kGiB, -1}));
  t.tracks.push_back(Track("pod-unknown", "", 0, {0}, {1.0f}));
  return t;
}

TEST(TelemetryJoin, ByPodIdWithGapFilledByCoveredMean) {
  Workload w;
  w.jobs.push_back(MakeJob("pod-1", 5, 70, {}));
  w.jobs.push_back(MakeJob("no-telemetry", 0, 10, {}));
  JoinOptions opt;
  opt.max_gap_s = 30;
  Warnings warn;
  ASSERT_TRUE(AttachTelemetry(&w, PodTelemetry(0), opt, &warn).ok());
  const Job& j = w.jobs[0];
  ASSERT_EQ(j.series, 0);
  ExpectSeries(w.series[0], {0, 5, 15, 45, 55}, {0.2, 0.4, 0.8, 36.5 / 60, 0.5});
  EXPECT_NEAR(j.util, 36.5 / 60, 1e-6);
  EXPECT_EQ(j.gpu_mem_used_bytes, 5 * kGiB);
  EXPECT_EQ(w.jobs[1].series, -1);
  EXPECT_EQ(w.jobs[1].util, 0.7f);  // kept
  EXPECT_EQ(w.signal, UtilSignal::kGpuUtil);
  EXPECT_EQ(warn.count(kWarnJobWithoutTelemetry), 1);
  EXPECT_EQ(warn.count(kWarnTrackWithoutJob), 1);
  EXPECT_EQ(warn.total(), 2);
}

TEST(TelemetryJoin, GapAsIdleAndTimeOffset) {
  Workload w;
  w.jobs.push_back(MakeJob("pod-1", 5, 70, {}));
  JoinOptions opt;
  opt.max_gap_s = 30;
  opt.gap_fill = GapFill::kZero;
  opt.time_offset = Seconds(-1000);  // telemetry clock runs 1000 s ahead
  ASSERT_TRUE(AttachTelemetry(&w, PodTelemetry(1000), opt, nullptr).ok());
  ExpectSeries(w.series[0], {0, 5, 15, 45, 55}, {0.2, 0.4, 0.8, 0.0, 0.5});
  EXPECT_NEAR(w.jobs[0].util, 36.5 / 70, 1e-6);
}

TEST(TelemetryJoin, ByHostAndWindowAveragesGpus) {
  // Job run [100, 200) on host n1. Default max gap 300 s.
  // gpu0: 90 s 0.2 holds to 150, 150 s 0.6 holds to the end -> [0,50) .2, [50,100) .6
  // gpu1: 120 s 1.0 holds to 180, 180 s 0.0                   -> [20,80) 1, [80,100) 0
  // Average: [0,20) .2  [20,50) .6  [50,80) .8  [80,100) .3; mean 0.52.
  Workload w;
  w.jobs.push_back(MakeJob("h", 100, 100, {"n1"}, 2));
  w.jobs.push_back(MakeJob("cpu", 100, 100, {"n1"}, 0));  // CPU-only: never joined by host
  w.jobs.push_back(MakeJob("elsewhere", 100, 100, {"n9"}));
  TelemetryData t;
  t.tracks.push_back(Track("", "n1", 0, {90, 150}, {0.2f, 0.6f}, {2 * kGiB, 4 * kGiB}));
  t.tracks.push_back(Track("", "n1", 1, {120, 180}, {1.0f, 0.0f}));
  t.tracks.push_back(Track("", "n1", 2, {500, 600}, {1.0f, 1.0f}));  // after the run
  t.tracks.push_back(Track("", "n2", 0, {100}, {1.0f}));             // no job on n2
  Warnings warn;
  ASSERT_TRUE(AttachTelemetry(&w, t, {}, &warn).ok());
  const Job& h = w.jobs[0];
  ASSERT_GE(h.series, 0);
  ExpectSeries(w.series[static_cast<size_t>(h.series)], {0, 20, 50, 80}, {0.2, 0.6, 0.8, 0.3});
  EXPECT_NEAR(h.util, 0.52, 1e-6);
  EXPECT_EQ(h.gpu_mem_used_bytes, 4 * kGiB);
  EXPECT_EQ(w.jobs[1].series, -1);
  EXPECT_EQ(w.jobs[2].series, -1);
  EXPECT_EQ(warn.count(kWarnTrackWithoutJob), 2);
  EXPECT_EQ(warn.count(kWarnJobWithoutTelemetry), 1);  // "elsewhere"; "cpu" is not counted
  EXPECT_EQ(warn.count(kWarnSharedHost), 0);           // the CPU job does not share GPUs
  EXPECT_EQ(warn.total(), 3);
}

TEST(TelemetryJoin, ConcurrentJobsOnOneHostAreCounted) {
  Workload w;
  w.jobs.push_back(MakeJob("a", 0, 100, {"n1"}));
  w.jobs.push_back(MakeJob("b", 50, 100, {"n1"}));
  w.jobs.push_back(MakeJob("c", 500, 100, {"n1"}));
  TelemetryData t;
  t.tracks.push_back(Track("", "n1", 0, {0, 60, 120, 500}, {0.1f, 0.5f, 0.9f, 0.3f}));
  Warnings warn;
  ASSERT_TRUE(AttachTelemetry(&w, t, {}, &warn).ok());
  // a: [0,60) .1, [60,100) .5   b: [0,10) .1, [10,70) .5, [70,100) .9   c: .3
  ExpectSeries(w.series[static_cast<size_t>(w.jobs[0].series)], {0, 60}, {0.1, 0.5});
  ExpectSeries(w.series[static_cast<size_t>(w.jobs[1].series)], {0, 10, 70}, {0.1, 0.5, 0.9});
  ExpectSeries(w.series[static_cast<size_t>(w.jobs[2].series)], {0}, {0.3});
  EXPECT_NEAR(w.jobs[1].util, (10 * 0.1 + 60 * 0.5 + 30 * 0.9) / 100, 1e-6);
  EXPECT_EQ(warn.count(kWarnSharedHost), 2);  // a and b, not c
}

TEST(TelemetryJoin, SignalsAndErrors) {
  Workload w;
  w.signal = UtilSignal::kSynthetic;
  w.jobs.push_back(MakeJob("pod-1", 0, 10, {}));
  TelemetryData t;
  t.tracks.push_back(Track("pod-1", "", 0, {0}, {0.5f}));
  t.tracks.push_back(Track("pod-1", "", 0, {0}, {0.25f}));
  t.tracks[1].signal = UtilSignal::kSmActive;
  Status st = AttachTelemetry(&w, t, {}, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "AttachTelemetry: telemetry holds several signals (gpu_util, sm_active); choose one "
            "with JoinOptions::signal");
  EXPECT_EQ(w.jobs[0].series, -1);  // unchanged
  JoinOptions opt;
  opt.signal = UtilSignal::kSmActive;
  Warnings warn;
  ASSERT_TRUE(AttachTelemetry(&w, t, opt, &warn).ok());
  EXPECT_EQ(w.jobs[0].util, 0.25f);
  EXPECT_EQ(w.signal, UtilSignal::kSmActive);
  EXPECT_EQ(warn.count(kWarnOtherSignal), 1);
  EXPECT_EQ(warn.count(kWarnSignalReplaced), 1);

  opt.max_gap_s = 0;
  EXPECT_EQ(AttachTelemetry(&w, t, opt, nullptr).message(),
            "AttachTelemetry: max_gap_s: expected seconds > 0, got '0'");
  TelemetryData bad;
  bad.tracks.push_back(Track("x", "", 0, {5, 5}, {0.1f, 0.2f}));
  EXPECT_EQ(AttachTelemetry(&w, bad, {}, nullptr).message(),
            "AttachTelemetry: track 0 pod 'x' gpu 0: time 5 s is not after the previous sample");
  bad.tracks[0] = Track("x", "", -1, {5}, {1.5f});
  EXPECT_EQ(AttachTelemetry(&w, bad, {}, nullptr).message(),
            "AttachTelemetry: track 0 pod 'x': busy at 5 s is not a fraction 0..1");
  EXPECT_FALSE(AttachTelemetry(nullptr, t, opt, nullptr).ok());
}

TEST(TelemetryJoin, PodTrackOutsideTheRun) {
  Workload w;
  w.jobs.push_back(MakeJob("pod-1", 1000, 10, {}));
  Warnings warn;
  JoinOptions opt;
  opt.max_gap_s = 30;
  ASSERT_TRUE(AttachTelemetry(&w, PodTelemetry(0), opt, &warn).ok());
  EXPECT_EQ(w.jobs[0].series, -1);
  EXPECT_EQ(warn.count(kWarnTrackOutsideRun), 1);
  EXPECT_EQ(warn.count(kWarnJobWithoutTelemetry), 1);
}

TEST(TelemetryJoin, EndToEndFromExposition) {
  // train-7 (pod track: 100 % at T0, blank at +30 dropped, 50 % at +60),
  // run [T0 + 10, T0 + 70) -> [0,50) 1.0, [50,60) 0.5; mean 55/60.
  auto r = ReadDcgmExposition(testutil::Fixture("telemetry/dcgm_exporter.prom"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  Workload w;
  w.jobs.push_back(MakeJob("train-7", 10, 60, {}));
  JoinOptions opt;
  opt.time_offset = Seconds(-1700000000);
  opt.signal = UtilSignal::kGpuUtil;
  Warnings warn;
  ASSERT_TRUE(AttachTelemetry(&w, r.value(), opt, &warn).ok());
  ExpectSeries(w.series[0], {0, 50}, {1.0, 0.5});
  EXPECT_NEAR(w.jobs[0].util, 55.0 / 60, 1e-6);
  EXPECT_EQ(w.jobs[0].gpu_mem_used_bytes, int64_t{40960} << 20);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
