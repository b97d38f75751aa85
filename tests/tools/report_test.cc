// The HTML report: its data (down-sampling, quantiles, idle causes, tenants)
// read back from the page's inlined JSON, determinism, self-containment, and
// every bad input of `utilsim report`. The browser side is in
// report_browser_test.cc.
#include "utilsim/analysis/report.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "report_page.h"
#include "testutil/testutil.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

namespace fs = std::filesystem;
using nlohmann::json;
using testutil::RunCli;

using testutil::Has;

using testutil::ChartSpecs;

// A build without the report (UTILSIM_REPORT=OFF or no npm) has nothing to
// check here: CheckReportBuilt's message is the reason for the skip, and
// WithoutTheReportCommandsFailClearly checks that message instead.
#define REQUIRE_REPORT()                                                                 \
  do {                                                                                   \
    if (Status built = CheckReportBuilt(); !built.ok()) GTEST_SKIP() << built.message(); \
  } while (0)

const json& Rows(const json& spec) { return spec["datasets"]["main"]; }

Sample At(double t_s, double allocated, double busy, int64_t stranded) {
  Sample s;
  s.time = Micros{static_cast<int64_t>(t_s * 1e6)};
  s.gpus_allocated = allocated;
  s.gpus_busy = busy;
  s.gpus_stranded = stranded;
  return s;
}

JobRecord Job(uint32_t tenant, double submit_s, double wait_s, double run_s, double gpus) {
  JobRecord j;
  j.name = "j";
  j.tenant = tenant;
  j.submit = Micros{static_cast<int64_t>(submit_s * 1e6)};
  j.start = Micros{static_cast<int64_t>((submit_s + wait_s) * 1e6)};
  j.finish = Micros{static_cast<int64_t>((submit_s + wait_s + run_s) * 1e6)};
  j.recorded_runtime = Micros{static_cast<int64_t>(run_s * 1e6)};
  j.gpu_milli = static_cast<int64_t>(gpus * 1000);
  j.alloc_gpu_s = gpus * run_s;
  return j;
}

RunResult SmallRun(const std::string& label) {
  RunResult r;
  r.meta.label = label;
  r.meta.workload_source = "test <workload>";
  r.meta.cluster_name = "c";
  r.meta.utilsim_version = "0.1.0";
  r.meta.sample_interval = Micros{60'000'000};
  r.summary.capacity_gpus = 16;
  r.summary.idle_input_gpu_h = 1.5;
  r.summary.idle_unattributed_gpu_h = 2.25;
  r.summary.stranded_gpu_h = 0.5;
  // Five samples; averaged in groups of three when max_points = 2.
  r.samples = {At(0, 4, 2, 0), At(60, 8, 4, 1), At(120, 12, 6, 2), At(180, 16, 8, 3),
               At(240, 10, 5, 4)};
  // Tenant 0: waits 0 and 60 s, 1 and 2 GPUs x 3600 s; tenant 3: wait 120 s, 4 GPUs x 1800 s.
  r.jobs = {Job(0, 0, 0, 3600, 1), Job(0, 10, 60, 3600, 2), Job(3, 20, 120, 1800, 4)};
  // Tenant 0 idles 0.5 GPU-h unattributed and 1 GPU-h on input: 1.5, mostly input.
  r.jobs[0].idle_gpu_s[static_cast<size_t>(IdleCause::kUnattributed)] = 1800;
  r.jobs[1].idle_gpu_s[static_cast<size_t>(IdleCause::kInput)] = 3600;
  // Tenant 0 waited 60 s on capacity; tenant 3 90 s on fragmentation and 30 s
  // on the queue order. GPU energy: tenant 0 0.5 + 1 kWh, tenant 3 2 kWh.
  r.jobs[1].wait_cause_s[static_cast<size_t>(WaitCause::kCapacity)] = 60;
  r.jobs[2].wait_cause_s[static_cast<size_t>(WaitCause::kFragmentation)] = 90;
  r.jobs[2].wait_cause_s[static_cast<size_t>(WaitCause::kQueueOrder)] = 30;
  r.jobs[0].energy_kwh = 0.5;
  r.jobs[1].energy_kwh = 1;
  r.jobs[2].energy_kwh = 2;
  return r;
}

