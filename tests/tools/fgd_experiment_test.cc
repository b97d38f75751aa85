// fgd-experiment's protocol (fgd_experiment.h) on hand-computed clusters,
// and --compare-with (fgd_compare.h) on a hand-written published file.
#include "utilsim/analysis/fgd_experiment.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "report_page.h"
#include "utilsim/analysis/fgd_compare.h"
#include "utilsim/analysis/report.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;

// Two nodes of one GPU: capacity 2000 milli-GPU.
ClusterSpec TwoGpus() {
  ClusterSpec s;
  s.name = "two";
  s.models = {{"A", 16 * kGiB, 1.0}};
  s.groups = {NodeGroup{"a", 2, "A", 1, 8000, 64 * kGiB}};
  return s;
}

Workload Pods(int n) {
  Workload w;
  for (int i = 0; i < n; ++i) {
    Job j;
    j.tasks = 1;
    j.task.gpus = 1;
    j.task.gpu_milli = 1000;
    j.task.cpu_milli = 1000;
    j.task.mem_bytes = kGiB;
    w.jobs.push_back(j);
  }
  return w;
}

FgdExperimentOptions Opt(std::vector<std::string> policies) {
  FgdExperimentOptions o;
  o.policies = std::move(policies);
  o.seeds = 2;
  return o;
}

