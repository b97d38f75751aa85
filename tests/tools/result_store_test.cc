#include "utilsim/results/result_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "testutil/testutil.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

namespace fs = std::filesystem;

// Two runs exercising every field: text needing care, a seed above 2^63,
// never-started and unfinished jobs, fractional GPUs, idle time by cause.
std::vector<RunResult> MakeRuns() {
  std::vector<RunResult> runs(2);
  for (size_t r = 0; r < runs.size(); ++r) {
    RunResult& run = runs[r];
    RunMeta& m = run.meta;
    m.utilsim_version = "0.1.0";
    m.queue_policy = r ? "sjf" : "fifo";
    m.queue_policy_version = "1";
    m.placement_policy = "best-fit";
    m.placement_policy_version = "2.1";
    m.label = r ? "sjf, best \"fit\"" : "fifo";
    m.seed = r ? UINT64_MAX - 7 : 42;
    m.input_digest = "ab12cd34";
    m.workload_source = "synthetic:default seed=1";
    m.cluster_name = "small\nlines";
    m.sample_interval = Seconds(60);
    m.notes = r ? "" : "note: \xc3\xa9t\xc3\xa9";
    m.progress_model = r ? "whole-gpu" : "x";
    Summary& s = run.summary;
    s.jobs = 3;
    s.finished = 1;
    s.rejected = 1;
    s.unfinished = 1;
    s.capacity_gpus = 64;
    s.window_start = Micros(1);
    s.window_end = Micros(7'200'000'123);
    s.alloc_gpu_h = 10.0 / 3;
    s.useful_gpu_h = 0.1 + 0.2;
    s.idle_alloc_gpu_h = s.alloc_gpu_h - s.useful_gpu_h;
    s.allocation_pct = 72.4;
    s.effective_util_pct = 40.125;
    s.price_per_gpu_h = 2.5;
    s.idle_cost = s.idle_alloc_gpu_h * 2.5;
    s.wait_mean_s = 1e-7;
    s.wait_p50_s = 12.5;
    s.wait_p95_s = 1e9;
    s.wait_p99_s = std::nan("");  // no data: written as NULL, read as NaN
    s.wait_max_s = 3e9 + r;
    s.queued_mean_s = 2e-7;
    s.queued_p95_s = 1e9 + 0.5;
    s.queued_max_s = 3e9 + 2 * r;
    s.jct_mean_s = 100;
    s.jct_p50_s = 50;
    s.jct_p95_s = 500;
    s.slowdown_mean = 1.5;
    s.slowdown_p50 = 1;
    s.slowdown_p95 = 7.25;
    s.makespan_s = 7200.000122;
    s.tenant_fairness = 0.875;
    s.events = 123456789012;

    JobRecord done;
    done.job = 0;
    done.name = "job,0";
    done.tenant = 2;
    done.submit = Micros(1);
    done.start = Micros(2'500'001);
    done.finish = Micros(7'200'000'123);
    done.queued_s = 302.500001;  // wait 2.5 s plus 300 s queued after a preemption
    done.recorded_runtime = Seconds(7000);
    done.tasks = 2;
    done.gpu_milli = 8000;
    done.placement = "n0:0,1,2,3;n1:0,1,2,3";
    done.alloc_gpu_s = 57600.5;
    done.useful_gpu_s = 20000.25;
    done.idle_gpu_s = {1, 2, 3, 4, 0.5, 0.25};
    JobRecord rejected;
    rejected.job = 2;
    rejected.name = "big";
    rejected.outcome = JobOutcome::kRejected;
    rejected.reason = "needs 128 GPUs, cluster has 64";
    rejected.submit = Seconds(10);
    rejected.gpu_milli = 128000;
    JobRecord running;
    running.job = 1;
    running.name = "";
    running.outcome = JobOutcome::kUnfinished;
    running.submit = Seconds(20);
    running.start = Seconds(20);
    running.queued_s = 0;
    running.gpu_milli = 500;  // half a GPU
    running.placement = "n0:4";
    running.alloc_gpu_s = 0.1;
    run.jobs = {done, running, rejected};

    for (int k = 0; k < 3; ++k) {
      Sample smp;
      smp.time = Seconds(60 * k);
      smp.gpus_allocated = 8.5 + k;
      smp.gpus_busy = 3.25;
      smp.queued = k;
      smp.running = 2;
      smp.cpu_allocated_frac = 0.1 * k;
      smp.mem_allocated_frac = 1.0 / 3;
      smp.gpus_free_whole = 55 - k;
      smp.gpus_stranded = k;
      smp.gpus_idle = {0.5 * k, 1, 0, 0.25, 0, 2};
      run.samples.push_back(smp);
    }
    m.sample_start = Seconds(0);
    m.sample_count = 3;
    if (r == 1) {
      // Run 2 records change points: at 0 s, at 60 s (a tick) and 1 us
      // before the tick at 180 s; its 5 ticks (0 ... 240 s) show 0, 60, 60,
      // 179.999999 and 179.999999 s's points.
      m.series = "changes";
      m.sample_count = 5;
      run.changes = run.samples;
      run.changes[2].time = Micros(179'999'999);
      const int from[] = {0, 1, 1, 2, 2};
      run.samples.clear();
      for (int k = 0; k < 5; ++k) {
        run.samples.push_back(run.changes[from[k]]);
        run.samples.back().time = Seconds(60 * k);
      }
    }
  }
  return runs;
}

// Equal, treating NaN as equal to NaN.
void ExpectSame(double a, double b, const char* what) {
  if (std::isnan(a) && std::isnan(b)) return;
  EXPECT_EQ(a, b) << what;
}

void ExpectRunsEqual(const std::vector<RunResult>& want, const std::vector<RunResult>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t r = 0; r < want.size(); ++r) {
    const RunMeta &a = want[r].meta, &b = got[r].meta;
    EXPECT_EQ(a.utilsim_version, b.utilsim_version);
    EXPECT_EQ(a.queue_policy, b.queue_policy);
    EXPECT_EQ(a.queue_policy_version, b.queue_policy_version);
    EXPECT_EQ(a.placement_policy, b.placement_policy);
    EXPECT_EQ(a.placement_policy_version, b.placement_policy_version);
    EXPECT_EQ(a.label, b.label);
    EXPECT_EQ(a.seed, b.seed);
    EXPECT_EQ(a.input_digest, b.input_digest);
    EXPECT_EQ(a.workload_source, b.workload_source);
    EXPECT_EQ(a.cluster_name, b.cluster_name);
    EXPECT_EQ(a.sample_interval, b.sample_interval);
    EXPECT_EQ(a.series, b.series);
    EXPECT_EQ(a.sample_start, b.sample_start);
    EXPECT_EQ(a.sample_count, b.sample_count);
    EXPECT_EQ(a.notes, b.notes);
    EXPECT_EQ(a.progress_model, b.progress_model);
    const Summary &x = want[r].summary, &y = got[r].summary;
    EXPECT_EQ(x.jobs, y.jobs);
    EXPECT_EQ(x.finished, y.finished);
    EXPECT_EQ(x.rejected, y.rejected);
    EXPECT_EQ(x.unfinished, y.unfinished);
    EXPECT_EQ(x.capacity_gpus, y.capacity_gpus);
    EXPECT_EQ(x.window_start, y.window_start);
    EXPECT_EQ(x.window_end, y.window_end);
    EXPECT_EQ(x.events, y.events);
#define SAME(f) ExpectSame(x.f, y.f, #f)
    SAME(alloc_gpu_h), SAME(useful_gpu_h), SAME(idle_alloc_gpu_h), SAME(allocation_pct);
    SAME(effective_util_pct), SAME(price_per_gpu_h), SAME(idle_cost), SAME(wait_mean_s);
    SAME(wait_p50_s), SAME(wait_p95_s), SAME(wait_p99_s), SAME(wait_max_s), SAME(jct_mean_s);
    SAME(jct_p50_s), SAME(jct_p95_s), SAME(slowdown_mean), SAME(slowdown_p50);
    SAME(slowdown_p95), SAME(makespan_s), SAME(tenant_fairness), SAME(queued_mean_s);
    SAME(queued_p50_s), SAME(queued_p95_s), SAME(queued_p99_s), SAME(queued_max_s);
#undef SAME
    ASSERT_EQ(want[r].jobs.size(), got[r].jobs.size());
    for (size_t j = 0; j < want[r].jobs.size(); ++j) {
      const JobRecord &p = want[r].jobs[j], &q = got[r].jobs[j];
      EXPECT_EQ(p.job, q.job);
      EXPECT_EQ(p.name, q.name);
      EXPECT_EQ(p.tenant, q.tenant);
      EXPECT_EQ(p.outcome, q.outcome);
      EXPECT_EQ(p.reason, q.reason);
      EXPECT_EQ(p.submit, q.submit);
      EXPECT_EQ(p.start, q.start);
      EXPECT_EQ(p.finish, q.finish);
      EXPECT_EQ(p.queued_s, q.queued_s);
      EXPECT_EQ(p.recorded_runtime, q.recorded_runtime);
      EXPECT_EQ(p.tasks, q.tasks);
      EXPECT_EQ(p.gpu_milli, q.gpu_milli);
      EXPECT_EQ(p.placement, q.placement);
      EXPECT_EQ(p.alloc_gpu_s, q.alloc_gpu_s);
      EXPECT_EQ(p.useful_gpu_s, q.useful_gpu_s);
      EXPECT_EQ(p.idle_gpu_s, q.idle_gpu_s);
    }
    ASSERT_EQ(want[r].changes.size(), got[r].changes.size());
    for (size_t k = 0; k < want[r].changes.size(); ++k) {
      EXPECT_EQ(want[r].changes[k].time, got[r].changes[k].time);
      EXPECT_TRUE(SameState(want[r].changes[k], got[r].changes[k])) << "point " << k;
    }
    ASSERT_EQ(want[r].samples.size(), got[r].samples.size());
    for (size_t k = 0; k < want[r].samples.size(); ++k) {
      const Sample &p = want[r].samples[k], &q = got[r].samples[k];
      EXPECT_EQ(p.time, q.time);
      EXPECT_EQ(p.gpus_allocated, q.gpus_allocated);
      EXPECT_EQ(p.gpus_busy, q.gpus_busy);
      EXPECT_EQ(p.queued, q.queued);
      EXPECT_EQ(p.running, q.running);
      EXPECT_EQ(p.cpu_allocated_frac, q.cpu_allocated_frac);
      EXPECT_EQ(p.mem_allocated_frac, q.mem_allocated_frac);
      EXPECT_EQ(p.gpus_free_whole, q.gpus_free_whole);
      EXPECT_EQ(p.gpus_stranded, q.gpus_stranded);
      EXPECT_EQ(p.gpus_idle, q.gpus_idle);
    }
  }
}

// Runs one SQL statement on `path` and returns the first column of each row
// as text ("NULL" for NULL).
std::vector<std::string> Query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::string> out;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char* t = sqlite3_column_text(st, 0);
    out.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

TEST(ResultStoreTest, RoundTripsEveryField) {
  std::string path = testutil::TempDir() + "/r.db";
  std::vector<RunResult> runs = MakeRuns();
  ASSERT_TRUE(WriteResults(runs, path).ok());
  Result<std::vector<RunResult>> back = ReadResults(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectRunsEqual(runs, back.value());
}

TEST(ResultStoreTest, RoundTripsNoRuns) {
  std::string path = testutil::TempDir() + "/empty.db";
  ASSERT_TRUE(WriteResults({}, path).ok());
  Result<std::vector<RunResult>> back = ReadResults(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back.value().empty());
}

TEST(ResultStoreTest, SameRunsGiveByteIdenticalFiles) {
  std::string dir = testutil::TempDir();
  std::vector<RunResult> runs = MakeRuns();
  ASSERT_TRUE(WriteResults(runs, dir + "/a.db").ok());
  ASSERT_TRUE(WriteResults(runs, dir + "/b.db").ok());
  std::string a = testutil::ReadFile(dir + "/a.db");
  EXPECT_GT(a.size(), 0u);
  EXPECT_EQ(a, testutil::ReadFile(dir + "/b.db"));
  ASSERT_TRUE(WriteResults(runs, dir + "/a.db").ok());  // rewriting in place, too
  EXPECT_EQ(a, testutil::ReadFile(dir + "/a.db"));
}

TEST(ResultStoreTest, SchemaAsDocumented) {
  std::string path = testutil::TempDir() + "/r.db";
  ASSERT_TRUE(WriteResults(MakeRuns(), path).ok());
  EXPECT_EQ(Query(path, "SELECT key || '=' || value FROM meta ORDER BY key"),
            (std::vector<std::string>{"created_by=utilsim", "schema_version=8",
                                      "utilsim_version=0.1.0"}));
  EXPECT_EQ(Query(path, "PRAGMA page_size"), std::vector<std::string>{"4096"});
  EXPECT_EQ(
      Query(path, "SELECT name FROM pragma_table_info('samples')"),
      (std::vector<std::string>{
          "run_id", "time_s", "gpus_allocated", "gpus_busy", "queued", "running",
          "cpu_allocated_frac", "mem_allocated_frac", "gpus_free_whole", "gpus_stranded",
          "idle_unattributed_gpus", "idle_input_gpus", "idle_communication_gpus", "idle_fixed_gpus",
          "idle_sharing_gpus", "idle_storage_gpus", "frag_gpu_milli", "power_w", "gpus_down"}));
  std::vector<std::string> jobs_cols = Query(path, "SELECT name FROM pragma_table_info('jobs')");
  ASSERT_EQ(jobs_cols.size(), 44u);
  EXPECT_EQ(jobs_cols[0], "run_id");
  EXPECT_EQ(jobs_cols[10], "queued_s");
  EXPECT_EQ(jobs_cols[16], "preemptions");
  EXPECT_EQ(jobs_cols[20], "idle_unattributed_gpu_s");
  EXPECT_EQ(jobs_cols[24], "idle_sharing_gpu_s");
  EXPECT_EQ(jobs_cols[25], "idle_storage_gpu_s");
  EXPECT_EQ(jobs_cols[26], "energy_kwh");
  EXPECT_EQ(jobs_cols[28], "wait_capacity_s");
  EXPECT_EQ(jobs_cols[38], "wait_power_on_s");
  EXPECT_EQ(jobs_cols[39], "wait_power_budget_s");
  EXPECT_EQ(jobs_cols[40], "wait_nodes_down_s");
  EXPECT_EQ(jobs_cols[41], "interruptions");
  EXPECT_EQ(jobs_cols[43], "ettr");
  EXPECT_EQ(
      Query(path, "SELECT name FROM pragma_table_info('waits')"),
      (std::vector<std::string>{"run_id", "job_index", "from_s", "to_s", "cause", "blocker_index",
                                "nodes_model", "nodes_gpus", "nodes_cpu", "nodes_mem", "nodes_fit",
                                "nodes_unavailable", "nodes_power", "est_start_s"}));
  std::vector<std::string> runs_cols = Query(path, "SELECT name FROM pragma_table_info('runs')");
  EXPECT_EQ(runs_cols.front(), "run_id");
  EXPECT_EQ(runs_cols.back(), "ettr_p5");
  EXPECT_NE(std::find(runs_cols.begin(), runs_cols.end(), "energy_alloc_idle_kwh"),
            runs_cols.end());
  EXPECT_NE(std::find(runs_cols.begin(), runs_cols.end(), "wait_co_resource_h"), runs_cols.end());
  EXPECT_NE(std::find(runs_cols.begin(), runs_cols.end(), "wait_p95_s"), runs_cols.end());
  EXPECT_NE(std::find(runs_cols.begin(), runs_cols.end(), "stranded_gpu_h"), runs_cols.end());
  EXPECT_NE(std::find(runs_cols.begin(), runs_cols.end(), "idle_input_gpu_h"), runs_cols.end());

  // run 1, in insertion order: finished, unfinished (started), rejected.
  EXPECT_EQ(Query(path,
                  "SELECT quote(start_s) || ' ' || quote(finish_s) || ' ' || quote(wait_s)"
                  " || ' ' || quote(jct_s) FROM jobs WHERE run_id = 1"),
            (std::vector<std::string>{"2.500001 7200.000123 2.5 7200.000122", "20.0 NULL 0.0 NULL",
                                      "NULL NULL NULL NULL"}));
  EXPECT_EQ(
      Query(path, "SELECT gpus || ' ' || idle_gpu_s || ' ' || outcome FROM jobs LIMIT 3"),
      (std::vector<std::string>{"8.0 10.75 finished", "0.5 0.0 unfinished", "128.0 0.0 rejected"}));
  EXPECT_EQ(Query(path, "SELECT seed FROM runs ORDER BY run_id"),
            (std::vector<std::string>{"42", "-8"}));
  EXPECT_EQ(Query(path, "SELECT quote(wait_p99_s) FROM runs WHERE run_id = 1"),
            std::vector<std::string>{"NULL"});
  // The series: run 1's samples stored, run 2's change points, and the view
  // `samples` with every run's ticks, run 2's derived from its points.
  for (const char* t : {"interval_samples", "change_points"})
    EXPECT_EQ(Query(path, std::string("SELECT count(*) FROM pragma_table_info('") + t + "')"),
              std::vector<std::string>{"19"});
  EXPECT_EQ(Query(path, "SELECT series || ' ' || sample_start_s || ' ' || sample_count FROM runs"),
            (std::vector<std::string>{"samples 0.0 3", "changes 0.0 5"}));
  EXPECT_EQ(Query(path, "SELECT count(*) FROM interval_samples WHERE run_id = 2"),
            std::vector<std::string>{"0"});
  EXPECT_EQ(Query(path, "SELECT time_s FROM change_points WHERE run_id = 2"),
            (std::vector<std::string>{"0.0", "60.0", "179.999999"}));
  EXPECT_EQ(Query(path,
                  "SELECT run_id || ' ' || time_s || ' ' || gpus_allocated || ' ' || queued "
                  "FROM samples ORDER BY run_id, time_s"),
            (std::vector<std::string>{"1 0.0 8.5 0", "1 60.0 9.5 1", "1 120.0 10.5 2",
                                      "2 0.0 8.5 0", "2 60.0 9.5 1", "2 120.0 9.5 1",
                                      "2 180.0 10.5 2", "2 240.0 10.5 2"}));
}

TEST(ResultStoreTest, ReadRefusesChangePointsThatDoNotCoverTheTicks) {
  const std::string dir = testutil::TempDir();
  std::vector<RunResult> runs = MakeRuns();
  runs[1].changes.erase(runs[1].changes.begin());  // the first tick has no point
  ASSERT_TRUE(WriteResults(runs, dir + "/a.db").ok());
  auto back = ReadResults(dir + "/a.db");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().message(),
            dir +
                "/a.db: run 2: the change points (2) do not cover its 5 sample ticks from "
                "0.000000 s, or are out of time order");
  // A database written whole, then changed by `sql`: what ReadResults says.
  auto refusal = [&](const std::string& name, const std::string& sql) {
    const std::string path = dir + "/" + name;
    EXPECT_TRUE(WriteResults(MakeRuns(), path).ok());
    Query(path, sql);
    auto read = ReadResults(path);
    return read.ok() ? std::string("read") : read.status().message();
  };
  // Rows of a run in the other form's table.
  EXPECT_EQ(refusal("b.db",
                    "INSERT INTO change_points SELECT * FROM interval_samples WHERE run_id = 1 "
                    "LIMIT 1"),
            dir + "/b.db: run 1: change points in a run whose series is samples");
  EXPECT_EQ(refusal("d.db",
                    "INSERT INTO interval_samples SELECT * FROM change_points WHERE run_id = 2 "
                    "LIMIT 1"),
            dir + "/d.db: run 2: interval samples in a run whose series is changes");
  EXPECT_EQ(refusal("c.db", "UPDATE runs SET series = 'steps' WHERE run_id = 2"),
            dir + "/c.db: table runs, column series: \"steps\", expected changes or samples");
}

TEST(ResultStoreTest, ReplacesAnExistingFileAndLeavesNoTemporaryFiles) {
  std::string dir = testutil::TempDir();
  testutil::WriteFile(dir + "/r.db", "old");
  std::vector<RunResult> runs = MakeRuns();
  runs.resize(1);
  ASSERT_TRUE(WriteResults(runs, dir + "/r.db").ok());
  Result<std::vector<RunResult>> back = ReadResults(dir + "/r.db");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back.value().size(), 1u);
  EXPECT_EQ(testutil::ListDir(dir), std::vector<std::string>{"r.db"});
}

