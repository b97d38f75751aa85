// `--format sacct` and `--cluster slurm.conf` through the binary: the real
// test cluster's history replays as recorded on its own slurm.conf,
// detection picks the format, inspect shows the reader's findings, bad
// files exit 1 with the file:line message.
#include <gtest/gtest.h>

#include "testutil/testutil.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::RunCli;

using testutil::Has;

TEST(SacctCli, RealHistoryReplaysAsRecordedOnItsSlurmConf) {
  const std::string dir = testutil::TempDir();
  std::string out;
  ASSERT_EQ(
      RunCli("run --trace " + Fixture("slurm/sacct_epoch.txt") + " --format sacct --cluster " +
                 Fixture("slurm/slurm.conf") + " --policy as-recorded --out " + dir + "/x.db",
             &out),
      0)
      << out;
  EXPECT_TRUE(Has(out, "cluster: utest (20 GPUs on 5 nodes)")) << out;
  auto runs = ReadResults(dir + "/x.db");
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  const RunResult& r = runs.value()[0];
  ASSERT_EQ(r.jobs.size(), 22u);
  EXPECT_EQ(r.summary.finished, 22);
  EXPECT_EQ(r.summary.rejected, 0);
  // As recorded: every job starts at its recorded start (job 12 at 111 s,
  // the het component 15+1 at 131 s) and runs its recorded time.
  for (const JobRecord& j : r.jobs) {
    if (j.name == "12") {
      EXPECT_EQ(j.start, Seconds(111));
      EXPECT_EQ(j.finish, Seconds(131));
    }
    if (j.name == "15+1") {
      EXPECT_EQ(j.start, Seconds(131));
    }
  }
  // The JSON of the same history gives the same database figures.
  ASSERT_EQ(RunCli("run --trace " + Fixture("slurm/sacct.json") + " --cluster " +
                       Fixture("slurm/slurm.conf") + " --policy as-recorded --out " + dir + "/j.db",
                   &out),
            0)
      << out;
  auto json = ReadResults(dir + "/j.db");
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(json.value()[0].summary.finished, 22);
  EXPECT_EQ(json.value()[0].summary.makespan_s, r.summary.makespan_s);
  // convert writes a jobs CSV and cluster YAML that run again.
  ASSERT_EQ(RunCli("convert --trace " + Fixture("slurm/sacct.json") + " --cluster " +
                       Fixture("slurm/slurm.conf") + " --out " + dir + "/jobs.csv --cluster-out " +
                       dir + "/c.yaml",
                   &out),
            0)
      << out;
  ASSERT_EQ(RunCli("run --trace " + dir + "/jobs.csv --cluster " + dir +
                       "/c.yaml --policy as-recorded --out " + dir + "/c.db",
                   &out),
            0)
      << out;
  auto converted = ReadResults(dir + "/c.db");
  ASSERT_TRUE(converted.ok());
  EXPECT_EQ(converted.value()[0].summary.makespan_s, r.summary.makespan_s);
  // Another policy runs too.
  ASSERT_EQ(RunCli("run --trace " + Fixture("slurm/sacct_with_steps.txt") + " --cluster " +
                       Fixture("slurm/slurm.conf") + " --policy best-fit --sacct-tenant user " +
                       "--sacct-submit submit --out " + dir + "/b.db",
                   &out),
            0)
      << out;
}

