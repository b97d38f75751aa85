// `--scale-host-requests CPU[,MEM]` (host_scale.h): parsing, the transform by
// hand, and the option through run, compare, plan and --mig.
#include "utilsim/analysis/host_scale.h"

#include <gtest/gtest.h>

#include <string>

#include "testutil/testutil.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::RunCli;

bool Has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

std::string CliArgs() {
  return "--trace " + Fixture("cli/jobs.csv") + " --cluster " + Fixture("cli/cluster.yaml");
}

TEST(HostScale, Parses) {
  auto f = ParseHostScale("0.125");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.value().cpu, 0.125);
  EXPECT_EQ(f.value().mem, 0.125);
  f = ParseHostScale("2,0.5");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.value().cpu, 2);
  EXPECT_EQ(f.value().mem, 0.5);
  EXPECT_EQ(ParseHostScale("1e-1").value().cpu, 0.1);
  for (const char* bad :
       {"", "0", "-1", "x", "1,", ",1", "1,2,3", "1,0", "nan", "inf", " 1", "1 ", "0.5x", "1,-2"}) {
    auto b = ParseHostScale(bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_EQ(b.status().message(), "--scale-host-requests: expected CPU[,MEM] factors > 0, got '" +
                                        std::string(bad) + "'");
  }
}

// cpu x0.25, mem x0.125:
//   a: cpu 4001 -> 1000.25 -> 1000; mem 1 GiB + 4 -> 134217728.5 -> 134217729
//      (halves away from zero).
//   b: cpu 0 stays 0; mem 3 -> 0.375 -> 0, kept at 1.
//   c: cpu 7 -> 1.75 -> 2; mem 0 stays 0.
// GPU requests untouched; all three changed.
TEST(HostScale, TransformByHand) {
  Workload w;
  w.jobs.resize(3);
  auto set = [&](size_t i, int32_t gpus, int32_t milli, int64_t cpu, int64_t mem) {
    w.jobs[i].task.gpus = gpus;
    w.jobs[i].task.gpu_milli = milli;
    w.jobs[i].task.cpu_milli = cpu;
    w.jobs[i].task.mem_bytes = mem;
  };
  set(0, 1, 1000, 4001, (int64_t{1} << 30) + 4);
  set(1, 0, 1000, 0, 3);
  set(2, 1, 500, 7, 0);
  Workload again = w;
  EXPECT_EQ(ScaleHostRequests(&w, {0.25, 0.125}), 3);
  EXPECT_EQ(w.jobs[0].task.cpu_milli, 1000);
  EXPECT_EQ(w.jobs[0].task.mem_bytes, 134217729);
  EXPECT_EQ(w.jobs[1].task.cpu_milli, 0);
  EXPECT_EQ(w.jobs[1].task.mem_bytes, 1);
  EXPECT_EQ(w.jobs[2].task.cpu_milli, 2);
  EXPECT_EQ(w.jobs[2].task.mem_bytes, 0);
  EXPECT_EQ(w.jobs[0].task.gpus, 1);
  EXPECT_EQ(w.jobs[2].task.gpu_milli, 500);
  // Deterministic; a second pass with factor 1 changes nothing; a request
  // already at 1 stays 1 (b's memory at x0.125).
  EXPECT_EQ(ScaleHostRequests(&again, {0.25, 0.125}), 3);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(again.jobs[i].task.cpu_milli, w.jobs[i].task.cpu_milli);
    EXPECT_EQ(again.jobs[i].task.mem_bytes, w.jobs[i].task.mem_bytes);
  }
  EXPECT_EQ(ScaleHostRequests(&w, {1, 1}), 0);
  EXPECT_EQ(ScaleHostRequests(&w, {1, 0.125}), 1);  // a's memory only
  EXPECT_EQ(w.jobs[1].task.mem_bytes, 1);
  EXPECT_EQ(HostScaleNote({0.125, 0.125}, 3),
            "host requests scaled: cpu x0.125, mem x0.125 (3 jobs)");
}