TEST(ResultStoreTest, RefusesMissingDirectoryAndDirectoryTarget) {
  std::string dir = testutil::TempDir();
  Status s = WriteResults(MakeRuns(), dir + "/nope/r.db");
  EXPECT_EQ(s.message(), dir + "/nope/r.db: directory " + dir + "/nope does not exist");
  fs::create_directory(dir + "/sub");
  s = WriteResults(MakeRuns(), dir + "/sub");
  EXPECT_EQ(s.message(), dir + "/sub: is a directory (not a regular file); refusing to replace it");
  EXPECT_EQ(testutil::ListDir(dir), std::vector<std::string>{"sub"});
}

TEST(ResultStoreTest, FailedWriteNamesPathAndLeavesTargetUntouched) {
  std::string dir = testutil::TempDir();
  std::string path = dir + "/r.db";
  testutil::WriteFile(path, "old");
  // Block the temporary file name with a non-empty directory.
  std::string tmp = dir + "/.r.db.utilsim-tmp-" + std::to_string(::getpid());
  fs::create_directories(tmp + "/x");
  Status s = WriteResults(MakeRuns(), path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), path + ": cannot create the temporary file " + tmp + ": File exists");
  EXPECT_EQ(testutil::ReadFile(path), "old");
}

TEST(ResultStoreTest, ReadRejectsOtherFiles) {
  std::string dir = testutil::TempDir();
  EXPECT_EQ(ReadResults(dir + "/none.db").status().message(), dir + "/none.db: no such file");
  testutil::WriteFile(dir + "/text.db", "just some text, long enough to be a header........\n");
  EXPECT_EQ(ReadResults(dir + "/text.db").status().message(),
            dir + "/text.db: not a utilsim results database");
  testutil::WriteFile(dir + "/empty.db", "");
  EXPECT_EQ(ReadResults(dir + "/empty.db").status().message(),
            dir + "/empty.db: not a utilsim results database");

  std::string path = dir + "/v2.db";
  ASSERT_TRUE(WriteResults(MakeRuns(), path).ok());
  Query(path, "UPDATE meta SET value = '2' WHERE key = 'schema_version'");
  EXPECT_EQ(ReadResults(path).status().message(), path + ": schema version 2, expected 8");
  Query(path, "UPDATE meta SET value = 'other' WHERE key = 'created_by'");
  EXPECT_EQ(ReadResults(path).status().message(), path + ": not a utilsim results database");
}