TEST(Report, TimeSeriesAreMeansOfConsecutiveSamples) {
  REQUIRE_REPORT();
  ReportOptions opt;
  opt.max_points = 2;
  const std::string html = BuildReportHtml({SmallRun("a")}, opt);
  const auto specs = ChartSpecs(html);
  ASSERT_TRUE(specs.count("alloc-busy-1"));
  const json& rows = Rows(specs.at("alloc-busy-1"));
  ASSERT_EQ(rows.size(), 2u);  // groups of ceil(5 / 2) = 3: samples 0-2, 3-4
  EXPECT_DOUBLE_EQ(rows[0]["t"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(rows[0]["allocated"].get<double>(), 8.0);  // (4 + 8 + 12) / 3
  EXPECT_DOUBLE_EQ(rows[0]["busy"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(rows[1]["t"].get<double>(), 0.05);  // 180 s
  EXPECT_DOUBLE_EQ(rows[1]["allocated"].get<double>(), 13.0);
  EXPECT_DOUBLE_EQ(rows[1]["busy"].get<double>(), 6.5);
  const json& stranded = Rows(specs.at("stranded"));
  ASSERT_EQ(stranded.size(), 2u);
  EXPECT_DOUBLE_EQ(stranded[0]["stranded"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(stranded[1]["stranded"].get<double>(), 3.5);
  EXPECT_TRUE(Has(html,
                  "a: 5 samples, one every 1.0 min, drawn as 2 points, each the mean of 3 "
                  "consecutive samples"))
      << html.substr(html.find("id=\"sampling\""), 600);
  // The y axis spans the cluster.
  EXPECT_EQ(specs.at("alloc-busy-1")["layer"][0]["encoding"]["y"]["scale"]["domain"],
            json::parse("[0, 16.0]"));
}

TEST(Report, CdfsAreNearestRankQuantiles) {
  REQUIRE_REPORT();
  RunResult r = SmallRun("q");
  r.jobs.clear();
  // 1,000 jobs waiting 0, 1, ..., 999 minutes; each runs 10 min.
  for (int i = 0; i < 1000; ++i) r.jobs.push_back(Job(0, 0, i * 60.0, 600, 1));
  ReportOptions opt;
  opt.max_quantiles = 500;
  const auto specs = ChartSpecs(BuildReportHtml({r}, opt));
  const json& w = Rows(specs.at("queue-wait"));
  ASSERT_EQ(w.size(), 501u);  // the minimum, then p = 1/500 .. 500/500
  EXPECT_DOUBLE_EQ(w[0]["x"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(w[0]["p"].get<double>(), 0.001);
  EXPECT_DOUBLE_EQ(w[1]["x"].get<double>(), 1.0);  // p = 0.002: rank 2, value 1 min
  EXPECT_DOUBLE_EQ(w[1]["p"].get<double>(), 0.002);
  EXPECT_DOUBLE_EQ(w[250]["x"].get<double>(), 499.0);  // p = 0.5: rank 500
  EXPECT_DOUBLE_EQ(w[500]["x"].get<double>(), 999.0);
  EXPECT_DOUBLE_EQ(w[500]["p"].get<double>(), 1.0);
  // JCT = wait + 10 min; bounded slowdown = JCT / 600 s.
  const json& jct = Rows(specs.at("jct"));
  EXPECT_DOUBLE_EQ(jct[500]["x"].get<double>(), 1009.0);
  const json& sd = Rows(specs.at("slowdown"));
  EXPECT_DOUBLE_EQ(sd[0]["x"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(sd[500]["x"].get<double>(), 100.9);

  // Small runs draw every value.
  const auto small = ChartSpecs(BuildReportHtml({SmallRun("s")}));
  const json& ws = Rows(small.at("queue-wait"));
  ASSERT_EQ(ws.size(), 3u);
  EXPECT_DOUBLE_EQ(ws[2]["x"].get<double>(), 2.0);  // 120 s
  EXPECT_DOUBLE_EQ(ws[2]["p"].get<double>(), 1.0);
}

TEST(Report, IdleCausesTenantsAndMetadata) {
  REQUIRE_REPORT();
  RunResult b = SmallRun("b");
  b.summary.idle_unattributed_gpu_h = 7;
  const std::string html = BuildReportHtml({SmallRun("a"), b});
  const auto specs = ChartSpecs(html);
  const json& idle = Rows(specs.at("idle-causes"));
  ASSERT_EQ(idle.size(), 12u);  // 2 runs x 6 causes
  EXPECT_EQ(idle[0], json::parse(R"({"policy":"a","cause":"input","gpu_h":1.5})"));
  EXPECT_EQ(idle[5], json::parse(R"({"policy":"a","cause":"unattributed","gpu_h":2.25})"));
  EXPECT_EQ(idle[11], json::parse(R"({"policy":"b","cause":"unattributed","gpu_h":7.0})"));
  // Tenant 0: 2 jobs, mean wait 30 s, 3 GPU-h; tenant 3: 1 job, 2.0 min, 2 GPU-h. Largest first.
  const size_t t = html.find("<table id=\"tenants\">");
  ASSERT_NE(t, std::string::npos);
  const std::string tenants = html.substr(t, html.find("</table>", t) - t);
  EXPECT_TRUE(Has(tenants,
                  "<tr><td>0</td><td>2</td><td>30.0 s</td><td>capacity 100 %</td><td>3.0</td>"
                  "<td>1.5</td><td>input</td><td>1.5</td>"))
      << tenants;
  EXPECT_TRUE(Has(tenants,
                  "<tr><td>3</td><td>1</td><td>2.0 min</td><td>fragmentation 75 %</td><td>2.0</td>"
                  "<td>0.0</td><td>-</td><td>2.0</td>"))
      << tenants;
  EXPECT_LT(tenants.find("<tr><td>0</td>"), tenants.find("<tr><td>3</td>"));
  // Capped: one row shown, the other summed.
  ReportOptions opt;
  opt.max_tenants = 1;
  const std::string capped = BuildReportHtml({SmallRun("a")}, opt);
  EXPECT_TRUE(Has(capped,
                  "<tr><td>1 other tenants</td><td>1</td><td>2.0 min</td><td>fragmentation 75 "
                  "%</td><td>2.0</td><td>0.0</td><td>-</td><td>2.0</td>"));
  // Metadata: text escaped, the runs columns listed.
  EXPECT_TRUE(Has(html, "test &lt;workload&gt;"));
  EXPECT_FALSE(Has(html, "test <workload>"));
  for (const char* col : {"queue_policy", "input_digest", "idle_communication_gpu_h",
                          "stranded_gpu_h", "tenant_fairness", "events"})
    EXPECT_TRUE(Has(html, std::string("<tr><td>") + col + "</td>")) << col;
  EXPECT_TRUE(Has(html, "id=\"fragmentation\">Not recorded"));
}

// The cluster-changes table appears only when a run had nodes down or jobs
// interrupted, with each run's figures.
TEST(Report, ClusterChangesTableOnlyWhenTheClusterChanged) {
  REQUIRE_REPORT();
  EXPECT_FALSE(Has(BuildReportHtml({SmallRun("a")}), "id=\"cluster-changes\""));
  RunResult b = SmallRun("b");
  b.summary.down_failure_gpu_h = 12.5;
  b.summary.interruptions = 3;
  b.summary.lost_gpu_h = 4.25;
  b.summary.ettr_mean = 0.9;
  b.summary.ettr_p5 = 0.5;
  b.summary.wait_cause_h[static_cast<size_t>(WaitCause::kNodesDown)] = 2;
  const std::string html = BuildReportHtml({SmallRun("a"), b});
  const size_t t = html.find("<table id=\"cluster-changes\">");
  ASSERT_NE(t, std::string::npos) << html;
  const std::string table = html.substr(t, html.find("</table>", t) - t);
  EXPECT_TRUE(Has(table,
                  "<tr><td>b</td><td>0.0</td><td>0.0</td><td>12.5</td><td>3</td><td>4.2</td>"
                  "<td>0.900</td><td>0.500</td><td>2.0</td></tr>"))
      << table;
  EXPECT_TRUE(Has(table, "<tr><td>a</td><td>0.0</td><td>0.0</td><td>0.0</td><td>0</td>")) << table;
}

TEST(Report, FragmentationChartedWhereSampled) {
  REQUIRE_REPORT();
  RunResult a = SmallRun("a");
  // Fragmentation sampled at the first three samples only (1500, 2500, 500
  // milli-GPU); the rest NaN (not recorded).
  a.samples[0].frag_gpu_milli = 1500;
  a.samples[1].frag_gpu_milli = 2500;
  a.samples[2].frag_gpu_milli = 500;
  a.summary.frag_mean_pct = 12.5;
  ReportOptions opt;
  opt.max_points = 2;  // groups of 3: samples 0-2, 3-4
  const std::string html = BuildReportHtml({a, SmallRun("b")}, opt);
  const auto specs = ChartSpecs(html);
  ASSERT_TRUE(specs.count("fragmentation-chart"));
  const json& rows = Rows(specs.at("fragmentation-chart"));
  ASSERT_EQ(rows.size(), 1u);  // run a, group 1; group 2 and run b recorded nothing
  EXPECT_EQ(rows[0]["policy"], "a");
  EXPECT_DOUBLE_EQ(rows[0]["frag"].get<double>(), 1.5);  // (1.5 + 2.5 + 0.5) / 3 GPUs
  EXPECT_TRUE(Has(html, "Not recorded for: b."));
  EXPECT_TRUE(Has(html, "a 12.5 %, b n/a"));
  EXPECT_FALSE(Has(html, "id=\"fragmentation\">Not recorded"));
}

TEST(Report, DeterministicAndSelfContained) {
  REQUIRE_REPORT();
  const std::vector<RunResult> runs = {SmallRun("a"), SmallRun("b")};
  const std::string html = BuildReportHtml(runs);
  EXPECT_EQ(html, BuildReportHtml(runs));
  // The three libraries are inlined, nothing is loaded from elsewhere.
  for (const char* lib : {"/* vega 6.2.0 */", "/* vega-lite 6.4.1 */", "/* vega-embed 7.1.0 */"})
    EXPECT_TRUE(Has(html, lib)) << lib;
  EXPECT_FALSE(Has(html, "<script src"));
  EXPECT_FALSE(Has(html, "<link"));
  EXPECT_FALSE(Has(html, "sourceMappingURL"));
  // A label cannot close the data script.
  const std::string evil = BuildReportHtml({SmallRun("</script><b>x")});
  EXPECT_EQ(ChartSpecs(evil).size(), 9u);
  EXPECT_TRUE(Has(evil, "\\u003c/script\\u003e"));
  // A run without samples still gets its chart, with a note.
  RunResult empty = SmallRun("e");
  empty.samples.clear();
  const std::string e = BuildReportHtml({empty});
  EXPECT_TRUE(Rows(ChartSpecs(e).at("alloc-busy-1")).empty());
  EXPECT_TRUE(Has(e, "This run recorded no samples"));
}

class ReportCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testutil::TempDir(); }
  std::string dir_;
  std::string out_;
};

TEST_F(ReportCli, CompareReportEqualsReportFromTheDatabase) {
  REQUIRE_REPORT();
  const std::string db = dir_ + "/r.db";
  ASSERT_EQ(RunCli("compare --trace builtin:demo --jobs 400 --policies first-fit,best-fit --out " +
                       db + " --report " + dir_ + "/a.html",
                   &out_),
            0)
      << out_;
  EXPECT_TRUE(Has(out_, "Report written to " + dir_ + "/a.html")) << out_;
  ASSERT_EQ(RunCli("report " + db + " -o " + dir_ + "/b.html", &out_), 0) << out_;
  EXPECT_TRUE(Has(out_, "Report written to " + dir_ + "/b.html")) << out_;
  const std::string a = testutil::ReadFile(dir_ + "/a.html");
  EXPECT_GT(a.size(), 500000u);
  EXPECT_EQ(a, testutil::ReadFile(dir_ + "/b.html"));
  const auto specs = ChartSpecs(a);
  EXPECT_EQ(specs.size(), 10u);
  for (const auto& [id, spec] : specs) EXPECT_FALSE(Rows(spec).empty()) << id;
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_FALSE(Has(e.path().filename().string(), ".utilsim-tmp-")) << e.path();
}

TEST_F(ReportCli, BadInputsFailClearlyAndWriteNothing) {
  REQUIRE_REPORT();
  const std::string html = dir_ + "/out.html";
  auto fails = [&](const std::string& args, const std::string& message) {
    EXPECT_EQ(RunCli(args, &out_), 1) << args << "\n" << out_;
    EXPECT_TRUE(Has(out_, "utilsim: error: ")) << out_;
    EXPECT_TRUE(Has(out_, message)) << args << "\n" << out_;
  };
  fails("report " + dir_ + "/missing.db -o " + html, dir_ + "/missing.db: no such file");
  testutil::WriteFile(dir_ + "/text.db", "run_id,label\n1,a\n");
  fails("report " + dir_ + "/text.db -o " + html, "text.db: not a SQLite file");
  // A SQLite file of someone else's.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ + "/other.db").c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  fails("report " + dir_ + "/other.db -o " + html, "other.db: not a utilsim results database");
  // A utilsim database of another schema version.
  const std::string v3 = dir_ + "/v3.db";
  ASSERT_EQ(WriteResults({SmallRun("a")}, v3).message(), "");
  ASSERT_EQ(sqlite3_open(v3.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "UPDATE meta SET value = '2' WHERE key = 'schema_version'", nullptr, nullptr,
               nullptr);
  sqlite3_close(db);
  fails("report " + v3 + " -o " + html, "v3.db: schema version 2, expected 8 (written by another");
  // Output paths that cannot be written; checked before the database is read.
  const std::string good = dir_ + "/good.db";
  ASSERT_EQ(WriteResults({SmallRun("a")}, good).message(), "");
  fails("report " + good + " -o " + dir_ + "/nodir/r.html",
        "-o: " + dir_ + "/nodir/r.html: directory " + dir_ + "/nodir does not exist");
  fails("report " + good + " -o " + dir_,
        "-o: " + dir_ + ": is a directory (not a regular file); refusing to replace it");
  fails("report " + dir_ + "/missing.db -o " + dir_ + "/nodir/r.html",
        "/nodir/r.html: directory " + dir_ + "/nodir does not exist");
  EXPECT_FALSE(fs::exists(html));
  // An empty results file.
  const std::string none = dir_ + "/none.db";
  ASSERT_EQ(WriteResults({}, none).message(), "");
  fails("report " + none + " -o " + html, "none.db: holds no runs");
  EXPECT_FALSE(fs::exists(html));
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_FALSE(Has(e.path().filename().string(), ".utilsim-tmp-")) << e.path();
  // An existing report is left whole when a new one fails.
  testutil::WriteFile(html, "old");
  fails("report " + none + " -o " + html, "holds no runs");
  EXPECT_EQ(testutil::ReadFile(html), "old");
  // compare checks --report before running.
  fails("compare --trace builtin:demo --jobs 50 --policies best-fit --report " + dir_ +
            "/nodir/x.html",
        "--report: ");
  // Usage: the database and -o are required.
  EXPECT_EQ(RunCli("report " + good, &out_), 2) << out_;
  EXPECT_TRUE(Has(out_, "--out")) << out_;
}

TEST(Report, WithoutTheReportCommandsFailClearly) {
  const Status built = CheckReportBuilt();
  if (built.ok())
    GTEST_SKIP() << "this build has the HTML report; this test is for builds without it "
                    "(UTILSIM_REPORT=OFF, or no npm at build time)";
  EXPECT_EQ(built.message().rfind("this utilsim was built without the HTML report (", 0), 0u)
      << built.message();
  EXPECT_TRUE(Has(built.message(), "); rebuild with ")) << built.message();
  EXPECT_EQ(BuildReportHtml({SmallRun("a")}), "");
  const std::string dir = testutil::TempDir();
  EXPECT_EQ(WriteReport({SmallRun("a")}, dir + "/w.html").message(), built.message());
  const std::string db = dir + "/r.db";
  ASSERT_EQ(WriteResults({SmallRun("a")}, db).message(), "");
  std::string out;
  EXPECT_EQ(RunCli("report " + db + " -o " + dir + "/r.html", &out), 1) << out;
  EXPECT_TRUE(Has(out, "utilsim: error: " + built.message())) << out;
  // compare says so before it runs anything.
  EXPECT_EQ(RunCli("compare --trace builtin:demo --jobs 50 --policies best-fit --report " + dir +
                       "/c.html",
                   &out),
            1)
      << out;
  EXPECT_TRUE(Has(out, "utilsim: error: --report: " + built.message())) << out;
  EXPECT_FALSE(Has(out, "workload:")) << out;
  for (const char* f : {"/w.html", "/r.html", "/c.html"}) EXPECT_FALSE(fs::exists(dir + f)) << f;
}

TEST(Report, WriteReportRefusesNoRuns) {
  const std::string dir = testutil::TempDir();
  EXPECT_EQ(WriteReport({}, dir + "/x.html").message(), dir + "/x.html: no runs to report");
  EXPECT_FALSE(fs::exists(dir + "/x.html"));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
