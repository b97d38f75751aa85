// `utilsim sweep` through the binary: a grid's merged table against plain
// `utilsim run`s of the same options, resume after a kill (counted from the
// run starts in log.jsonl), the same merged bytes from 1 and 2 workers,
// limits recorded as data, the Morris screening's known answer, --emit and
// `sweep task`, and the errors (file:line, exit 1; usage, exit 2).
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <thread>

#include "testutil/testutil.h"
#include "utilsim/results/result_store.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::RunCli;

using testutil::Has;

// Rows of a query, each row's columns joined by '|'.
std::vector<std::string> Query(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  std::vector<std::string> rows;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(h);
    return rows;
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::string row;
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const unsigned char* t = sqlite3_column_text(st, c);
        row += (c ? "|" : "") + std::string(t ? reinterpret_cast<const char*>(t) : "NULL");
      }
      rows.push_back(row);
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return rows;
}

int Count(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t p = text.find(part); p != std::string::npos; p = text.find(part, p + 1)) ++n;
  return n;
}

constexpr char kGrid[] =
    "name: grid\n"
    "base:\n"
    "  trace: builtin:demo\n"
    "  jobs: 400\n"
    "  sample-interval: 3600\n"
    "axes:\n"
    "  policy: [best-fit, first-fit]\n"
    "  cluster-scale: [0.25, 1]\n"
    "  seed: [1, 2]\n";

TEST(SweepCli, GridMergesOneRowPerRunEqualToPlainRuns) {
  const std::string dir = testutil::TempDir();
  testutil::WriteFile(dir + "/grid.yaml", kGrid);
  std::string out;
  ASSERT_EQ(RunCli("sweep run " + dir + "/grid.yaml --out " + dir + "/o --workers 2", &out), 0)
      << out;
  EXPECT_TRUE(Has(out, "sweep grid: 8 runs, 0 already done or recorded, 8 to run")) << out;
  EXPECT_TRUE(Has(out, "merged 8 runs (8 finished, 0 failed or over a limit, 0 pending)")) << out;
  const std::string db = dir + "/o/merged.db";
  // One row per run, odometer order (policy slowest, seed fastest), the
  // swept values as typed columns.
  const auto rows = Query(db,
                          "SELECT run_index, policy, cluster_scale, seed, status, run_id "
                          "FROM sweep_runs ORDER BY run_index");
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[0], "0|best-fit|0.25|1|ok|1");
  EXPECT_EQ(rows[3], "3|best-fit|1|2|ok|4");  // "1" is an integer
  EXPECT_EQ(rows[6], "6|first-fit|1|1|ok|7");
  EXPECT_EQ(Query(db, "SELECT typeof(seed) FROM sweep_runs LIMIT 1")[0], "integer");
  // Cluster scale: a quarter of the demo cluster's GPUs.
  const auto caps = Query(db,
                          "SELECT cluster_scale, capacity_gpus FROM sweep "
                          "WHERE run_index IN (0, 2) ORDER BY run_index");
  ASSERT_EQ(caps.size(), 2u);
  const int full = std::stoi(caps[1].substr(caps[1].find('|') + 1));
  EXPECT_EQ(caps[0], "0.25|" + std::to_string(full / 4));
  // A plain `utilsim run` of run 7's options gives the same figures.
  ASSERT_EQ(RunCli("run --trace builtin:demo --jobs 400 --sample-interval 3600 --policy "
                   "first-fit --seed 2 --out " +
                       dir + "/plain.db",
                   &out),
            0)
      << out;
  auto plain = ReadResults(dir + "/plain.db");
  ASSERT_TRUE(plain.ok());
  const auto swept =
      Query(db,
            "SELECT wait_mean_s, allocation_pct, effective_util_pct, events FROM sweep WHERE "
            "run_index = 7");
  ASSERT_EQ(swept.size(), 1u);
  const Summary& s = plain.value()[0].summary;
  char expect[256];
  std::snprintf(expect, sizeof expect, "%.17g|%.17g|%.17g|%lld", s.wait_mean_s, s.allocation_pct,
                s.effective_util_pct, static_cast<long long>(s.events));
  auto merged = ReadResults(db);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  ASSERT_EQ(merged.value().size(), 8u);
  EXPECT_EQ(merged.value()[7].meta.label, "#7 policy=first-fit cluster-scale=1 seed=2");
  EXPECT_DOUBLE_EQ(merged.value()[7].summary.wait_mean_s, s.wait_mean_s);
  EXPECT_DOUBLE_EQ(merged.value()[7].summary.allocation_pct, s.allocation_pct);
  EXPECT_EQ(merged.value()[7].summary.events, s.events);
  EXPECT_EQ(merged.value()[7].jobs.size(), plain.value()[0].jobs.size());
  // The CSV is the view: a header and 8 rows.
  const std::string csv = testutil::ReadFile(dir + "/o/sweep.csv");
  EXPECT_EQ(Count(csv, "\n"), 9);
  EXPECT_EQ(csv.rfind("run_index,digest,status,reason,run_id,policy,cluster_scale,seed,jobs,", 0),
            0u)
      << csv.substr(0, 200);
  // A rerun does nothing but merge again; the same bytes.
  const std::string before = testutil::ReadFile(db);
  ASSERT_EQ(RunCli("sweep run " + dir + "/grid.yaml --out " + dir + "/o", &out), 0) << out;
  EXPECT_TRUE(Has(out, "8 already done or recorded, 0 to run")) << out;
  EXPECT_EQ(testutil::ReadFile(db), before);
  // One worker gives the same merged database, byte for byte.
  ASSERT_EQ(RunCli("sweep run " + dir + "/grid.yaml --out " + dir + "/one --workers 1 -q", &out), 0)
      << out;
  EXPECT_EQ(testutil::ReadFile(dir + "/one/merged.db"), before);
  // status counts them.
  ASSERT_EQ(RunCli("sweep status " + dir + "/o", &out), 0) << out;
  EXPECT_TRUE(Has(out, "8 runs: 8 finished, 0 failed or over a limit, 0 pending")) << out;
}

