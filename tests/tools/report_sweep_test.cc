// The report's Sweep section (docs/report.md, "Sweeps") on hand-made sweep
// databases: runs written by WriteResults, then sweep_runs, sweep_effects and
// meta sweep_name added with SQLite as `utilsim sweep merge` writes them. The
// chart data (means over seeds, min..max bands), the status table, the Morris
// effects, the cap on per-run time series, and that a database without sweep
// tables gets the report it got before.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "report_page.h"
#include "testutil/testutil.h"
#include "utilsim/analysis/report.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using nlohmann::json;

using testutil::Has;

#define REQUIRE_REPORT()                                                                 \
  do {                                                                                   \
    if (Status built = CheckReportBuilt(); !built.ok()) GTEST_SKIP() << built.message(); \
  } while (0)

using testutil::ChartSpecs;

const json& Rows(const json& spec) { return spec["datasets"]["main"]; }

// The HTML of the element that starts with `open` up to its closing `close`.
std::string Element(const std::string& html, const std::string& open, const std::string& close) {
  const size_t a = html.find(open);
  if (a == std::string::npos) return "";
  return html.substr(a, html.find(close, a) - a);
}

Sample At(double t_s, double allocated, double busy) {
  Sample s;
  s.time = Micros{static_cast<int64_t>(t_s * 1e6)};
  s.gpus_allocated = allocated;
  s.gpus_busy = busy;
  return s;
}

// A small run with the three metrics the sweep charts draw.
RunResult SweepRun(const std::string& label, double wait_mean_s, double alloc_pct,
                   double util_pct) {
  RunResult r;
  r.meta.label = label;
  r.meta.workload_source = "builtin:demo";
  r.meta.cluster_name = "c";
  r.meta.utilsim_version = "0.1.0";
  r.meta.input_digest = label;  // differs per run, as in a sweep over the cluster
  r.meta.sample_interval = Micros{60'000'000};
  r.summary.capacity_gpus = 8;
  r.summary.wait_mean_s = wait_mean_s;
  r.summary.allocation_pct = alloc_pct;
  r.summary.effective_util_pct = util_pct;
  r.samples = {At(0, 2, 1), At(60, 4, 2)};
  JobRecord j;
  j.name = "j";
  j.submit = Micros{0};
  j.start = Micros{static_cast<int64_t>(wait_mean_s * 1e6)};
  j.finish = Micros{static_cast<int64_t>((wait_mean_s + 600) * 1e6)};
  j.recorded_runtime = Micros{600'000'000};
  j.gpu_milli = 1000;
  j.alloc_gpu_s = 600;
  r.jobs = {j};
  return r;
}

void Exec(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err);
  const std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(h);
  ASSERT_EQ(rc, SQLITE_OK) << msg << "\n" << sql;
}

std::string Report(const std::string& db, const ReportOptions& opt = {}) {
  const std::string html = db + ".html";
  const Status s = ReportFromDatabase(db, html, opt);
  EXPECT_TRUE(s.ok()) << s.message();
  return testutil::ReadFile(html);
}

