#include "utilsim/analysis/validate.h"

#include <gtest/gtest.h>

#include "testutil/testutil.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

TEST(Validate, CorrelationsByHand) {
  // Pearson of (1,2,3) and (2,4,7): means 2 and 13/3; deviations (-1,0,1),
  // (-7/3,-1/3,8/3); sab = 7/3 + 8/3 = 5; saa = 2; sbb = (49+1+64)/9 = 114/9;
  // r = 5 / sqrt(2 * 114/9) = 5 / 5.0332 = 0.99340.
  EXPECT_NEAR(Pearson({1, 2, 3}, {2, 4, 7}), 0.993399, 1e-6);
  // Spearman with ties: ranks of (10, 20, 20, 30) = (1, 2.5, 2.5, 4); of
  // (1, 3, 2, 4) = (1, 3, 2, 4). Pearson of those: deviations (-1.5, 0, 0,
  // 1.5) and (-1.5, .5, -.5, 1.5): sab = 4.5, saa = 4.5, sbb = 5 -> 0.948683.
  EXPECT_NEAR(Spearman({10, 20, 20, 30}, {1, 3, 2, 4}), 0.948683, 1e-6);
  EXPECT_EQ(Spearman({1, 1, 1}, {1, 2, 3}), 0);  // constant series
  EXPECT_EQ(Pearson({1}, {2}), 0);
}

TEST(Validate, CompareWaitsByHand) {
  // Three jobs submitted on day 0 at 0, 10, 20 s; recorded waits 0, 10, 40;
  // simulated waits 0, 30, 40. Errors 0, 20, 0: MAE 6.667 s, median 0.
  Workload w;
  RunResult r;
  const int64_t rec[] = {0, 10, 40}, sim[] = {0, 30, 40};
  for (int i = 0; i < 3; ++i) {
    Job j;
    j.submit = Seconds(10 * i);
    j.recorded_start = j.submit + Seconds(rec[i]);
    w.jobs.push_back(j);
    JobRecord x;
    x.submit = j.submit;
    x.start = j.submit + Seconds(sim[i]);
    r.jobs.push_back(x);
  }
  WaitFidelity f = CompareWaits(w, r);
  EXPECT_EQ(f.jobs, 3);
  EXPECT_NEAR(f.mae_s, 20.0 / 3, 1e-9);
  EXPECT_EQ(f.median_ae_s, 0);
  EXPECT_NEAR(f.recorded_mean_s, 50.0 / 3, 1e-9);
  EXPECT_NEAR(f.simulated_mean_s, 70.0 / 3, 1e-9);
  EXPECT_NEAR(f.spearman, 1.0, 1e-12);  // same order
  EXPECT_EQ(f.days, 1);
}

TEST(Validate, AaicCapacitySweep) {
  const std::string q3 = testutil::TracePath("aist-aaic/aaicwl-2017Q3.csv.gz");
  if (q3.empty()) GTEST_SKIP() << "aist-aaic not in $UTILSIM_TRACES";
  std::string out;
  ASSERT_EQ(testutil::RunCli("validate --trace " + q3 + " --nodes-list 32,40", &out), 0) << out;
  EXPECT_NE(out.find("13712 jobs with a recorded start"), std::string::npos);
  EXPECT_NE(out.find("recorded mean wait                 8.0 h              8.0 h"),
            std::string::npos)
      << out;
  // The latency floor: AAIC's recorded waits have p10 4 s (counted
  // independently from the trace's waittime column); 5,033 of 13,712 jobs
  // waited longer than 8 s.
  EXPECT_NE(out.find("latency floor                        8 s                8 s"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("rank corr. > floor     0.700 (5033 jobs)  0.748 (5033 jobs)"),
            std::string::npos)
      << out;
  // Stretches of >= 6 h without a recorded start while jobs waited; the
  // longest, with its waiting jobs and the GPUs running through it (both
  // counted independently from the trace's columns).
  EXPECT_NE(out.find("possible outages): 35, the 5 longest:\n  27.6 h from 7d 19:42:59 to 8d "
                     "23:16:35, 14 jobs waiting, 98 GPUs running through it"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("lowest wait MAE: 40 nodes"), std::string::npos) << out;
}

// --infer (docs/validation.md, "Replaying the evidence"): daily capacity
// from the recorded peaks, the outages drained, an 8 s cycle. Pins the
// documented figures: 2017Q3 at base 36, 2018Q1 at base 30.
TEST(Validate, AaicReplayingTheEvidence) {
  const std::string q3 = testutil::TracePath("aist-aaic/aaicwl-2017Q3.csv.gz");
  const std::string q1 = testutil::TracePath("aist-aaic/aaicwl-2018Q1.csv.gz");
  if (q3.empty() || q1.empty()) GTEST_SKIP() << "aist-aaic not in $UTILSIM_TRACES";
  std::string out;
  ASSERT_EQ(testutil::RunCli("validate --trace " + q3 + " --nodes-list 36 --infer", &out), 0)
      << out;
  // 882 GPUs at once on 2017-09-27 (trace-formats.md): 111 nodes that day.
  EXPECT_NE(out.find("79 windows of 24 h, peak GPUs in use up to 882 (111 nodes of 8 GPUs); 35 "
                     "outages of >= 6 h (every node drained); scheduling cycle 8 s"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("rank corr. > floor     0.785 (5033 jobs)"), std::string::npos) << out;
  EXPECT_NE(out.find("daily mean wait corr.       0.613 (73 d)"), std::string::npos) << out;
  const std::string dir = testutil::TempDir();
  ASSERT_EQ(testutil::RunCli("validate --trace " + q1 + " --nodes-list 30 --infer --out " + dir +
                                 "/v.db --events-out " + dir + "/ev.yaml",
                             &out),
            0)
      << out;
  EXPECT_NE(out.find("rank corr. > floor     0.610 (14938 jobs)"), std::string::npos) << out;
  EXPECT_NE(out.find("daily mean wait corr.        0.841 (85 d)"), std::string::npos) << out;
  // The written events are the run's cluster events: `run --events` on the
  // grown cluster with the cycle starts every job when the replay did.
  const std::string ev = testutil::ReadFile(dir + "/ev.yaml");
  EXPECT_NE(ev.find("grown from 30 to 59 nodes of 8 GPUs: run with --nodes 59"), std::string::npos)
      << ev;
  ASSERT_EQ(testutil::RunCli("run --trace " + q1 + " --nodes 59 --events " + dir +
                                 "/ev.yaml --pass-interval 8 --policy easy-backfill+first-fit "
                                 "--out " +
                                 dir + "/r.db",
                             &out),
            0)
      << out;
  auto v = ReadResults(dir + "/v.db");
  auto r = ReadResults(dir + "/r.db");
  ASSERT_TRUE(v.ok() && r.ok());
  const auto& a = v.value()[0].jobs;
  const auto& b = r.value()[0].jobs;
  ASSERT_EQ(a.size(), b.size());
  int64_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i) differ += a[i].start != b[i].start;
  EXPECT_EQ(differ, 0);
  EXPECT_EQ(v.value()[0].summary.down_absent_gpu_h, r.value()[0].summary.down_absent_gpu_h);
  // --events-out needs --infer and one size: a usage error.
  EXPECT_EQ(testutil::RunCli("validate --trace " + q1 + " --events-out " + dir + "/x.yaml", &out),
            2);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
