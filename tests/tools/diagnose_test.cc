// `utilsim diagnose`: the three answers' numbers against the run's own tables
// (read back with SQL from the database the same command wrote), the cause
// table, the policy names it recommends, and bad input.
#include "utilsim/analysis/diagnose.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "testutil/testutil.h"
#include "utilsim/policies/registry.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

bool Has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

// One row of doubles from a query on `db`.
std::vector<double> Query(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  std::vector<double> row;
  if (sqlite3_step(st) == SQLITE_ROW)
    for (int c = 0; c < sqlite3_column_count(st); ++c) row.push_back(sqlite3_column_double(st, c));
  sqlite3_finalize(st);
  sqlite3_close(h);
  return row;
}

std::string Pct1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", v);
  return buf;
}

// The three numbers recomputed with SQL from the run's tables.
struct Expected {
  double allocation_pct, idle_share_pct, full_and_queued_pct, queued_pct, wait_p95_s;
  double idle_by_cause_sum, idle_alloc_gpu_h, samples;
};

Expected FromTables(const std::string& db, int run_id) {
  const std::string r = std::to_string(run_id);
  const auto runs = Query(db,
                          "SELECT allocation_pct, 100.0 * idle_alloc_gpu_h / alloc_gpu_h, "
                          "wait_p95_s, capacity_gpus, window_start_s, window_end_s, "
                          "idle_input_gpu_h + idle_storage_gpu_h + idle_communication_gpu_h + "
                          "idle_fixed_gpu_h + idle_sharing_gpu_h + idle_unattributed_gpu_h, "
                          "idle_alloc_gpu_h FROM runs WHERE run_id = " +
                              r);
  EXPECT_EQ(runs.size(), 8u);
  char sql[512];
  std::snprintf(sql, sizeof sql,
                "SELECT COUNT(*), "
                "100.0 * SUM(queued > 0 AND gpus_allocated >= 0.9 * %.17g) / COUNT(*), "
                "100.0 * SUM(queued > 0) / COUNT(*) FROM samples "
                "WHERE run_id = %d AND time_s >= %.17g AND time_s < %.17g",
                runs[3], run_id, runs[4], runs[5]);
  const auto smp = Query(db, sql);
  EXPECT_EQ(smp.size(), 3u);
  return {runs[0], runs[1], smp[1], smp[2], runs[2], runs[6], runs[7], smp[0]};
}

void CheckAgainstTables(const Diagnosis& d, const Expected& e) {
  ASSERT_EQ(d.answers.size(), 3u);
  EXPECT_EQ(d.answers[0].id, "allocated");
  EXPECT_NEAR(d.answers[0].value, e.allocation_pct, 1e-9);
  EXPECT_EQ(d.answers[0].yes, e.allocation_pct >= 80);
  EXPECT_NEAR(d.answers[1].value, e.idle_share_pct, 1e-9);
  EXPECT_EQ(d.answers[1].yes, e.idle_share_pct > 20);
  EXPECT_NEAR(d.answers[2].value, e.full_and_queued_pct, 1e-9);
  EXPECT_EQ(d.answers[2].yes, e.full_and_queued_pct >= 25);
  EXPECT_NEAR(d.queued_pct, e.queued_pct, 1e-9);
  EXPECT_EQ(d.window_samples, static_cast<int64_t>(e.samples));
  // Idle causes: the six idle rows add up to the idle allocated GPU-hours.
  double sum = 0;
  for (const auto& c : d.causes)
    if (!std::isnan(c.share_pct)) sum += c.gpu_h;
  EXPECT_NEAR(sum, e.idle_by_cause_sum, 1e-6);
  EXPECT_NEAR(sum, e.idle_alloc_gpu_h, 1e-6 * std::max(1.0, e.idle_alloc_gpu_h));
  for (size_t k = 1; k < 6; ++k) EXPECT_GE(d.causes[k - 1].gpu_h, d.causes[k].gpu_h);
}

void CheckText(const std::string& out, const Expected& e, bool util_measured = true) {
  EXPECT_TRUE(Has(out, "1. Are the GPUs highly allocated?  " +
                           std::string(e.allocation_pct >= 80 ? "YES: " : "NO: ") +
                           Pct1(e.allocation_pct) + " (yes when >= 80 %)"))
      << out;
  const std::string q2 = !util_measured ? "UNKNOWN: " : e.idle_share_pct > 20 ? "YES: " : "NO: ";
  EXPECT_TRUE(Has(out, q2 + Pct1(e.idle_share_pct) +
                           " (yes when idle allocated GPU-h > 20 % of allocated GPU-h)"))
      << out;
  EXPECT_TRUE(Has(out, "3. Do queues stay long while capacity looks full?  " +
                           std::string(e.full_and_queued_pct >= 25 ? "YES: " : "NO: ") +
                           Pct1(e.full_and_queued_pct)))
      << out;
  EXPECT_TRUE(Has(out, "MFU not available")) << out;
}