// A grid sweep: policy (text) x cluster_scale (REAL) x seed, 9 planned runs:
//   #0 a 0.5 s1 ok wait 100    #1 a 0.5 s2 ok wait 300
//   #2 a 1   s1 ok wait 50     #3 a 1   s2 ok wait 70
//   #4 b 0.5 s1 ok wait 400    #5 b 0.5 s2 ok wait 600
//   #6 b 1   s1 ok wait 1000   #7 b 1   s2 timeout (its run has wait 1e6)
//   #8 b 1   s3 failed, no run
// #7 is contrived (sweep merge gives a run only to ok rows) to show that the
// rule is the status: its run is in the database, yet not in the means.
std::string GridSweep(const std::string& dir) {
  const std::string db = dir + "/grid.db";
  const std::vector<RunResult> runs = {
      SweepRun("#0 policy=a cluster-scale=0.5 seed=1", 100, 40, 20),
      SweepRun("#1 policy=a cluster-scale=0.5 seed=2", 300, 60, 30),
      SweepRun("#2 policy=a cluster-scale=1 seed=1", 50, 70, 35),
      SweepRun("#3 policy=a cluster-scale=1 seed=2", 70, 80, 45),
      SweepRun("#4 policy=b cluster-scale=0.5 seed=1", 400, 10, 5),
      SweepRun("#5 policy=b cluster-scale=0.5 seed=2", 600, 30, 15),
      SweepRun("#6 policy=b cluster-scale=1 seed=1", 1000, 90, 60),
      SweepRun("#7 policy=b cluster-scale=1 seed=2", 1e6, 0, 0)};
  EXPECT_EQ(WriteResults(runs, db).message(), "");
  Exec(db,
       "CREATE TABLE sweep_runs(run_index INTEGER PRIMARY KEY, digest TEXT NOT NULL, status TEXT "
       "NOT NULL, reason TEXT NOT NULL, run_id INTEGER, \"policy\", \"cluster_scale\", \"seed\");"
       "INSERT INTO sweep_runs VALUES"
       "(0,'d0','ok','',1,'a',0.5,1),(1,'d1','ok','',2,'a',0.5,2),"
       "(2,'d2','ok','',3,'a',1,1),(3,'d3','ok','',4,'a',1,2),"
       "(4,'d4','ok','',5,'b',0.5,1),(5,'d5','ok','',6,'b',0.5,2),"
       "(6,'d6','ok','',7,'b',1,1),(7,'d7','timeout','time limit 60 s',8,'b',1,2),"
       "(8,'d8','failed','exit status 3: <boom>',NULL,'b',1,3);"
       "INSERT INTO meta VALUES('sweep_name', 'grid');");
  return db;
}

