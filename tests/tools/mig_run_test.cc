// `--mig right-size[:TOL]` through the CLI (mig_run.h): runs on the MIG
// fixtures, notes say the results are derived, ComputeMigUsage checked by
// hand on a tiny case, and the errors for bad values and clusters without
// MIG.
#include "utilsim/analysis/mig_run.h"

#include <gtest/gtest.h>

#include <string>

#include "testutil/testutil.h"
#include "utilsim/io/inputs.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::RunCli;

bool Has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

std::string Args(const std::string& cluster) {
  return "run --trace " + Fixture("mig/jobs.csv") + " --cluster " + Fixture("mig/" + cluster) +
         " --policy fifo-skip+first-fit";
}

ClusterSpec LoadCluster(const std::string& name) {
  InputOptions o;
  o.trace = Fixture("mig/jobs.csv");
  o.cluster = Fixture("mig/" + name);
  auto in = LoadInputs(o);
  EXPECT_TRUE(in.ok()) << in.status().message();
  return in.ok() ? in.value().cluster : ClusterSpec{};
}

TEST(MigOption, Parses) {
  auto p = ParseMigOption("right-size");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.value().tolerance, 0.9);
  p = ParseMigOption("right-size:0.5");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.value().tolerance, 0.5);
  EXPECT_EQ(ParseMigOption("right-size:1").value().tolerance, 1.0);
  for (const char* bad : {"right-sized", "whole", "", "right-size:"}) {
    auto b = ParseMigOption(bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_TRUE(Has(b.status().message(), "--mig: ")) << b.status().message();
  }
  EXPECT_EQ(ParseMigOption("rightsize").status().message(),
            "--mig: expected right-size[:TOL] or dynamic[:TOL], got 'rightsize'");
  auto d = ParseMigMode("dynamic:0.7");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d.value().dynamic);
  EXPECT_EQ(d.value().size.tolerance, 0.7);
  EXPECT_FALSE(ParseMigMode("right-size").value().dynamic);
  EXPECT_EQ(ParseMigMode("dynamicx").status().message(),
            "--mig: expected right-size[:TOL] or dynamic[:TOL], got 'dynamicx'");
  EXPECT_EQ(ParseMigMode("dynamic:2").status().message(),
            "--mig: tolerance must be a number in (0, 1], got '2'");
}

