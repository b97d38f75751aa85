// Issue 3 end to end through the binary: inspect, convert and runs on the
// real traces (skipped with a reason when $UTILSIM_TRACES lacks them).
#include <gtest/gtest.h>

#include "testutil/testutil.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::RunCli;
using testutil::TracePath;

using testutil::Has;

TEST(TraceCli, InspectOpenbDefault) {
  const std::string pods = TracePath("alibaba-gpu-v2023/openb_pod_list_default.csv");
  if (pods.empty()) GTEST_SKIP() << "alibaba-gpu-v2023 not in $UTILSIM_TRACES";
  std::string out;
  ASSERT_EQ(RunCli("inspect " + pods, &out), 0) << out;
  EXPECT_TRUE(Has(out, "format openb"));
  EXPECT_TRUE(Has(out, "jobs: 8152 (GPU 7064, CPU-only 1088, fractional-GPU 3078"));
  EXPECT_TRUE(Has(out, "1523 nodes, 6212 GPUs"));
  // The recorded scheduling delay of the 7,255 scheduled pods (SOURCE.md:
  // mean 61 s, median 2 s, max 14,330 s = 4.0 h).
  EXPECT_TRUE(Has(out, "recorded wait (start - submit): 7255 jobs: mean 1.0 min")) << out;
  EXPECT_TRUE(Has(out, "p50 2 s"));
  EXPECT_TRUE(Has(out, "max 4.0 h"));
  EXPECT_TRUE(Has(out, "rows/s"));
}

TEST(TraceCli, InspectAaic2017Q3) {
  const std::string q3 = TracePath("aist-aaic/aaicwl-2017Q3.csv.gz");
  if (q3.empty()) GTEST_SKIP() << "aist-aaic not in $UTILSIM_TRACES";
  std::string out;
  ASSERT_EQ(RunCli("inspect " + q3, &out), 0) << out;
  EXPECT_TRUE(Has(out, "jobs: 13712"));
  EXPECT_TRUE(Has(out, "recorded wait (start - submit): 13712 jobs: mean 8.0 h")) << out;
  EXPECT_TRUE(Has(out, "p50 6 s"));
  // The one-user burst of 2017-09-27 exceeds the installed 400 GPUs.
  EXPECT_TRUE(Has(out, "peak 882.0 GPUs"));
  EXPECT_TRUE(Has(out, "recorded starts that push recorded GPU demand above the cluster"));
  // The record's evidence, as validate prints it (docs/validation.md).
  EXPECT_TRUE(Has(out,
                  "record's evidence: latency floor 8 s; 35 gaps of >= 6 h with no start while "
                  "jobs waited; peak GPUs in use per day 6 .. 882 (median 183)"))
      << out;
  EXPECT_TRUE(Has(out, "  27.6 h from 7d 19:42:59 to 8d 23:16:35, 14 jobs waiting")) << out;
}

TEST(TraceCli, RealTracesRunUnderEveryPlacementPolicy) {
  const std::string pods = TracePath("alibaba-gpu-v2023/openb_pod_list_default.csv");
  const std::string q3 = TracePath("aist-aaic/aaicwl-2017Q3.csv.gz");
  if (pods.empty() || q3.empty()) GTEST_SKIP() << "openb or AAIC not in $UTILSIM_TRACES";
  const std::string dir = testutil::TempDir();
  for (const auto& [trace, jobs] : {std::pair{pods, size_t{8152}}, std::pair{q3, size_t{13712}}}) {
    std::string out;
    ASSERT_EQ(RunCli("compare --trace " + trace +
                         " --policies first-fit,best-fit,worst-fit,fifo-skip+best-fit,as-recorded"
                         " --out " +
                         dir + "/r.db",
                     &out),
              0)
        << out;
    auto runs = ReadResults(dir + "/r.db");
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs.value().size(), 5u);
    for (const auto& r : runs.value()) {
      EXPECT_EQ(r.jobs.size(), jobs);
      EXPECT_EQ(r.summary.rejected, 0) << r.meta.label;
      // openb's 897 never-scheduled pods have no recorded start: as-recorded
      // leaves them queued; every other run finishes every job.
      const int64_t unfinished = (r.meta.label == "as-recorded" && jobs == 8152) ? 897 : 0;
      EXPECT_EQ(r.summary.unfinished, unfinished) << r.meta.label;
      EXPECT_EQ(r.summary.finished, static_cast<int64_t>(jobs) - unfinished) << r.meta.label;
    }
  }
}