TEST(DiagnoseDemo, AnswersEqualTheRunsOwnTables) {
  const std::string dir = testutil::TempDir(), db = dir + "/demo.db";
  std::string out;
  ASSERT_EQ(testutil::RunCli("diagnose --trace builtin:demo --out " + db, &out), 0) << out;
  EXPECT_TRUE(Has(out, "utilsim diagnose: fifo-skip+best-fit")) << out;  // auto: no recorded starts
  const Expected e = FromTables(db, 1);
  CheckText(out, e);
  // The demo (seed 1) is highly allocated and half idle: the picture.
  EXPECT_GT(e.allocation_pct, 80);
  EXPECT_GT(e.idle_share_pct, 40);
  auto runs = ReadResults(db);
  ASSERT_TRUE(runs.ok());
  const Diagnosis d = Diagnose(runs.value()[0]);
  CheckAgainstTables(d, e);
  // Diagnosing the database gives the same text as diagnosing the trace.
  std::string again;
  ASSERT_EQ(testutil::RunCli("diagnose " + db, &again), 0) << again;
  EXPECT_TRUE(Has(out, again)) << again;
  // JSON carries the same numbers.
  ASSERT_EQ(testutil::RunCli("diagnose " + db + " --json", &again), 0) << again;
  EXPECT_TRUE(Has(again, "\"id\": \"allocated\"")) << again;
  EXPECT_TRUE(Has(again, "\"verdict\": \"yes\"")) << again;
}

// Capacity lost to a failure as a cause of long queues (docs/diagnose.md):
// the run of cli_test.cc's EventsKillRequeueAndReport, gpu-1 down 20..50 s.
// b waits 30 s and c waits 80 s, d 100 s: 210 queued job-seconds, of which b's
// 30 s on nodes-down (14 %); in the arrivals window 0..40 s, 80 of 8 x 40 GPU-s
// were down (25 %); ETTR a, c, d 1, b 50 / 90: mean 0.889.
TEST(DiagnoseEvents, LostCapacityIsNamedAsACauseOfTheQueues) {
  const std::string dir = testutil::TempDir();
  testutil::WriteFile(dir + "/ev.yaml",
                      "events:\n  - {kind: down, at: 20, nodes: [gpu-1], until: 50}\n");
  std::string out;
  ASSERT_EQ(testutil::RunCli("diagnose --trace " + testutil::Fixture("cli/jobs.csv") +
                                 " --cluster " + testutil::Fixture("cli/cluster.yaml") +
                                 " --policy best-fit --events " + dir + "/ev.yaml",
                             &out),
            0)
      << out;
  EXPECT_TRUE(Has(out,
                  "Capacity that changed (docs/cluster-events.md): 0.0 GPU-h down (25.0 % of "
                  "the installed GPU time; absent 0.0, maintenance 0.0, failure 0.0); 1 "
                  "interruptions lost 0.0 GPU-h of work; finished jobs' mean ETTR 0.889."))
      << out;
  EXPECT_TRUE(Has(out,
                  "Jobs waited 0.0 h (14 % of queued job-hours) for nodes that were down: "
                  "lost capacity IS a cause of the queues."))
      << out;
}

TEST(DiagnoseMeasured, FixtureWithMeasuredUtilizationAndStalls) {
  const std::string dir = testutil::TempDir(), db = dir + "/m.db";
  std::string out;
  ASSERT_EQ(testutil::RunCli("diagnose --trace " + testutil::Fixture("diagnose/jobs.csv") +
                                 " --cluster " + testutil::Fixture("diagnose/cluster.yaml") +
                                 " --model stall-serial --sample-interval 60 --window full "
                                 "--out " +
                                 db,
                             &out),
            0)
      << out;
  const Expected e = FromTables(db, 1);
  CheckText(out, e);
  auto runs = ReadResults(db);
  ASSERT_TRUE(runs.ok());
  const Diagnosis d = Diagnose(runs.value()[0]);
  CheckAgainstTables(d, e);
  // 40 jobs on 8 GPUs: queues form while the cluster is full.
  EXPECT_GT(e.queued_pct, 0);
  // The stall model attributes CPU input stalls; the table names the remedy.
  double input_h = -1;
  for (const auto& c : d.causes)
    if (c.cause == "input") input_h = c.gpu_h;
  EXPECT_GT(input_h, 0);
  EXPECT_NEAR(input_h, Query(db, "SELECT idle_input_gpu_h FROM runs")[0], 1e-9);
  EXPECT_TRUE(Has(out, "--cpu-alloc measured")) << out;
}