TEST(MigOption, ReconfigTimes) {
  auto t = ParseMigReconfig("3");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.value().create, Seconds(3));
  EXPECT_EQ(t.value().destroy, Seconds(3));
  EXPECT_EQ(t.value().fixed, Micros(0));
  t = ParseMigReconfig("1.5,0.5,30");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.value().create, Micros(1'500'000));
  EXPECT_EQ(t.value().destroy, Micros(500'000));
  EXPECT_EQ(t.value().fixed, Seconds(30));
  for (const char* bad : {"", "x", "1,", "-1", "1,2,3,4", "1,,2"})
    EXPECT_EQ(ParseMigReconfig(bad).status().message(),
              std::string("--mig-reconfig: expected CREATE[,DESTROY[,FIXED]] seconds >= 0, got '") +
                  bad + "'")
        << bad;
  EXPECT_EQ(ParseMigOption("right-size:0").status().message(),
            "--mig: tolerance must be a number in (0, 1], got '0'");
  EXPECT_EQ(ParseMigOption("right-size:1.5x").status().message(),
            "--mig: tolerance must be a number in (0, 1], got '1.5x'");
}

// Tiny cluster (tests/fixtures/mig/tiny.yaml): one 7g and seven 1g.
// Jobs (tests/fixtures/mig/jobs.csv), all submitted at 0, 1 GPU, 1 core:
//   a 1000 s util 0.3, b 2000 s util 0.05, c 500 s util 0.1.
// Speeds (w 0.41, u_sat 0.44): 1g capacity 1/7.41 = 0.134953;
//   a demand 0.681818: 1g 0.197931; b demand 0.113636: 1g 1;
//   c demand 0.227273: 1g 0.593792.
// tol 0.5: a -> 7g (0.198 < 0.5), b -> 1g, c -> 1g; all start at 0.
//   a 0..1000 on 7g; b 0..2000 on 1g (speed 1); c 0..500/0.593792 =
//   842.045 s on 1g.
TEST(MigRun, TinyCaseByHand) {
  const std::string db = testutil::TempDir() + "/m.db";
  std::string out;
  ASSERT_EQ(RunCli(Args("tiny.yaml") + " --mig right-size:0.5 --out " + db, &out), 0) << out;
  auto runs = ReadResults(db);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs.value().size(), 1u);
  const RunResult& r = runs.value()[0];
  EXPECT_TRUE(Has(r.meta.notes, "mig right-size tol=0.5 (derived")) << r.meta.notes;
  EXPECT_TRUE(Has(r.meta.notes, "1g.10gb 2, 7g.80gb 1")) << r.meta.notes;
  EXPECT_TRUE(Has(r.meta.notes, "each MIG instance counts as one GPU")) << r.meta.notes;
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(r.jobs[0].placement.rfind("h/7g.80gb:", 0), 0u) << r.jobs[0].placement;
  EXPECT_EQ(r.jobs[1].placement.rfind("h/1g.10gb:", 0), 0u) << r.jobs[1].placement;
  EXPECT_EQ(r.jobs[2].placement.rfind("h/1g.10gb:", 0), 0u) << r.jobs[2].placement;
  EXPECT_EQ(r.jobs[0].finish.us, 1000'000'000);
  EXPECT_EQ(r.jobs[1].finish.us, 2000'000'000);
  EXPECT_NEAR(r.jobs[2].finish.seconds(), 842.045, 1e-3);
  for (const JobRecord& j : r.jobs) EXPECT_EQ(j.start.us, 0) << j.name;

  auto u = ComputeMigUsage(r, LoadCluster("tiny.yaml"), 2);
  ASSERT_TRUE(u.ok()) << u.status().message();
  const MigUsage& m = u.value();
  // Span 0..2000 s; capacity 2 GPUs x 2000 s = 4000 GPU-s.
  EXPECT_EQ(m.physical_gpus, 2);
  EXPECT_DOUBLE_EQ(m.span_s, 2000);
  // GPU-equivalents held: a 1000 x 7/7 + b 2000 x 1/7 + c 842.045 x 1/7 =
  // 1406.006 GPU-s = 35.150% of 4000.
  EXPECT_NEAR(m.gpu_alloc_h * 3600, 1406.006, 1e-2);
  EXPECT_NEAR(m.alloc_pct, 35.150, 1e-2);
  // Useful (full-GPU busy work): 0.3 x 1000 + 0.05 x 2000 + 0.1 x 500 = 450.
  EXPECT_NEAR(m.useful_h * 3600, 450, 1e-2);
  EXPECT_NEAR(m.effective_util_pct, 11.25, 1e-3);
  // Slices: alloc 7 x 1000 + 2000 + 842.045 = 9842.045 slice-s; busy = held
  // minus the recorded idle seconds: a 7 x (1000 - 700) = 2100, b 2000 -
  // 1900 = 100, c 842.045 - 450 = 392.045: 2592.045 = 26.336%.
  EXPECT_NEAR(m.slice_alloc_h * 3600, 9842.045, 1e-2);
  EXPECT_NEAR(m.slice_busy_h * 3600, 2592.045, 1e-2);
  EXPECT_NEAR(m.slice_busy_pct, 26.336, 1e-2);
  // On instances below 7g: b (1.0) and c (842.045 / 500 = 1.68409).
  EXPECT_EQ(m.small_jobs, 2);
  EXPECT_NEAR(m.slowdown_small, 1.342045, 1e-5);
}