// Starts `utilsim args...` and returns its pid.
pid_t Spawn(const std::vector<std::string>& args, const std::string& log) {
  pid_t pid = fork();
  if (pid == 0) {
    FILE* f = freopen(log.c_str(), "w", stdout);
    (void)f;
    std::vector<char*> argv;
    std::string bin = testutil::BinaryPath();
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

TEST(SweepCli, KilledHalfWayResumesWithoutRedoingAFinishedRun) {
  const std::string dir = testutil::TempDir();
  // 40 runs of 3,000 jobs: long enough to kill the sweep in the middle.
  testutil::WriteFile(dir + "/s.yaml",
                      "base: {trace: builtin:demo, jobs: 3000, sample-interval: 3600}\n"
                      "axes:\n"
                      "  policy: [best-fit, first-fit, worst-fit, fifo+best-fit]\n"
                      "  seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n");
  const std::string out = dir + "/o";
  pid_t pid =
      Spawn({"sweep", "run", dir + "/s.yaml", "--out", out, "--workers", "2"}, dir + "/first.txt");
  ASSERT_GT(pid, 0);
  // Kill it (SIGKILL: no clean-up) once a few runs are done.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  int done_before = 0;
  while (std::chrono::steady_clock::now() < until) {
    done_before = Count(testutil::ReadFile(out + "/log.jsonl"), "\"event\":\"done\"");
    if (done_before >= 6) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  const std::string log1 = testutil::ReadFile(out + "/log.jsonl");
  // Finished runs are the result databases; the kill may land between a
  // result and its "done" line, so the log can be one short per worker.
  done_before = 0;
  for (const auto& f : std::filesystem::directory_iterator(out + "/runs"))
    done_before += f.path().extension() == ".db";
  const int logged_before = Count(log1, "\"event\":\"done\"");
  EXPECT_GE(logged_before, done_before - 2);
  EXPECT_LE(logged_before, done_before);
  ASSERT_GE(done_before, 6);
  ASSERT_LT(done_before, 40) << "the sweep finished before it was killed; make the runs longer";
  std::string text;
  ASSERT_EQ(RunCli("sweep status " + out, &text), 0) << text;
  EXPECT_TRUE(Has(text, std::to_string(done_before) + " finished")) << text;
  // The runs the kill cut short: started in the log, without a result.
  const int cut = Count(log1, "\"event\":\"start\"") - done_before;  // started, no result
  EXPECT_TRUE(Has(text, "(" + std::to_string(cut) +
                            " of them started: running, or stopped by a "
                            "kill)"))
      << text;
  // The rerun starts only the runs not finished.
  ASSERT_EQ(RunCli("sweep run " + dir + "/s.yaml --out " + out + " -q", &text), 0) << text;
  EXPECT_TRUE(Has(text, std::to_string(done_before) + " already done or recorded, " +
                            std::to_string(40 - done_before) + " to run"))
      << text;
  const std::string log = testutil::ReadFile(out + "/log.jsonl");
  EXPECT_EQ(Count(log, "\"event\":\"done\""), 40);
  // Every run finished once; a run finished before the kill started once.
  std::map<int, int> starts, dones;
  size_t pos = 0;
  while ((pos = log.find("{\"", pos)) != std::string::npos) {
    const size_t end = log.find('\n', pos);
    const std::string line = log.substr(pos, end - pos);
    const int run = std::stoi(line.substr(line.find("\"run\":") + 6));
    if (Has(line, "\"event\":\"start\"")) ++starts[run];
    if (Has(line, "\"event\":\"done\"")) ++dones[run];
    pos = end;
  }
  ASSERT_EQ(dones.size(), 40u);
  int restarted = 0;
  for (const auto& [run, n] : dones) {
    EXPECT_EQ(n, 1) << "run " << run;
    const bool done_first =
        log1.find("\"event\":\"done\",\"run\":" + std::to_string(run) + ",") != std::string::npos;
    if (done_first) {
      EXPECT_EQ(starts[run], 1) << "run " << run << " was redone";
    }
    restarted += starts[run] - 1;
  }
  EXPECT_LE(restarted, 2);  // at most the two runs cut short by the kill
  EXPECT_EQ(Query(out + "/merged.db", "SELECT count(*) FROM sweep_runs WHERE status = 'ok'")[0],
            "40");
}

TEST(SweepCli, LimitsAreRecordedAsDataAndRetried) {
  const std::string dir = testutil::TempDir();
  testutil::WriteFile(dir + "/s.yaml",
                      "base: {trace: builtin:demo, jobs: 300}\n"
                      "axes: {seed: [1, 2]}\n"
                      "limits: {memory: 1KiB}\n");
  std::string out;
  ASSERT_EQ(RunCli("sweep run " + dir + "/s.yaml --out " + dir + "/o", &out), 0) << out;
  EXPECT_TRUE(Has(out, "0 runs finished, 2 failed or over a limit")) << out;
  const auto rows = Query(dir + "/o/merged.db",
                          "SELECT status, reason LIKE '%exceeds the limit 1.0 KiB%', run_id, "
                          "wait_mean_s FROM sweep ORDER BY run_index");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], "memory|1|NULL|NULL");
  // Recorded: a rerun leaves them; --retry-failed runs them again (and
  // they fail again, the limit being the same).
  ASSERT_EQ(RunCli("sweep run " + dir + "/s.yaml --out " + dir + "/o", &out), 0) << out;
  EXPECT_TRUE(Has(out, "2 already done or recorded, 0 to run")) << out;
  ASSERT_EQ(RunCli("sweep run " + dir + "/s.yaml --out " + dir + "/o --retry-failed", &out), 0)
      << out;
  EXPECT_TRUE(Has(out, "0 already done or recorded, 2 to run")) << out;
  // A time limit a run cannot meet.
  testutil::WriteFile(dir + "/t.yaml",
                      "base: {trace: builtin:demo, jobs: 20000}\n"
                      "limits: {time: 0.001}\n");
  ASSERT_EQ(RunCli("sweep run " + dir + "/t.yaml --out " + dir + "/t", &out), 0) << out;
  EXPECT_EQ(Query(dir + "/t/merged.db", "SELECT status FROM sweep_runs")[0], "timeout");
}

// The known answer: the price of a GPU-hour changes no queue wait and no
// allocation, so its elementary effects on them are exactly 0 and it ranks
// last; the load and the cluster's size move both. The idle cost does
// depend on the price.
TEST(SweepCli, MorrisRanksTheFactorWithoutEffectLast) {
  const std::string dir = testutil::TempDir();
  testutil::WriteFile(dir + "/m.yaml",
                      "base: {trace: builtin:demo, jobs: 1000, sample-interval: 3600}\n"
                      "metrics: [wait_mean_s, allocation_pct, idle_cost]\n"
                      "morris:\n"
                      "  trajectories: 6\n"
                      "  seed: 3\n"
                      "  factors:\n"
                      "    arrival-scale: [0.5, 2]\n"
                      "    cluster-scale: [0.25, 0.75]\n"
                      "    price: [1, 4]\n");
  std::string out;
  ASSERT_EQ(RunCli("sweep run " + dir + "/m.yaml --out " + dir + "/o -q", &out), 0) << out;
  // This design visits two points twice: 24 runs, 22 simulations, one
  // result per point.
  EXPECT_TRUE(Has(out, "sweep m: 24 runs (22 distinct: the design visits some points twice)"))
      << out;
  EXPECT_TRUE(Has(out, "22 runs finished")) << out;
  EXPECT_TRUE(Has(out, "9 Morris effects in table sweep_effects")) << out;
  const std::string db = dir + "/o/merged.db";
  for (const std::string m : {"wait_mean_s", "allocation_pct"}) {
    const auto r =
        Query(db, "SELECT factor, mu_star, sigma, n FROM sweep_effects WHERE metric = '" + m +
                      "' ORDER BY rank");
    ASSERT_EQ(r.size(), 3u) << m;
    EXPECT_EQ(r[2], "price|0.0|0.0|6") << m;
    for (int k = 0; k < 2; ++k) {  // the other two move it
      const std::string mu_star = r[k].substr(r[k].find('|') + 1);
      EXPECT_GT(std::stod(mu_star.substr(0, mu_star.find('|'))), 0) << m << ": " << r[k];
    }
  }
  // The cluster's size moves the wait most (a quarter vs three quarters of
  // the demo cluster), more than the load does over 0.5..2.
  EXPECT_EQ(Query(db,
                  "SELECT factor FROM sweep_effects WHERE metric = 'wait_mean_s' AND rank = "
                  "1")[0],
            "cluster-scale");
  // The idle cost is linear in the price: mu* of price > 0.
  EXPECT_GT(std::stod(Query(db,
                            "SELECT mu_star FROM sweep_effects WHERE metric = 'idle_cost' AND "
                            "factor = 'price'")[0]),
            0);
}

TEST(SweepCli, EmitPrintsThePendingRunsAndTaskRunsOne) {
  const std::string dir = testutil::TempDir();
  testutil::WriteFile(dir + "/grid.yaml", kGrid);
  std::string out;
  ASSERT_EQ(RunCli("sweep run " + dir + "/grid.yaml --out " + dir + "/o --emit xargs", &out), 0)
      << out;
  EXPECT_EQ(Count(out, " --run "), 8) << out;
  EXPECT_TRUE(Has(out, "sweep task '" + dir + "/grid.yaml' --out '" + dir + "/o' --run ")) << out;
  // parallel: whole commands, the binary first.
  ASSERT_EQ(RunCli("sweep run " + dir + "/grid.yaml --out " + dir + "/o --emit parallel", &out), 0)
      << out;
  EXPECT_EQ(Count(out, "'" + testutil::BinaryPath() + "' sweep task '"), 8) << out;
  ASSERT_EQ(RunCli("sweep task " + dir + "/grid.yaml --out " + dir + "/o --run 5", &out), 0) << out;
  ASSERT_EQ(RunCli("sweep merge " + dir + "/o --csv " + dir + "/x.csv", &out), 0) << out;
  EXPECT_TRUE(Has(out, "merged 8 runs (1 finished, 0 failed or over a limit, 7 pending)")) << out;
  EXPECT_EQ(Query(dir + "/o/merged.db", "SELECT run_index FROM sweep_runs WHERE status = 'ok'")[0],
            "5");
  // The merged database may not replace an input of the merge.
  EXPECT_EQ(RunCli("sweep merge " + dir + "/o --db " + dir + "/o/plan.jsonl", &out), 1) << out;
  EXPECT_TRUE(Has(out, "refusing to replace an input")) << out;
}

TEST(SweepCli, BadFilesAndOptionsSayWhere) {
  const std::string dir = testutil::TempDir();
  std::string out;
  testutil::WriteFile(dir + "/a.yaml", "base: {trace: builtin:demo}\naxes:\n  polcy: [a, b]\n");
  EXPECT_EQ(RunCli("sweep plan " + dir + "/a.yaml --no-pilot", &out), 1) << out;
  EXPECT_TRUE(Has(out, dir + "/a.yaml:3: option --polcy: not an option of `utilsim run`")) << out;
  testutil::WriteFile(dir + "/b.yaml", "base:\n  trace: builtin:demo\n  out: x.db\n");
  EXPECT_EQ(RunCli("sweep run " + dir + "/b.yaml --out " + dir + "/o", &out), 1) << out;
  EXPECT_TRUE(Has(out, "b.yaml:3: option --out: set by the sweep for all its runs")) << out;
  testutil::WriteFile(dir + "/c.yaml",
                      "base: {trace: builtin:demo}\naxes:\n  sample-interval: "
                      "[60, -5]\n");
  EXPECT_EQ(RunCli("sweep plan " + dir + "/c.yaml --no-pilot", &out), 1) << out;
  EXPECT_TRUE(Has(out, "c.yaml:3: option --sample-interval:")) << out;
  testutil::WriteFile(dir + "/d.yaml",
                      "base: {trace: builtin:demo}\naxes:\n  policy: [best-fitt]\n");
  EXPECT_EQ(RunCli("sweep plan " + dir + "/d.yaml --no-pilot", &out), 1) << out;
  EXPECT_TRUE(Has(out, "d.yaml:3: option --policy: unknown policy 'best-fitt'")) << out;
  testutil::WriteFile(dir + "/e.yaml", "base: {trace: missing.csv}\n");
  EXPECT_EQ(RunCli("sweep plan " + dir + "/e.yaml --no-pilot", &out), 1) << out;
  EXPECT_TRUE(Has(out, dir + "/missing.csv")) << out;  // relative to the sweep file
  // ${NAME} in an input path: an unset variable is named; a set one is used.
  testutil::WriteFile(dir + "/v.yaml", "base:\n  trace: \"${UTILSIM_SWEEP_TEST_NOPE}/x.csv\"\n");
  EXPECT_EQ(RunCli("sweep plan " + dir + "/v.yaml --no-pilot", &out), 1) << out;
  EXPECT_TRUE(
      Has(out, "v.yaml:2: option --trace: environment variable UTILSIM_SWEEP_TEST_NOPE is not set"))
      << out;
  testutil::WriteFile(dir + "/w.yaml", "base:\n  trace: \"${HOME}/utilsim-no-such-trace.csv\"\n");
  EXPECT_EQ(RunCli("sweep plan " + dir + "/w.yaml --no-pilot", &out), 1) << out;
  EXPECT_TRUE(Has(out, std::string(std::getenv("HOME")) + "/utilsim-no-such-trace.csv")) << out;
  // Usage errors exit 2.
  EXPECT_EQ(RunCli("sweep run " + dir + "/a.yaml", &out), 2) << out;  // no --out
  EXPECT_EQ(RunCli("sweep run " + dir + "/a.yaml --out o --tasks 3", &out), 2) << out;
  EXPECT_TRUE(Has(out, "--tasks: only with --executor slurm")) << out;
  EXPECT_EQ(RunCli("sweep task " + dir + "/a.yaml --out o", &out), 2) << out;
  EXPECT_EQ(RunCli("sweep", &out), 2) << out;
  // The sweep file may not be replaced by the folder's copy of it.
  std::filesystem::create_directories(dir + "/own");
  testutil::WriteFile(dir + "/own/sweep.yaml", kGrid);
  EXPECT_EQ(RunCli("sweep run " + dir + "/own/sweep.yaml --out " + dir + "/own", &out), 1) << out;
  EXPECT_TRUE(Has(out, "--out: " + dir + "/own/sweep.yaml: is the same file as the sweep file"))
      << out;
  EXPECT_EQ(testutil::ReadFile(dir + "/own/sweep.yaml"), kGrid);
  // An output folder holding other things is refused.
  std::filesystem::create_directories(dir + "/busy");
  testutil::WriteFile(dir + "/busy/notes.txt", "mine\n");
  testutil::WriteFile(dir + "/g.yaml", kGrid);
  EXPECT_EQ(RunCli("sweep run " + dir + "/g.yaml --out " + dir + "/busy", &out), 1) << out;
  EXPECT_TRUE(Has(out, "holds 'notes.txt', which no sweep writes")) << out;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