TEST(HostScaleCli, HelpListsTheOption) {
  for (const char* cmd : {"run", "compare", "plan"}) {
    std::string out;
    EXPECT_EQ(RunCli(std::string(cmd) + " --help", &out), 0) << cmd;
    EXPECT_TRUE(Has(out, "--scale-host-requests")) << cmd << "\n" << out;
  }
}

// tests/fixtures/cli/jobs.csv: five jobs, all with CPU and memory requests.
TEST(HostScaleCli, RunRecordsTheNote) {
  const std::string db = testutil::TempDir() + "/r.db";
  std::string out;
  ASSERT_EQ(RunCli("run " + CliArgs() + " --scale-host-requests 0.5,0.25 --out " + db, &out), 0)
      << out;
  auto runs = ReadResults(db);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  EXPECT_TRUE(Has(runs.value()[0].meta.notes, "host requests scaled: cpu x0.5, mem x0.25 (5 jobs)"))
      << runs.value()[0].meta.notes;
  ASSERT_EQ(RunCli("run " + CliArgs() + " --out " + db, &out), 0) << out;
  runs = ReadResults(db);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  EXPECT_FALSE(Has(runs.value()[0].meta.notes, "host requests")) << runs.value()[0].meta.notes;
}

TEST(HostScaleCli, CompareAndPlanRecordTheNote) {
  const std::string dir = testutil::TempDir();
  std::string out;
  ASSERT_EQ(
      RunCli("compare " + CliArgs() + " --policies first-fit,best-fit --scale-host-requests 2",
             &out),
      0)
      << out;
  EXPECT_TRUE(Has(out, "note: host requests scaled: cpu x2, mem x2 (5 jobs)")) << out;
  ASSERT_EQ(RunCli("plan " + CliArgs() +
                       " --policies best-fit --target 'p95-wait<=1h' --step 1 --max-scale 1 "
                       "--scale-host-requests 0.5 --out " +
                       dir + "/p.db",
                   &out),
            0)
      << out;
  auto runs = ReadResults(dir + "/p.db");
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_FALSE(runs.value().empty());
  EXPECT_TRUE(Has(runs.value()[0].meta.notes, "host requests scaled: cpu x0.5, mem x0.5 (5 jobs)"))
      << runs.value()[0].meta.notes;
}

TEST(HostScaleCli, BadValuesAreOneLineErrors) {
  for (const char* cmd :
       {"run", "compare --policies best-fit", "plan --policies best-fit --target 'p95-wait<=1h'"})
    for (const char* bad : {"0", "x", "1,2,3"}) {
      std::string out;
      const std::string args =
          std::string(cmd) + " " + CliArgs() + " --scale-host-requests '" + bad + "'";
      EXPECT_EQ(RunCli(args, &out), 2) << args << "\n" << out;  // a usage error
      EXPECT_EQ(out,
                "utilsim: error: --scale-host-requests: expected CPU[,MEM] factors > 0, got '" +
                    std::string(bad) + "'\n")
          << args;
    }
}

// The transform comes before MIG right-sizing (tests/fixtures/mig: 1-core
// jobs, 8 cores per 1g instance): x10 makes every job ask 10 cores, more
// than a 1g instance's share, so all three get 7g (at tol 0.5 two got 1g).
TEST(HostScaleCli, AppliesBeforeMigRightSizing) {
  const std::string db = testutil::TempDir() + "/m.db";
  std::string out;
  ASSERT_EQ(
      RunCli("run --trace " + Fixture("mig/jobs.csv") + " --cluster " + Fixture("mig/tiny.yaml") +
                 " --policy fifo-skip+first-fit --mig right-size:0.5 "
                 "--scale-host-requests 10 --out " +
                 db,
             &out),
      0)
      << out;
  auto runs = ReadResults(db);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  const RunResult& r = runs.value()[0];
  EXPECT_TRUE(Has(r.meta.notes, "host requests scaled: cpu x10, mem x10 (3 jobs)")) << r.meta.notes;
  EXPECT_TRUE(Has(r.meta.notes, "7g.80gb 3")) << r.meta.notes;
  for (const JobRecord& j : r.jobs)
    EXPECT_EQ(j.placement.rfind("h/7g.80gb:", 0), 0u) << j.name << " " << j.placement;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