// Dynamic at tol 0.5 (RightSizeMigDynamic: every profile a candidate):
// a (util 0.3): 1g 0.198, 1g.20gb 0.258, 2g 0.396, 3g 0.668 -> 3g;
// b -> 1g (speed 1); c -> 1g (0.594). At 0: no 3g exists; freeing GPU 0's
// idle 7g costs destroy + create = 4 s, GPU 1's 1g slots 3 or 4 destroys
// + 1 create (8 or 10 s): GPU 0, 3g at start 4 (slot choice), ready at 4.
// b and c take GPU 1's 1g@0 and 1g@1 at 0. a: 4 + 1000 / 0.667678 =
// 1501.727 s; b 2000; c 842.045.
TEST(MigRun, DynamicTinyCaseByHand) {
  const std::string db = testutil::TempDir() + "/m.db";
  std::string out;
  ASSERT_EQ(RunCli(Args("tiny.yaml") + " --mig dynamic:0.5 --out " + db, &out), 0) << out;
  auto runs = ReadResults(db);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  const RunResult& r = runs.value()[0];
  EXPECT_TRUE(Has(r.meta.notes, "mig right-size tol=0.5 (derived")) << r.meta.notes;
  EXPECT_TRUE(Has(r.meta.notes, "1g.10gb 2, 3g.40gb 1")) << r.meta.notes;
  EXPECT_TRUE(Has(r.meta.notes,
                  "mig dynamic: 1 reconfigurations (0 after drains; 0 drains decided), 1 "
                  "instances created, 1 destroyed; change time 4 s"))
      << r.meta.notes;
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(r.jobs[0].placement, "h:0");
  EXPECT_EQ(r.jobs[1].placement, "h:1");
  EXPECT_EQ(r.jobs[2].placement, "h:1");
  EXPECT_EQ(r.jobs[0].start, Seconds(4));
  EXPECT_NEAR(r.jobs[0].finish.seconds(), 1501.727, 1e-3);
  EXPECT_EQ(r.jobs[1].start.us, 0);
  EXPECT_EQ(r.jobs[1].finish, Seconds(2000));
  EXPECT_NEAR(r.jobs[2].finish.seconds(), 842.045, 1e-3);
  // Allocation counts memory slices: a 3g holds 500 milli, a 1g 125.
  EXPECT_EQ(r.jobs[0].gpu_milli, 500);
  EXPECT_EQ(r.jobs[1].gpu_milli, 125);

  InputOptions o;
  o.trace = Fixture("mig/jobs.csv");
  o.cluster = Fixture("mig/tiny.yaml");
  auto in = LoadInputs(o);
  ASSERT_TRUE(in.ok()) << in.status().message();
  Workload sized = in.value().workload;
  RightSizeParams p;
  p.tolerance = 0.5;
  ASSERT_TRUE(RightSizeMigDynamic(LoadCluster("tiny.yaml"), p, &sized).ok());
  auto u = ComputeMigUsage(r, LoadCluster("tiny.yaml"), 2, &sized);
  ASSERT_TRUE(u.ok()) << u.status().message();
  // Instance-seconds x slices: a 1497.727 x 3 + b 2000 + c 842.045 =
  // 7335.227 slice-s; GPU-equivalents / 7 = 1047.890 GPU-s of 2 x 2000.
  EXPECT_NEAR(u.value().slice_alloc_h * 3600, 7335.227, 1e-2);
  EXPECT_NEAR(u.value().alloc_pct, 100 * 1047.890 / 4000, 1e-3);
  // Useful work counts full-GPU busy seconds (the recorded utilization is
  // of a whole GPU), as in the static run: 450 GPU-s of 4000 = 11.25%.
  EXPECT_NEAR(u.value().useful_h * 3600, 450, 1e-2);
  EXPECT_NEAR(u.value().effective_util_pct, 11.25, 1e-3);
  EXPECT_NEAR(r.summary.useful_gpu_h * 3600, 450, 1e-2);
  // Busy slices: a (1497.727 - (1000 - 300)) x 3 = 2393.182, b 2000 - 1900
  // = 100, c 842.045 - 450 = 392.045: 2885.227 of 7335.227 = 39.334%.
  EXPECT_NEAR(u.value().slice_busy_h * 3600, 2885.227, 1e-2);
  EXPECT_NEAR(u.value().slice_busy_pct, 39.334, 1e-2);
  // Slowdowns: a 1.497727, b 1, c 1.684091: mean 1.393939.
  EXPECT_EQ(u.value().small_jobs, 3);
  EXPECT_NEAR(u.value().slowdown_small, 1.393939, 1e-5);
}

TEST(MigRun, DynamicErrors) {
  std::string out;
  EXPECT_NE(RunCli(Args("tiny.yaml") + " --mig dynamic --sharing timeslice", &out), 0);
  EXPECT_TRUE(Has(out,
                  "--mig: dynamic needs sharing fractional (the default; MIG instances "
                  "are isolated, not shared), got 'timeslice'"))
      << out;
  EXPECT_NE(RunCli(Args("tiny.yaml") + " --mig dynamic --mig-reconfig 2,x", &out), 0);
  EXPECT_TRUE(Has(out,
                  "--mig-reconfig: expected CREATE[,DESTROY[,FIXED]] seconds >= 0, got "
                  "'2,x'"))
      << out;
  EXPECT_NE(RunCli(Args("h100-whole.yaml") + " --mig dynamic", &out), 0);
  EXPECT_TRUE(Has(out, "declares no MIG layouts")) << out;
}