TEST(TraceCli, ConvertThenRunGivesTheSameResults) {
  const std::string q3 = TracePath("aist-aaic/aaicwl-2017Q3.csv.gz");
  if (q3.empty()) GTEST_SKIP() << "aist-aaic not in $UTILSIM_TRACES";
  const std::string dir = testutil::TempDir();
  std::string out;
  ASSERT_EQ(RunCli("convert --trace " + q3 + " --out " + dir + "/jobs.csv --cluster-out " + dir +
                       "/cluster.yaml",
                   &out),
            0)
      << out;
  EXPECT_TRUE(Has(out, "wrote 13712 jobs"));
  ASSERT_EQ(RunCli("run --trace " + q3 + " --policy best-fit --out " + dir + "/a.db", &out), 0);
  ASSERT_EQ(RunCli("run --trace " + dir + "/jobs.csv --cluster " + dir +
                       "/cluster.yaml --policy best-fit --out " + dir + "/b.db",
                   &out),
            0)
      << out;
  auto a = ReadResults(dir + "/a.db"), b = ReadResults(dir + "/b.db");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value()[0].meta.input_digest, b.value()[0].meta.input_digest);
  ASSERT_EQ(a.value()[0].jobs.size(), b.value()[0].jobs.size());
  for (size_t i = 0; i < a.value()[0].jobs.size(); ++i) {
    ASSERT_EQ(a.value()[0].jobs[i].start, b.value()[0].jobs[i].start);
    ASSERT_EQ(a.value()[0].jobs[i].finish, b.value()[0].jobs[i].finish);
  }
}

TEST(TraceCli, UtilLibraryAttachesDerivedProfiles) {
  const std::string dir = testutil::TempDir();
  std::string out;
  ASSERT_EQ(
      RunCli("run --trace " + testutil::Fixture("cli/jobs.csv") + " --cluster " +
                 testutil::Fixture("cli/cluster.yaml") + " --util-library " +
                 testutil::Fixture("telemetry/nvidia_smi_units.csv") + " --out " + dir + "/r.db",
             &out),
      0)
      << out;
  auto r = ReadResults(dir + "/r.db");
  ASSERT_TRUE(r.ok());
  // jobs.csv gives every job a util, so the library attaches to none.
  EXPECT_TRUE(Has(r.value()[0].meta.notes, "attached to 0 jobs")) << r.value()[0].meta.notes;
  EXPECT_TRUE(Has(r.value()[0].meta.notes, "derived utilization: profile library"));
}

TEST(TraceCli, FormatsAndBadTraceInput) {
  std::string out;
  ASSERT_EQ(RunCli("formats", &out), 0);
  for (const char* f : {"canonical", "openb", "aaic", "swf", "itp", "philly", "pai", "dlrm",
                        "dcgm-exporter", "prom-json", "nvidia-smi", "dcgm-csv", "genai"})
    EXPECT_TRUE(Has(out, f)) << f;
  const std::string dir = testutil::TempDir();
  const std::string bad = testutil::WriteFile(
      dir + "/aaic.csv",
      "id, user, group, queue, nodes, gpus, walltime_req, termcode, time_submit, time_start, "
      "time_end, waittime, walltime\n0, 0, 0, 0, 1, x, 10, 0, 100, 101, 102, 1, 1\n");
  EXPECT_EQ(RunCli("inspect " + bad, &out), 1);
  EXPECT_TRUE(Has(out, "aaic.csv:2: field 'gpus'")) << out;
  EXPECT_EQ(RunCli("inspect " + dir + "/missing.csv", &out), 1);
  EXPECT_TRUE(Has(out, "missing.csv: no such file")) << out;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