// Telemetry joins a sacct history by host and time: a1's GPUs read
// 40/60/0/100 % from the first jobs' start (UNIX 1796188575, the history's
// origin, hence the offset) and 0 from 1796188650. Jobs do not record which
// GPUs of a host they held, so jobs 1 and 2 (2 GPUs each, 3 s, both on a1)
// each get the mean of a1's four: 0.5, i.e. 2 x 3 s x 0.5 = 3 busy
// GPU-seconds; job 20 (1 GPU on a1 later) gets 0; job 3 (on a2, no
// telemetry) keeps the reader's utilization of 1.
TEST(SacctCli, TelemetryJoinsByHostAndTime) {
  const std::string dir = testutil::TempDir();
  std::string out;
  ASSERT_EQ(RunCli("inspect " + Fixture("slurm/sacct_epoch.txt"), &out), 0) << out;
  EXPECT_TRUE(Has(out, "time origin: UNIX 1796188575")) << out;
  ASSERT_EQ(
      RunCli("run --trace " + Fixture("slurm/sacct_epoch.txt") + " --cluster " +
                 Fixture("slurm/slurm.conf") + " --telemetry " + Fixture("slurm/a1_dcgm.prom") +
                 " --telemetry-offset -1796188575 --policy as-recorded --out " + dir + "/t.db",
             &out),
      0)
      << out;
  EXPECT_TRUE(Has(out, "host shared by concurrent jobs")) << out;
  auto runs = ReadResults(dir + "/t.db");
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  int seen = 0;
  for (const JobRecord& j : runs.value()[0].jobs) {
    if (j.name == "1" || j.name == "2") {
      EXPECT_DOUBLE_EQ(j.alloc_gpu_s, 6.0) << j.name;
      EXPECT_DOUBLE_EQ(j.useful_gpu_s, 3.0) << j.name;
      ++seen;
    }
    if (j.name == "20") {
      EXPECT_DOUBLE_EQ(j.alloc_gpu_s, 1.0);
      EXPECT_DOUBLE_EQ(j.useful_gpu_s, 0.0);
      ++seen;
    }
    if (j.name == "3") {
      EXPECT_DOUBLE_EQ(j.useful_gpu_s, j.alloc_gpu_s);
      ++seen;
    }
  }
  EXPECT_EQ(seen, 4);
}

TEST(SacctCli, DetectedAndInspectedWithFindings) {
  std::string out;
  ASSERT_EQ(RunCli("inspect " + Fixture("slurm/sacct_epoch.txt"), &out), 0) << out;
  EXPECT_TRUE(Has(out, "(format sacct)")) << out;
  EXPECT_TRUE(Has(out, "jobs: 22"));
  ASSERT_EQ(RunCli("inspect " + Fixture("slurm/hand/sacct_v0040.json"), &out), 0) << out;
  EXPECT_TRUE(Has(out, "(format sacct)")) << out;
  ASSERT_EQ(RunCli("inspect " + Fixture("slurm/hand/sacct_states.txt") + " --cluster " +
                       Fixture("slurm/hand/slurm.conf"),
                   &out),
            0)
      << out;
  EXPECT_TRUE(Has(out, "cluster: hand: 7 nodes, 40 GPUs")) << out;
  EXPECT_TRUE(Has(out, "1 x reader: job recorded on a node not in slurm.conf")) << out;
  EXPECT_TRUE(Has(out, "sacct_states.txt:32: job 118 on z1"));
  EXPECT_TRUE(Has(out, "1 x reader: job holds more GPUs per node than slurm.conf gives the node"));
  EXPECT_TRUE(Has(out, "node without RealMemory (Slurm's 1 MiB used)"));
  EXPECT_TRUE(Has(out, "slurm.conf: 7 jobs without a GPU type limited"));
}

TEST(SacctCli, BadFilesExitOneWithTheirLine) {
  const std::string dir = testutil::TempDir();
  const std::string bad = testutil::WriteFile(
      dir + "/bad.txt",
      "JobID|State|Submit|Start|End|AllocTRES|NodeList\n7|COMPLETED|100|100|50|cpu=1|a1\n");
  std::string out;
  EXPECT_EQ(RunCli("run --trace " + bad + " --format sacct --cluster " +
                       Fixture("slurm/slurm.conf") + " --out " + dir + "/x.db",
                   &out),
            1);
  EXPECT_TRUE(Has(out, "bad.txt:2: field 'End': expected a time >= Start (100), got '50'")) << out;
  const std::string conf = testutil::WriteFile(dir + "/slurm.conf", "NodeName=a1 CPUs=x\n");
  EXPECT_EQ(RunCli("run --trace " + Fixture("slurm/sacct_epoch.txt") + " --cluster " + conf +
                       " --out " + dir + "/y.db",
                   &out),
            1);
  EXPECT_TRUE(Has(out, "slurm.conf:1: field 'CPUs': expected an integer 1..1000000000, got 'x'"))
      << out;
  // Without --cluster, a sacct trace has no cluster.
  EXPECT_EQ(
      RunCli("run --trace " + Fixture("slurm/sacct_epoch.txt") + " --out " + dir + "/z.db", &out),
      1);
  EXPECT_TRUE(Has(out, "--cluster: required: format sacct")) << out;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