TEST(ReportSweep, AxisChartsAreMeansOverSeedsWithMinMaxBands) {
  REQUIRE_REPORT();
  const std::string db = GridSweep(testutil::TempDir());
  const std::string html = Report(db);
  EXPECT_TRUE(Has(html, "<h2 id=\"sweep\">Sweep</h2>"));
  EXPECT_TRUE(Has(html, "Sweep <b>grid</b>"));
  EXPECT_TRUE(Has(html, "9 runs planned (table sweep_runs), 7 finished (status ok)")) << html;
  EXPECT_TRUE(Has(html, "policy (2 values), cluster_scale (2 values), seed (3 values)"));
  EXPECT_TRUE(Has(html, "8 runs of a sweep"));
  const auto specs = ChartSpecs(html);
  // Only cluster_scale (key 2) is a numeric axis: not policy (text), not seed.
  for (const char* id : {"sweep-2-wait", "sweep-2-allocation", "sweep-2-util"})
    EXPECT_TRUE(specs.count(id)) << id;
  for (const auto& [id, spec] : specs) {
    EXPECT_FALSE(id.rfind("sweep-1-", 0) == 0) << id;
    EXPECT_FALSE(id.rfind("sweep-3-", 0) == 0) << id;
  }
  const json& wait = Rows(specs.at("sweep-2-wait"));
  ASSERT_EQ(wait.size(), 4u) << wait.dump();
  EXPECT_EQ(wait[0], json::parse(R"({"series":"policy=a","x":0.5,"mean":200.0,"lo":100.0,)"
                                 R"("hi":300.0,"runs":2})"));
  EXPECT_EQ(wait[1], json::parse(R"({"series":"policy=a","x":1.0,"mean":60.0,"lo":50.0,)"
                                 R"("hi":70.0,"runs":2})"));
  EXPECT_EQ(wait[2], json::parse(R"({"series":"policy=b","x":0.5,"mean":500.0,"lo":400.0,)"
                                 R"("hi":600.0,"runs":2})"));
  // b at 1: only #6 is ok; the timed-out #7 (wait 1e6) and the failed #8 are left out.
  EXPECT_EQ(wait[3], json::parse(R"({"series":"policy=b","x":1.0,"mean":1000.0,"lo":1000.0,)"
                                 R"("hi":1000.0,"runs":1})"));
  const json& alloc = Rows(specs.at("sweep-2-allocation"));
  ASSERT_EQ(alloc.size(), 4u);
  EXPECT_DOUBLE_EQ(alloc[0]["mean"].get<double>(), 50.0);  // (40 + 60) / 2
  EXPECT_DOUBLE_EQ(alloc[0]["lo"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(alloc[0]["hi"].get<double>(), 60.0);
  const json& util = Rows(specs.at("sweep-2-util"));
  EXPECT_DOUBLE_EQ(util[1]["mean"].get<double>(), 40.0);  // (35 + 45) / 2
  // The band (an area from lo to hi) under the line of means.
  const json& layers = specs.at("sweep-2-wait")["layer"];
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_EQ(layers[0]["mark"]["type"], "area");
  EXPECT_EQ(layers[0]["encoding"]["y"]["field"], "lo");
  EXPECT_EQ(layers[0]["encoding"]["y2"]["field"], "hi");
  EXPECT_EQ(layers[1]["mark"]["type"], "line");
  EXPECT_EQ(layers[1]["encoding"]["y"]["field"], "mean");
  EXPECT_EQ(specs.at("sweep-2-wait")["encoding"]["color"]["scale"]["domain"],
            json::parse(R"(["policy=a","policy=b"])"));
  // Every chart's container is on the page with its row count.
  EXPECT_TRUE(Has(html,
                  "id=\"chart-sweep-2-wait\" data-chart=\"sweep-2-wait\" "
                  "data-expected-rows=\"4\""));
  // 8 runs: the per-run time series stay.
  EXPECT_TRUE(specs.count("alloc-busy-8"));
  EXPECT_TRUE(specs.count("stranded"));
  // A sweep varies its inputs: no warning about differing digests.
  EXPECT_FALSE(Has(html, "do not share one input"));
}

TEST(ReportSweep, RunsThatDidNotFinishAreCountedByStatus) {
  REQUIRE_REPORT();
  const std::string db = GridSweep(testutil::TempDir());
  const std::string html = Report(db);
  EXPECT_TRUE(Has(html, "2 of 9 runs did not finish: they are left out of the charts below."));
  const std::string table = Element(html, "<table id=\"sweep-status\">", "</table>");
  ASSERT_FALSE(table.empty()) << html;
  EXPECT_TRUE(Has(table, "<tr><td>ok</td><td>7</td><td class=\"text\">-</td></tr>")) << table;
  EXPECT_TRUE(Has(table,
                  "<tr><td>failed</td><td>1</td><td class=\"text\">#8: exit status 3: "
                  "&lt;boom&gt;</td></tr>"))
      << table;
  EXPECT_TRUE(Has(table, "<tr><td>timeout</td><td>1</td><td class=\"text\">#7: time limit 60 s"))
      << table;
  // ok, failed, timeout: the documented order.
  EXPECT_LT(table.find("<td>ok</td>"), table.find("<td>failed</td>"));
  EXPECT_LT(table.find("<td>failed</td>"), table.find("<td>timeout</td>"));

  // Every run ok: no status table.
  Exec(db,
       "UPDATE sweep_runs SET status = 'ok', reason = '' WHERE run_index = 7;"
       "DELETE FROM sweep_runs WHERE run_index = 8;");
  const std::string all_ok = Report(db);
  EXPECT_FALSE(Has(all_ok, "sweep-status"));
  EXPECT_FALSE(Has(all_ok, "did not finish"));
  // #7 now counts: b at 1 is the mean of 1000 and 1e6.
  const auto specs = ChartSpecs(all_ok);
  const json& wait = Rows(specs.at("sweep-2-wait"));
  EXPECT_DOUBLE_EQ(wait[3]["mean"].get<double>(), 500500.0);
  EXPECT_DOUBLE_EQ(wait[3]["hi"].get<double>(), 1e6);
}

TEST(ReportSweep, SeriesAreEveryOtherKeyButSeed) {
  REQUIRE_REPORT();
  // Two numeric axes, jobs and price, and seed: each chart's lines are the
  // other axis's values; seeds are averaged.
  const std::string db = testutil::TempDir() + "/two.db";
  std::vector<RunResult> runs;
  std::string rows;
  int i = 0;
  for (int jobs : {100, 200})
    for (double price : {1.0, 2.5})
      for (int seed : {1, 2}) {
        const double wait = jobs * price + seed;  // seeds 1 and 2: mean jobs x price + 1.5
        runs.push_back(SweepRun("#" + std::to_string(i), wait, 50, 25));
        rows += std::string(i ? "," : "") + "(" + std::to_string(i) + ",'d','ok',''," +
                std::to_string(i + 1) + "," + std::to_string(jobs) + "," + std::to_string(price) +
                "," + std::to_string(seed) + ")";
        ++i;
      }
  ASSERT_EQ(WriteResults(runs, db).message(), "");
  Exec(db,
       "CREATE TABLE sweep_runs(run_index INTEGER PRIMARY KEY, digest TEXT, status TEXT, reason "
       "TEXT, run_id INTEGER, \"jobs\", \"price\", \"seed\"); INSERT INTO sweep_runs VALUES " +
           rows + ";");
  const auto specs = ChartSpecs(Report(db));
  const json& by_jobs = Rows(specs.at("sweep-1-wait"));
  ASSERT_EQ(by_jobs.size(), 4u) << by_jobs.dump();
  // Series "price=1.0" then "price=2.5" (by value), x = jobs.
  EXPECT_EQ(by_jobs[0]["series"], "price=1.0");
  EXPECT_DOUBLE_EQ(by_jobs[0]["x"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(by_jobs[0]["mean"].get<double>(), 101.5);
  EXPECT_DOUBLE_EQ(by_jobs[0]["lo"].get<double>(), 101);
  EXPECT_DOUBLE_EQ(by_jobs[0]["hi"].get<double>(), 102);
  EXPECT_EQ(by_jobs[3]["series"], "price=2.5");
  EXPECT_DOUBLE_EQ(by_jobs[3]["mean"].get<double>(), 501.5);
  const json& by_price = Rows(specs.at("sweep-2-wait"));
  ASSERT_EQ(by_price.size(), 4u);
  EXPECT_EQ(by_price[0]["series"], "jobs=100");
  EXPECT_DOUBLE_EQ(by_price[1]["x"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(by_price[1]["mean"].get<double>(), 251.5);
  EXPECT_FALSE(specs.count("sweep-3-wait"));  // seed
}

// A Morris sweep: grid seed 1, 2 (two groups), factors arrival-scale and
// price, 3 points per group; sweep_effects as sweep merge writes it.
std::string MorrisSweep(const std::string& dir) {
  const std::string db = dir + "/morris.db";
  std::vector<RunResult> runs;
  for (int i = 0; i < 6; ++i) runs.push_back(SweepRun("#" + std::to_string(i), 100 + i, 50, 25));
  EXPECT_EQ(WriteResults(runs, db).message(), "");
  Exec(db,
       "CREATE TABLE sweep_runs(run_index INTEGER PRIMARY KEY, digest TEXT, status TEXT, reason "
       "TEXT, run_id INTEGER, \"policy\", \"seed\", \"arrival_scale\", \"price\");"
       "INSERT INTO sweep_runs VALUES"
       "(0,'d','ok','',1,'best-fit',1,0.5,1.0),(1,'d','ok','',2,'best-fit',1,2.0,1.0),"
       "(2,'d','ok','',3,'best-fit',1,2.0,4.0),(3,'d','ok','',4,'best-fit',2,0.5,4.0),"
       "(4,'d','ok','',5,'best-fit',2,1.0,4.0),(5,'d','ok','',6,'best-fit',2,1.0,1.0);"
       "CREATE TABLE sweep_effects(grp INTEGER NOT NULL, factor TEXT NOT NULL, metric TEXT NOT "
       "NULL, mu REAL, mu_star REAL, sigma REAL, n INTEGER, rank INTEGER, PRIMARY KEY(grp, "
       "metric, factor));"
       // Inserted out of order: the report orders by metric, group, rank.
       "INSERT INTO sweep_effects VALUES"
       "(1,'price','wait_mean_s',-3,3,0,1,2),(0,'price','wait_mean_s',5,5,0,1,2),"
       "(0,'arrival-scale','wait_mean_s',-50,50,0,1,1),(1,'arrival-scale','wait_mean_s',40,40,0,"
       "1,1),(0,'price','allocation_pct',2,2,0,1,1),(0,'arrival-scale','allocation_pct',1,1,0,1,"
       "2);"
       "INSERT INTO meta VALUES('sweep_name', 'm');");
  return db;
}

TEST(ReportSweep, MorrisEffectsRankedByMuStar) {
  REQUIRE_REPORT();
  const std::string html = Report(MorrisSweep(testutil::TempDir()));
  EXPECT_TRUE(Has(html, "arrival_scale (3 values, Morris factor), price (2 values, Morris factor)"))
      << html.substr(html.find("<h2 id=\"sweep\">"), 1200);
  // Factors are not axes; policy is text, seed is seed: no metric charts.
  EXPECT_TRUE(Has(html, "id=\"sweep-no-axis\""));
  const auto specs = ChartSpecs(html);
  for (const auto& [id, spec] : specs) EXPECT_FALSE(id.rfind("sweep-1-", 0) == 0) << id;

  // wait_mean_s: the first of the report's metrics, so table and chart 1.
  const std::string wait = Element(html, "<table id=\"sweep-effects-wait_mean_s\">", "</table>");
  ASSERT_FALSE(wait.empty()) << html;
  const std::string g0 = "<td class=\"text\">policy=best-fit seed=1</td>";
  const std::string g1 = "<td class=\"text\">policy=best-fit seed=2</td>";
  const size_t a0 = wait.find(g0 +
                              "<td>1</td><td class=\"text\">arrival-scale</td><td>50.000</td>"
                              "<td>-50.000</td><td>0.000</td><td>1</td>");
  const size_t p0 = wait.find(g0 + "<td>2</td><td class=\"text\">price</td><td>5.000</td>");
  const size_t a1 =
      wait.find(g1 + "<td>1</td><td class=\"text\">arrival-scale</td><td>40.000</td>");
  const size_t p1 = wait.find(g1 + "<td>2</td><td class=\"text\">price</td><td>3.000</td>");
  ASSERT_NE(a0, std::string::npos) << wait;
  ASSERT_NE(p0, std::string::npos) << wait;
  ASSERT_NE(a1, std::string::npos) << wait;
  ASSERT_NE(p1, std::string::npos) << wait;
  EXPECT_LT(a0, p0);
  EXPECT_LT(p0, a1);
  EXPECT_LT(a1, p1);
  // allocation_pct: price ranks first there.
  const std::string alloc =
      Element(html, "<table id=\"sweep-effects-allocation_pct\">", "</table>");
  EXPECT_LT(alloc.find("price"), alloc.find("arrival-scale")) << alloc;
  EXPECT_LT(html.find("sweep-effects-wait_mean_s"), html.find("sweep-effects-allocation_pct"));

  // The bar charts: mu* per factor and group, factors by mean mu* (45 vs 4).
  ASSERT_TRUE(specs.count("sweep-effects-1"));
  const json& spec = specs.at("sweep-effects-1");
  EXPECT_EQ(spec["encoding"]["y"]["sort"], json::parse(R"(["arrival-scale","price"])"));
  EXPECT_EQ(spec["encoding"]["color"]["scale"]["domain"],
            json::parse(R"(["policy=best-fit seed=1","policy=best-fit seed=2"])"));
  const json& bars = Rows(spec);
  ASSERT_EQ(bars.size(), 4u);
  EXPECT_EQ(bars[0], json::parse(R"({"group":"policy=best-fit seed=1","factor":"arrival-scale",)"
                                 R"("mu_star":50.0})"));
  EXPECT_DOUBLE_EQ(bars[3]["mu_star"].get<double>(), 3.0);
  ASSERT_TRUE(specs.count("sweep-effects-2"));
  EXPECT_EQ(specs.at("sweep-effects-2")["encoding"]["y"]["sort"],
            json::parse(R"(["price","arrival-scale"])"));
}

TEST(ReportSweep, MoreThanTwelveRunsSkipThePerRunTimeSeries) {
  REQUIRE_REPORT();
  const std::string db = testutil::TempDir() + "/big.db";
  std::vector<RunResult> runs;
  std::string rows;
  for (int i = 0; i < 13; ++i) {
    runs.push_back(SweepRun("#" + std::to_string(i) + " jobs=" + std::to_string(100 * (i + 1)),
                            10.0 * i, 50, 25));
    rows += std::string(i ? "," : "") + "(" + std::to_string(i) + ",'d','ok',''," +
            std::to_string(i + 1) + "," + std::to_string(100 * (i + 1)) + ")";
  }
  ASSERT_EQ(WriteResults(runs, db).message(), "");
  Exec(db,
       "CREATE TABLE sweep_runs(run_index INTEGER PRIMARY KEY, digest TEXT, status TEXT, reason "
       "TEXT, run_id INTEGER, \"jobs\"); INSERT INTO sweep_runs VALUES " +
           rows + ";");
  const std::string html = Report(db);
  const auto specs = ChartSpecs(html);
  for (const auto& [id, spec] : specs) EXPECT_FALSE(id.rfind("alloc-busy-", 0) == 0) << id;
  EXPECT_FALSE(specs.count("stranded"));
  EXPECT_TRUE(Has(html,
                  "Not drawn: this database holds 13 runs (more than 12), too many for one "
                  "chart per run."))
      << html;
  EXPECT_TRUE(
      Has(html, "#0 jobs=100: 2 samples, one every 1.0 min, not drawn (more than 12 runs)"));
  // The summary table still lists every run; the distributions stay.
  const std::string summary = Element(html, "<table id=\"summary\">", "</table>");
  EXPECT_TRUE(Has(summary, "<td>#12 jobs=1300</td>")) << summary;
  ASSERT_TRUE(specs.count("queue-wait"));
  // 13 lines: no legend (it would be cut), the run in each line's tooltip.
  EXPECT_TRUE(specs.at("queue-wait")["encoding"]["color"]["legend"].is_null());
  EXPECT_TRUE(Has(html, "One line per run, 13 runs: no legend; hover over a line for its run."));
  // One seed per point: no band, the line only.
  const json& wait = Rows(specs.at("sweep-1-wait"));
  ASSERT_EQ(wait.size(), 13u);
  EXPECT_EQ(wait[12], json::parse(R"({"series":"all runs","x":1300.0,"mean":120.0,"lo":120.0,)"
                                  R"("hi":120.0,"runs":1})"));
  EXPECT_EQ(specs.at("sweep-1-wait")["layer"].size(), 1u);

  // The cap is ReportOptions::max_series_runs; 0 draws them all.
  ReportOptions all;
  all.max_series_runs = 0;
  const auto drawn = ChartSpecs(Report(db, all));
  EXPECT_TRUE(drawn.count("alloc-busy-13"));
  EXPECT_TRUE(drawn.count("stranded"));
  EXPECT_EQ(drawn.at("queue-wait")["encoding"]["color"]["legend"]["title"], "policy");
  // The same cap holds without a sweep.
  EXPECT_FALSE(ChartSpecs(BuildReportHtml(runs)).count("alloc-busy-1"));
  EXPECT_TRUE(ChartSpecs(BuildReportHtml(runs, all)).count("alloc-busy-1"));
}

TEST(ReportSweep, WithoutSweepTablesTheReportIsUnchanged) {
  REQUIRE_REPORT();
  const std::string dir = testutil::TempDir();
  // A plain results database: the report is BuildReportHtml of its runs.
  const std::string plain = dir + "/plain.db";
  const std::vector<RunResult> runs = {SweepRun("a", 100, 40, 20), SweepRun("b", 200, 50, 30)};
  ASSERT_EQ(WriteResults(runs, plain).message(), "");
  const std::string html = Report(plain);
  auto read = ReadResults(plain);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(html, BuildReportHtml(read.value()));
  EXPECT_FALSE(Has(html, "id=\"sweep\""));
  EXPECT_TRUE(Has(html, "2 policies compared"));

  // A sweep database reports deterministically; without its sweep tables it
  // is a plain database again.
  const std::string db = GridSweep(dir);
  const std::string sweep = Report(db);
  EXPECT_EQ(sweep, Report(db));
  Exec(db, "DROP TABLE sweep_runs;");
  auto grid = ReadResults(db);
  ASSERT_TRUE(grid.ok());
  EXPECT_EQ(Report(db), BuildReportHtml(grid.value()));
}

TEST(ReportSweep, AnUnreadableSweepTableIsAnError) {
  REQUIRE_REPORT();
  const std::string dir = testutil::TempDir();
  const std::string db = dir + "/bad.db";
  ASSERT_EQ(WriteResults({SweepRun("a", 1, 2, 3)}, db).message(), "");
  Exec(db, "CREATE TABLE sweep_runs(run_index INTEGER PRIMARY KEY, digest TEXT);");
  const Status s = ReportFromDatabase(db, dir + "/bad.html");
  EXPECT_TRUE(Has(s.message(), db + ": cannot read the sweep tables: ")) << s.message();
  EXPECT_FALSE(std::filesystem::exists(dir + "/bad.html"));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