TEST(DiagnoseMeasured, RealPhillyTraceWithMeasuredUtilization) {
  const std::string philly = testutil::TracePath("philly-derived");
  if (philly.empty()) GTEST_SKIP() << "philly-derived not in $UTILSIM_TRACES";
  const std::string dir = testutil::TempDir(), db = dir + "/philly.db";
  std::string out;
  // 5,910 sampled multi-GPU jobs with GPU utilization from the DRE windows;
  // every job records its start: auto replays the recorded schedule.
  ASSERT_EQ(testutil::RunCli("diagnose --trace " + philly + " --out " + db, &out), 0) << out;
  EXPECT_TRUE(Has(out, "utilsim diagnose: as-recorded")) << out;
  const Expected e = FromTables(db, 1);
  CheckText(out, e);
  EXPECT_GT(e.idle_share_pct, 20);  // measured: much of the allocated GPU time idles
  auto runs = ReadResults(db);
  ASSERT_TRUE(runs.ok());
  CheckAgainstTables(Diagnose(runs.value()[0]), e);
}

TEST(DiagnoseMeasured, RealAaicTraceWithoutUtilizationIsUnknown) {
  const std::string q3 = testutil::TracePath("aist-aaic/aaicwl-2017Q3.csv.gz");
  if (q3.empty()) GTEST_SKIP() << "aist-aaic not in $UTILSIM_TRACES";
  const std::string dir = testutil::TempDir(), db = dir + "/aaic.db";
  std::string out;
  ASSERT_EQ(testutil::RunCli("diagnose --trace " + q3 + " --out " + db, &out), 0) << out;
  EXPECT_TRUE(Has(out, "utilsim diagnose: as-recorded")) << out;
  const Expected e = FromTables(db, 1);
  // AAIC records no utilization: every allocated GPU-hour counts as busy, and
  // question 2 says it cannot tell.
  EXPECT_EQ(e.idle_share_pct, 0);
  CheckText(out, e, /*util_measured=*/false);
  EXPECT_TRUE(Has(out, "no job of the trace has a measured utilization")) << out;
  auto runs = ReadResults(db);
  ASSERT_TRUE(runs.ok());
  const Diagnosis d = Diagnose(runs.value()[0]);
  CheckAgainstTables(d, e);
  EXPECT_TRUE(Has(d.answers[1].detail, "a trace without measured utilization looks like this"));
}

TEST(DiagnoseRemedies, EveryNamedPolicyExists) {
  const PolicyRegistry reg = BuiltinPolicies();
  std::vector<std::string> names;
  for (const auto& p : reg.List()) names.push_back(p.name);
  int named = 0;
  for (const auto& r : CauseRemedies()) {
    for (const auto& p : r.policies) {
      EXPECT_NE(std::find(names.begin(), names.end(), p), names.end()) << r.cause << ": " << p;
      ++named;
    }
  }
  EXPECT_GE(named, 8);
  // The table covers every idle cause the engine reports, plus stranding and
  // free-while-queued.
  RunResult run;
  run.summary.capacity_gpus = 8;
  const Diagnosis d = Diagnose(run);
  EXPECT_EQ(d.causes.size(), 8u);
  EXPECT_TRUE(std::isnan(d.answers[1].value));  // nothing allocated: no share
}

TEST(DiagnoseCli, BadInputsAreClearErrors) {
  const std::string dir = testutil::TempDir();
  std::string out;
  const std::string text = testutil::WriteFile(dir + "/notes.db", "hello\n");
  EXPECT_EQ(testutil::RunCli("diagnose " + text, &out), 1);
  EXPECT_TRUE(Has(out, "notes.db: not a utilsim results database")) << out;
  // An SQLite file that is not ours.
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open((dir + "/other.db").c_str(), &h), SQLITE_OK);
  sqlite3_exec(h, "CREATE TABLE t(x INTEGER)", nullptr, nullptr, nullptr);
  sqlite3_close(h);
  EXPECT_EQ(testutil::RunCli("diagnose " + dir + "/other.db", &out), 1);
  EXPECT_TRUE(Has(out, "other.db: not a utilsim results database")) << out;
  EXPECT_EQ(testutil::RunCli("diagnose " + dir + "/missing.db", &out), 1);
  EXPECT_TRUE(Has(out, "missing.db: no such file")) << out;
  EXPECT_EQ(testutil::RunCli("diagnose --trace builtin:demo --jobs 50 --policy nope", &out), 2);
  EXPECT_TRUE(Has(out, "--policy:")) << out;
  EXPECT_EQ(testutil::RunCli("diagnose " + dir + "/other.db --trace builtin:demo", &out), 1);
  EXPECT_TRUE(Has(out, "not both")) << out;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
