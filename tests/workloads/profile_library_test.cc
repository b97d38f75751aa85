#include "utilsim/workloads/profile_library.h"

#include <gtest/gtest.h>

namespace utilsim {
namespace UTILSIM_UNITY_ID {

ProfileEntry Entry(const std::string& key, int64_t milli, int64_t dur_s,
                   std::vector<std::pair<int64_t, float>> pts) {
  ProfileEntry e;
  e.key = key;
  e.gpu_milli = milli;
  e.duration = Seconds(dur_s);
  for (auto [t, b] : pts) {
    e.series.offset.push_back(Seconds(t));
    e.series.busy.push_back(b);
  }
  return e;
}

Job MakeJob(int gpus, int64_t runtime_s, bool known = false) {
  Job j;
  j.task.gpus = gpus;
  j.runtime = Seconds(runtime_s);
  j.util_known = known;
  if (known) j.util = 0.9f;
  return j;
}

TEST(ProfileLibrary, BucketsMatchTheDocumentedEdges) {
  EXPECT_EQ(GpuBucket(500), 0);
  EXPECT_EQ(GpuBucket(1000), 1);
  EXPECT_EQ(GpuBucket(8000), 2);
  EXPECT_EQ(GpuBucket(8001), 3);
  EXPECT_EQ(DurationBucket(Seconds(599)), 0);
  EXPECT_EQ(DurationBucket(Seconds(600)), 1);
  EXPECT_EQ(DurationBucket(Seconds(3600)), 2);
  EXPECT_EQ(DurationBucket(Seconds(21600)), 3);
}

TEST(ProfileLibrary, AddComputesMeanAndRejectsBadSeries) {
  ProfileLibrary lib;
  // 100 s: 0.2 for 40 s, then 1.0 for 60 s -> mean 0.68.
  ASSERT_TRUE(lib.Add(Entry("a", 1000, 100, {{0, 0.2f}, {40, 1.0f}})).ok());
  EXPECT_NEAR(lib.entries()[0].mean, 0.68, 1e-6);
  EXPECT_FALSE(lib.Add(Entry("b", 1000, 0, {{0, 0.5f}})).ok());
  EXPECT_FALSE(lib.Add(Entry("c", 1000, 10, {{1, 0.5f}})).ok());
  EXPECT_FALSE(lib.Add(Entry("d", 1000, 10, {{0, 0.5f}, {0, 0.2f}})).ok());
  auto bad = lib.Add(Entry("e", 1000, 10, {{0, 1.5f}}));
  EXPECT_NE(bad.message().find("profile 'e': busy must be within 0..1"), std::string::npos);
}

TEST(ProfileLibrary, AttachesByClassWithFallbacksAndKeepsKnown) {
  ProfileLibrary lib;
  lib.source = "test";
  // Class (1 GPU, 10 min..1 h) holds one entry with mean 0.25; (2-8 GPUs, any)
  // holds one with mean 0.5 at 1-6 h. Nothing for > 8 GPUs.
  ASSERT_TRUE(lib.Add(Entry("one-gpu", 1000, 1200, {{0, 0.25f}})).ok());
  ASSERT_TRUE(lib.Add(Entry("multi", 4000, 7200, {{0, 0.0f}, {3600, 1.0f}})).ok());
  Workload w;
  w.jobs = {MakeJob(1, 1800), MakeJob(4, 600), MakeJob(16, 60), MakeJob(1, 1800, true)};
  AttachReport r = AttachProfiles(&w, lib, AttachMode::kSeries, 1);
  EXPECT_EQ(r.attached, 3);
  EXPECT_EQ(r.exact_class, 1);      // job 0
  EXPECT_EQ(r.gpu_bucket_only, 1);  // job 1: 4 GPUs, 10 min: only the 2 h entry of its bucket
  EXPECT_EQ(r.any_class, 1);        // job 2: 16 GPUs, nothing in bucket 3
  EXPECT_EQ(r.kept, 1);
  EXPECT_FLOAT_EQ(w.jobs[0].util, 0.25f);
  // Job 1 gets "multi" stretched from 7200 s to 600 s: 0 for 300 s, 1 for 300 s.
  ASSERT_GE(w.jobs[1].series, 0);
  const UtilSeries& s = w.series[w.jobs[1].series];
  EXPECT_EQ(s.offset, (std::vector<Micros>{Seconds(0), Seconds(300)}));
  EXPECT_FLOAT_EQ(w.jobs[1].util, 0.5f);
  EXPECT_FLOAT_EQ(w.jobs[3].util, 0.9f);  // known: untouched
  EXPECT_EQ(w.jobs[3].series, -1);
  EXPECT_TRUE(w.jobs[2].util_known);
  EXPECT_NE(r.rule.find("seed 1"), std::string::npos);
}

TEST(ProfileLibrary, SeededDrawIsDeterministicAndSeedSensitive) {
  ProfileLibrary lib;
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE(lib.Add(Entry("p" + std::to_string(i), 1000, 1200, {{0, i / 20.0f}})).ok());
  auto run = [&](uint64_t seed) {
    Workload w;
    for (int i = 0; i < 50; ++i) w.jobs.push_back(MakeJob(1, 1800));
    AttachProfiles(&w, lib, AttachMode::kMean, seed);
    std::vector<float> u;
    for (const auto& j : w.jobs) u.push_back(j.util);
    return u;
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(4));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