// Two 1-GPU pods (2000 of the 2600 target): the simulator's tuning draws a
// third, whose 1000 would pass 2600, so it stops: the sequence is the two
// pods. Records: 50 % arrived / 50 % allocated, then 100 / 100. Point k is
// the record that rounds to k, else one within k +- 1: 49..51 -> 50,
// 99..101 -> 100, the rest missing. One typical class (a whole GPU), so no
// free share is ever fragmented.
TEST(FgdExperiment, SimulatorArrivalsAndDiscretePoints) {
  auto r = RunFgdExperiment(Pods(2), TwoGpus(), Opt({"fgdsim-best-fit"}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const FgdCurve& c = r.value()[0];
  ASSERT_EQ(c.arrived.size(), 131u);
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(c.runs[0].seed, 42u);
  EXPECT_EQ(c.runs[1].seed, 43u);
  EXPECT_EQ(c.runs[0].pods, 2);
  for (int k : {49, 50, 51}) EXPECT_DOUBLE_EQ(c.alloc_mean[k], 0.5) << k;
  for (int k : {99, 100, 101}) EXPECT_DOUBLE_EQ(c.alloc_mean[k], 1.0) << k;
  for (int k : {0, 48, 52, 98, 102, 130}) EXPECT_TRUE(std::isnan(c.alloc_mean[k])) << k;
  EXPECT_DOUBLE_EQ(c.frag_mean[100], 0);
  EXPECT_DOUBLE_EQ(c.failed_mean[100], 0);
}

// Three pods (3000 > 2600): random pods are removed until the request is
// at most 2600, leaving two.
TEST(FgdExperiment, SimulatorArrivalsTuneDown) {
  auto r = RunFgdExperiment(Pods(3), TwoGpus(), Opt({"fgdsim-fgd"}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].runs[0].pods, 2);
  EXPECT_DOUBLE_EQ(r.value()[0].alloc_mean[100], 1.0);
}

// Sampling with replacement: 3 draws reach 3000 >= 2600; the third finds
// no GPU: at 150 % arrived a third of the request failed, out of range of
// --max-arrived's points, so point 130 is missing and 100 has none failed.
TEST(FgdExperiment, SampleArrivals) {
  FgdExperimentOptions o = Opt({"best-fit"});
  o.arrivals = FgdArrivals::kSample;
  auto r = RunFgdExperiment(Pods(2), TwoGpus(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].runs[0].pods, 3);
  EXPECT_EQ(r.value()[0].runs[0].failed_pods, 1);
  EXPECT_DOUBLE_EQ(r.value()[0].failed_mean[100], 0);
  EXPECT_TRUE(std::isnan(r.value()[0].alloc_mean[130]));
}

TEST(FgdExperiment, CsvHasEveryPresentPoint) {
  auto r = RunFgdExperiment(Pods(2), TwoGpus(), Opt({"fgdsim-best-fit"}));
  ASSERT_TRUE(r.ok());
  const std::string csv = FgdCurvesCsv(r.value());
  EXPECT_EQ(csv.rfind("policy,seed,arrived_pct,alloc_pct,frag_pct,frag_ratio_pct,failed_pct\n", 0),
            0u);
  EXPECT_NE(csv.find("fgdsim-best-fit,42,50,50.0000,0.0000,0.0000,0.0000\n"), std::string::npos)
      << csv;
  // 2 seeds x 6 points (49..51, 99..101) + the header.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 13);
}

TEST(FgdExperiment, BadOptions) {
  EXPECT_FALSE(RunFgdExperiment(Workload{}, TwoGpus(), Opt({"fgdsim-fgd"})).ok());
  FgdExperimentOptions o = Opt({"fgdsim-fgd"});
  o.popularity_pct = 0;
  EXPECT_FALSE(RunFgdExperiment(Pods(2), TwoGpus(), o).ok());
  EXPECT_FALSE(RunFgdExperiment(Pods(2), TwoGpus(), Opt({"no-such-policy"})).ok());
}

class FgdCompare : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("utilsim-fgdcmp-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // A file in the simulator's format: columns 0..130, points 50 and 100 set.
  std::string Write(const std::string& name, const std::string& rows) {
    const std::string p = (dir_ / name).string();
    std::ofstream f(p);
    f << "workload,sc_policy,tune,seed,total_gpus";
    for (int k = 0; k <= 130; ++k) f << "," << k;
    f << "\n" << rows;
    return p;
  }
  static std::string Row(const std::string& wl, const std::string& pol, int seed, double at50,
                         double at100) {
    std::string r = wl + "," + pol + ",1.3," + std::to_string(seed) + ",2";
    for (int k = 0; k <= 130; ++k)
      r += "," + (k == 50 ? std::to_string(at50) : k == 100 ? std::to_string(at100) : "");
    return r + "\n";
  }
  std::filesystem::path dir_;
};

// Ours: 50 at 49..51, 100 at 99..101. Published (mean of two seeds): 49 at
// 50 and 98 at 100 for BestFit -> diff at 100 = +2, MAE over the two common
// points (1 + 2) / 2 = 1.5; FGD exactly ours -> MAE 0.
TEST_F(FgdCompare, DifferencesAndMae) {
  auto r = RunFgdExperiment(Pods(2), TwoGpus(), Opt({"fgdsim-best-fit", "fgdsim-fgd"}));
  ASSERT_TRUE(r.ok());
  const std::string path =
      Write("analysis_allo_discrete.csv",
            Row("w", "05-BestFit", 42, 48, 97) + Row("w", "05-BestFit", 43, 50, 99) +
                Row("w", "06-FGD", 42, 50, 100) + Row("other", "06-FGD", 42, 1, 1));
  auto pub = ReadFgdPublished(path, "w");
  ASSERT_TRUE(pub.ok()) << pub.status().message();
  EXPECT_EQ(pub.value().metric, FgdMetric::kAlloc);
  auto cmp = CompareFgd(r.value(), pub.value());
  ASSERT_TRUE(cmp.ok()) << cmp.status().message();
  ASSERT_EQ(cmp.value().rows.size(), 2u);
  const FgdComparisonRow& bf = cmp.value().rows[0];
  EXPECT_EQ(bf.policy, "fgdsim-best-fit");
  EXPECT_DOUBLE_EQ(bf.theirs_100, 98);
  EXPECT_DOUBLE_EQ(bf.ours_100, 100);
  EXPECT_EQ(bf.points, 2);
  EXPECT_DOUBLE_EQ(bf.mae, 1.5);
  EXPECT_DOUBLE_EQ(cmp.value().rows[1].mae, 0);
  EXPECT_NE(FormatFgdComparison(cmp.value(), path).find("06-FGD"), std::string::npos);
}

TEST_F(FgdCompare, Errors) {
  const std::string path = Write("analysis_frag_discrete.csv", Row("w", "06-FGD", 42, 1, 2));
  auto none = ReadFgdPublished(path, "missing");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no rows for workload 'missing' (it has: w)"),
            std::string::npos)
      << none.status().message();
  auto pub = ReadFgdPublished(path, "w");
  ASSERT_TRUE(pub.ok());
  EXPECT_EQ(pub.value().metric, FgdMetric::kFrag);
  auto r = RunFgdExperiment(Pods(2), TwoGpus(), Opt({"first-fit"}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(CompareFgd(r.value(), pub.value()).ok()) << "no policy of the file was run";
  const std::string bad =
      Write("analysis_allo_discrete.csv", "w,06-FGD,1.3,42,2,x" + std::string(130, ',') + "\n");
  auto b = ReadFgdPublished(bad, "w");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find(":2: field '0'"), std::string::npos) << b.status().message();
}

// The --csv file reads back to the same curves; `utilsim report` of it and
// fgd-experiment --report draw three charts whose rows are the points (and,
// with a published file, the published points beside them).
TEST_F(FgdCompare, CsvRoundTripAndReportData) {
  auto r = RunFgdExperiment(Pods(2), TwoGpus(), Opt({"fgdsim-best-fit", "fgdsim-fgd"}));
  ASSERT_TRUE(r.ok());
  const std::string csv = (dir_ / "curves.csv").string();
  {
    std::ofstream f(csv);
    f << FgdCurvesCsv(r.value());
  }
  auto back = ReadFgdCurvesCsv(csv);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back.value().size(), 2u);
  EXPECT_EQ(back.value()[1].policy, "fgdsim-fgd");
  ASSERT_EQ(back.value()[0].runs.size(), 2u);
  EXPECT_DOUBLE_EQ(back.value()[0].alloc_mean[100], 1.0);
  EXPECT_DOUBLE_EQ(back.value()[0].alloc_mean[49], 0.5);
  EXPECT_TRUE(std::isnan(back.value()[0].alloc_mean[52]));
  if (!CheckReportBuilt().ok()) GTEST_SKIP() << "built without the HTML report";
  const std::string path = Write("analysis_allo_discrete.csv", Row("w", "06-FGD", 42, 50, 100));
  auto pub = ReadFgdPublished(path, "w");
  ASSERT_TRUE(pub.ok());
  const auto specs = testutil::ChartSpecs(BuildFgdReportHtml(back.value(), {pub.value()}, "test"));
  ASSERT_EQ(specs.size(), 3u);
  // 2 policies x 6 points, + the 2 published points of 06-FGD.
  EXPECT_EQ(specs.at("fgd-alloc")["datasets"]["main"].size(), 14u);
  EXPECT_EQ(specs.at("fgd-frag")["datasets"]["main"].size(), 12u);
}

TEST_F(FgdCompare, CurvesCsvErrors) {
  const std::string bad = (dir_ / "bad.csv").string();
  {
    std::ofstream f(bad);
    f << "policy,seed,arrived_pct,alloc_pct,frag_pct,frag_ratio_pct,failed_pct\n"
      << "a,42,x,1,1,1,1\n";
  }
  auto r = ReadFgdCurvesCsv(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(":2: field 'arrived_pct'"), std::string::npos)
      << r.status().message();
  const std::string other = (dir_ / "other.csv").string();
  {
    std::ofstream f(other);
    f << "a,b\n1,2\n";
  }
  EXPECT_FALSE(ReadFgdCurvesCsv(other).ok());
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