TEST(MigRun, DynamicIsDeterministic) {
  const std::string dir = testutil::TempDir();
  std::string out;
  for (const char* name : {"/a.db", "/b.db"})
    ASSERT_EQ(RunCli("run --jobs 2000 --cluster " + Fixture("mig/h100-dynamic.yaml") +
                         " --mig dynamic --scale-host-requests 0.125 --policy fifo-skip+best-fit "
                         "--out " +
                         dir + name,
                     &out),
              0)
        << out;
  EXPECT_EQ(testutil::ReadFile(dir + "/a.db"), testutil::ReadFile(dir + "/b.db"));
  EXPECT_TRUE(Has(out, "mig dynamic: ")) << out;
}

// Default tolerance 0.9: c (1g speed 0.594) goes to 7g and waits for a.
TEST(MigRun, DefaultToleranceKeepsSlowJobsWhole) {
  const std::string db = testutil::TempDir() + "/m.db";
  std::string out;
  ASSERT_EQ(RunCli(Args("tiny.yaml") + " --mig right-size --out " + db, &out), 0) << out;
  auto runs = ReadResults(db);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  const RunResult& r = runs.value()[0];
  EXPECT_TRUE(Has(r.meta.notes, "mig right-size tol=0.9 (derived")) << r.meta.notes;
  EXPECT_TRUE(Has(r.meta.notes, "1g.10gb 1, 7g.80gb 2")) << r.meta.notes;
  EXPECT_EQ(r.jobs[2].start.us, 1000'000'000);
  EXPECT_EQ(r.jobs[2].finish.us, 1500'000'000);
  auto u = ComputeMigUsage(r, LoadCluster("tiny.yaml"), 2);
  ASSERT_TRUE(u.ok()) << u.status().message();
  // Held: 1000 + 2000/7 + 500 = 1785.714 of 4000 GPU-s; slices busy 7 x 300
  // + 100 + 7 x 50 = 2550 of 7000 + 2000 + 3500 = 12500.
  EXPECT_NEAR(u.value().alloc_pct, 44.643, 1e-3);
  EXPECT_NEAR(u.value().slice_busy_pct, 20.4, 1e-3);
  EXPECT_EQ(u.value().small_jobs, 1);
  EXPECT_DOUBLE_EQ(u.value().slowdown_small, 1.0);
}

TEST(MigRun, FixtureClusterRuns) {
  std::string out;
  ASSERT_EQ(RunCli(Args("h100-mig.yaml") + " --mig right-size", &out), 0) << out;
  // Without --mig the mig key is ignored: same run as the whole cluster's
  // shape (64 x 8 GPUs).
  std::string plain, whole;
  ASSERT_EQ(RunCli(Args("h100-mig.yaml"), &plain), 0) << plain;
  ASSERT_EQ(RunCli(Args("h100-whole.yaml"), &whole), 0) << whole;
  EXPECT_FALSE(Has(plain, "right-size")) << plain;
}

TEST(MigRun, Errors) {
  std::string out;
  EXPECT_NE(RunCli(Args("tiny.yaml") + " --mig whole", &out), 0);
  EXPECT_TRUE(Has(out, "--mig: expected right-size[:TOL] or dynamic[:TOL], got 'whole'")) << out;
  EXPECT_NE(RunCli(Args("tiny.yaml") + " --mig right-size:2", &out), 0);
  EXPECT_TRUE(Has(out, "--mig: tolerance must be a number in (0, 1], got '2'")) << out;
  EXPECT_NE(RunCli(Args("h100-whole.yaml") + " --mig right-size", &out), 0);
  EXPECT_TRUE(Has(out, "--mig: cluster 'h100-whole' declares no MIG layouts")) << out;
}

TEST(MigRun, HelpExplainsMig) {
  std::string out;
  ASSERT_EQ(RunCli("run --help", &out), 0);
  EXPECT_TRUE(Has(out, "--mig")) << out;
  EXPECT_TRUE(Has(out, "right-size[:TOL]")) << out;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