TEST(ResultStoreTest, ReadReportsBadValues) {
  std::string path = testutil::TempDir() + "/r.db";
  ASSERT_TRUE(WriteResults(MakeRuns(), path).ok());
  Query(path, "UPDATE jobs SET outcome = 'lost' WHERE rowid = 2");
  EXPECT_EQ(ReadResults(path).status().message(),
            path + ": table jobs, column outcome: unknown outcome 'lost'");
  Query(path, "UPDATE jobs SET outcome = 'finished', submit_s = 'soon' WHERE rowid = 2");
  EXPECT_EQ(ReadResults(path).status().message(),
            path + ": table jobs, column submit_s: bad value");
}

// Job rows in any order read back in job order (a streamed file holds them
// in the order the jobs ended); a job twice or missing is an error.
TEST(ResultStoreTest, ReadPlacesJobRowsByIndex) {
  const std::string path = testutil::TempDir() + "/r.db";
  std::vector<RunResult> runs = MakeRuns();
  ASSERT_TRUE(WriteResults(runs, path).ok());
  // Reverse run 1's job rows: delete them and insert them back last first.
  Query(path, "CREATE TABLE t AS SELECT * FROM jobs WHERE run_id = 1 ORDER BY job_index DESC");
  Query(path, "DELETE FROM jobs WHERE run_id = 1");
  Query(path, "INSERT INTO jobs SELECT * FROM t ORDER BY rowid");
  Query(path, "DROP TABLE t");
  EXPECT_EQ(Query(path, "SELECT job_index FROM jobs WHERE run_id = 1 LIMIT 1"),
            std::vector<std::string>{std::to_string(runs[0].jobs.size() - 1)});
  Result<std::vector<RunResult>> back = ReadResults(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectRunsEqual(runs, back.value());

  Query(path, "UPDATE jobs SET job_index = 0 WHERE run_id = 1 AND job_index = 1");
  EXPECT_EQ(ReadResults(path).status().message(),
            path + ": table jobs, column job_index: job 0 appears twice");
  Query(path,
        "DELETE FROM jobs WHERE run_id = 1 AND job_index = 0 AND rowid = "
        "(SELECT max(rowid) FROM jobs WHERE run_id = 1 AND job_index = 0)");
  EXPECT_EQ(ReadResults(path).status().message(),
            path + ": table jobs, column job_index: job 2 of a run of 2 jobs");
}

TEST(ResultStoreTest, ManyRowsRoundTrip) {
  std::vector<RunResult> runs = MakeRuns();
  for (RunResult& run : runs) {
    JobRecord proto = run.jobs[0];
    run.jobs.clear();
    for (uint32_t j = 0; j < 20000; ++j) {
      proto.job = j;
      proto.submit = Micros(int64_t{j} * 1'000'003);
      proto.alloc_gpu_s = j / 7.0;
      run.jobs.push_back(proto);
    }
  }
  std::string path = testutil::TempDir() + "/big.db";
  ASSERT_TRUE(WriteResults(runs, path).ok());
  Result<std::vector<RunResult>> back = ReadResults(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectRunsEqual(runs, back.value());
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
