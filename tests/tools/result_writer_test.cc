// ResultWriter (results/result_writer.h): rows streamed into the database
// while the run goes give, table for table, the rows WriteResults writes
// from the kept rows (in the order the jobs ended rather than job order);
// ReadResults reads both back alike; the file is deterministic, atomic and
// refused where WriteResults refuses.
#include "utilsim/results/result_writer.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include "testutil/testutil.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"
#include "utilsim/results/result_store.h"
#include "utilsim/workloads/synthetic.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

namespace fs = std::filesystem;

// The demo workload cut to 6,000 jobs on 8 nodes: long queues (so waits
// rows), more jobs than the writer's batches hold (so it waits on the
// writer), series jobs and samples.
struct Fixture {
  Fixture() {
    SyntheticParams p = DemoParams();
    p.jobs = 6000;
    p.nodes = 8;
    w = GenerateSynthetic(p, 3);
    c = SyntheticCluster(p);
  }
  // One run of fifo+best-fit; with a writer, streamed and without rows.
  Result<RunResult> Run(ResultWriter* writer, SeriesForm form = SeriesForm::kSamples) const {
    auto sched = BuiltinPolicies().Make("fifo-skip+best-fit");
    EXPECT_TRUE(sched.ok());
    SimConfig cfg;
    cfg.sample_interval = Seconds(600);
    cfg.series = form;
    if (writer) {
      cfg.sink = writer;
      cfg.keep_rows = false;
    }
    return Simulate(c, w, *sched.value(), cfg);
  }
  Workload w;
  ClusterSpec c;
};

// Runs `sql` on `path` with `other` attached as b; the first column of the
// first row as an integer.
int64_t Count(const std::string& path, const std::string& other, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, ("ATTACH '" + other + "' AS b").c_str(), nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
  int64_t n = -1;
  if (st && sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

class ResultWriterForm : public ::testing::TestWithParam<SeriesForm> {};

TEST_P(ResultWriterForm, StreamedTablesEqualWhatWriteResultsWrites) {
  const SeriesForm form = GetParam();
  const bool changes = form == SeriesForm::kChanges;
  const Fixture f;
  const std::string dir = testutil::TempDir();
  auto kept = f.Run(nullptr, form);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  ASSERT_TRUE(WriteResults({kept.value()}, dir + "/kept.db").ok());

  auto writer = ResultWriter::Open(dir + "/streamed.db");
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  auto streamed = f.Run(writer.value().get(), form);
  ASSERT_TRUE(streamed.ok()) << streamed.status().message();
  EXPECT_TRUE(streamed.value().jobs.empty());  // nothing held
  ASSERT_TRUE(writer.value()->Commit().ok());
  const std::string a = dir + "/streamed.db", b = dir + "/kept.db";

  // The run queued (waits rows) and had more jobs than the writer's batches.
  EXPECT_EQ(Count(a, b, "SELECT count(*) FROM jobs"), 6000);
  EXPECT_GT(Count(a, b, "SELECT count(*) FROM waits"), 1000);
  EXPECT_GT(Count(a, b, "SELECT count(*) FROM samples"), 100);
  const std::string stored = changes ? "change_points" : "interval_samples";
  EXPECT_GT(Count(a, b, "SELECT count(*) FROM " + stored), 100);
  EXPECT_EQ(
      Count(a, b,
            "SELECT count(*) FROM " + std::string(changes ? "interval_samples" : "change_points")),
      0);
  // Every table holds the same rows, value for value (EXCEPT compares
  // REALs exactly), and the same number of them.
  for (const char* t :
       {"meta", "runs", "jobs", "samples", "interval_samples", "change_points", "waits"}) {
    SCOPED_TRACE(t);
    const std::string T(t);
    EXPECT_EQ(Count(a, b, "SELECT count(*) FROM " + T), Count(a, b, "SELECT count(*) FROM b." + T));
    EXPECT_EQ(Count(a, b,
                    "SELECT count(*) FROM (SELECT * FROM main." + T + " EXCEPT SELECT * FROM b." +
                        T + ")"),
              0);
    EXPECT_EQ(Count(a, b,
                    "SELECT count(*) FROM (SELECT * FROM b." + T + " EXCEPT SELECT * FROM main." +
                        T + ")"),
              0);
  }
  // Streamed rows come in the order the jobs ended (finished jobs by finish
  // time), where WriteResults's are in job order; ReadResults gives job
  // order for both (below).
  EXPECT_EQ(Count(b, a, "SELECT count(*) FROM jobs WHERE rowid != job_index + 1"), 0);
  EXPECT_GT(Count(a, b, "SELECT count(*) FROM jobs WHERE rowid != job_index + 1"), 100);
  EXPECT_EQ(Count(a, b,
                  "SELECT count(*) FROM jobs x JOIN jobs y ON y.rowid = x.rowid + 1 "
                  "WHERE x.outcome = 'finished' AND y.outcome = 'finished' "
                  "AND y.finish_s < x.finish_s"),
            0);
  // Samples (change points) in time order.
  EXPECT_EQ(Count(a, b,
                  "SELECT count(*) FROM " + stored + " s JOIN " + stored +
                      " t ON t.rowid = s.rowid + 1 WHERE t.time_s <= s.time_s"),
            0);
  // And ReadResults gives the same run back.
  auto back = ReadResults(a);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back.value().size(), 1u);
  const RunResult& r = back.value()[0];
  ASSERT_EQ(r.jobs.size(), kept.value().jobs.size());
  for (size_t k = 0; k < r.jobs.size(); ++k) {
    EXPECT_EQ(r.jobs[k].job, kept.value().jobs[k].job);
    EXPECT_EQ(r.jobs[k].start, kept.value().jobs[k].start);
    EXPECT_EQ(r.jobs[k].placement, kept.value().jobs[k].placement);
    EXPECT_EQ(r.jobs[k].waits.size(), kept.value().jobs[k].waits.size());
  }
  EXPECT_EQ(r.summary.wait_p95_s, kept.value().summary.wait_p95_s);
  EXPECT_EQ(r.meta.series, changes ? "changes" : "samples");
  EXPECT_EQ(r.changes.size(), kept.value().changes.size());
  ASSERT_EQ(r.samples.size(), kept.value().samples.size());
  for (size_t k = 0; k < r.samples.size(); ++k) {
    EXPECT_EQ(r.samples[k].time, kept.value().samples[k].time);
    EXPECT_TRUE(SameState(r.samples[k], kept.value().samples[k])) << "sample " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(BothForms, ResultWriterForm,
                         ::testing::Values(SeriesForm::kSamples, SeriesForm::kChanges),
                         [](const ::testing::TestParamInfo<SeriesForm>& p) {
                           return std::string(SeriesFormName(p.param));
                         });

// The view `samples` of a run of change points holds, row for row and bit
// for bit, the samples a run of samples took; ReadResults derives the same.
TEST(ResultWriterTest, SamplesViewOfChangePointsEqualsTheSamplesTaken) {
  const Fixture f;
  const std::string dir = testutil::TempDir();
  const std::string a = dir + "/changes.db", b = dir + "/samples.db";
  auto changes = f.Run(nullptr, SeriesForm::kChanges);
  auto taken = f.Run(nullptr, SeriesForm::kSamples);
  ASSERT_TRUE(changes.ok() && taken.ok());
  ASSERT_TRUE(WriteResults({changes.value()}, a).ok());
  ASSERT_TRUE(WriteResults({taken.value()}, b).ok());
  const int64_t ticks = Count(a, b, "SELECT count(*) FROM b.interval_samples");
  EXPECT_GT(ticks, 100);
  EXPECT_EQ(Count(a, b, "SELECT sample_count FROM runs"), ticks);
  EXPECT_EQ(Count(a, b, "SELECT count(*) FROM main.samples"), ticks);
  // Fewer points than ticks here (6,000 jobs over about 50 days of 600 s
  // ticks would be about 7,000 ticks; the points are the instants that
  // changed something).
  EXPECT_GT(Count(a, b, "SELECT count(*) FROM main.change_points"), 100);
  EXPECT_EQ(Count(a, b,
                  "SELECT count(*) FROM (SELECT * FROM main.samples EXCEPT SELECT * FROM "
                  "b.samples)"),
            0);
  EXPECT_EQ(Count(a, b,
                  "SELECT count(*) FROM (SELECT * FROM b.samples EXCEPT SELECT * FROM "
                  "main.samples)"),
            0);
  auto back = ReadResults(a);
  ASSERT_TRUE(back.ok()) << back.status().message();
  const std::vector<Sample>& derived = back.value()[0].samples;
  ASSERT_EQ(derived.size(), taken.value().samples.size());
  for (size_t k = 0; k < derived.size(); ++k) {
    EXPECT_EQ(derived[k].time, taken.value().samples[k].time);
    EXPECT_TRUE(SameState(derived[k], taken.value().samples[k])) << "sample " << k;
  }
}

TEST(ResultWriterTest, SameRunGivesByteIdenticalFiles) {
  const Fixture f;
  const std::string dir = testutil::TempDir();
  for (const char* name : {"/a.db", "/b.db"}) {
    auto writer = ResultWriter::Open(dir + name);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(f.Run(writer.value().get()).ok());
    ASSERT_TRUE(writer.value()->Commit().ok());
  }
  const std::string a = testutil::ReadFile(dir + "/a.db");
  EXPECT_GT(a.size(), 100000u);
  EXPECT_EQ(a, testutil::ReadFile(dir + "/b.db"));
}

TEST(ResultWriterTest, FinalRunsMetaGoesIntoTheRunsRow) {
  const Fixture f;
  const std::string path = testutil::TempDir() + "/r.db";
  auto writer = ResultWriter::Open(path);
  ASSERT_TRUE(writer.ok());
  auto run = f.Run(writer.value().get());
  ASSERT_TRUE(run.ok());
  run.value().meta.notes += "added after the engine; ";
  ASSERT_TRUE(writer.value()->Commit(&run.value()).ok());
  auto back = ReadResults(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back.value()[0].meta.notes, run.value().meta.notes);
  EXPECT_NE(run.value().meta.notes.find("added after the engine"), std::string::npos);
}

TEST(ResultWriterTest, WithoutCommitTheTargetIsLeftAsItWas) {
  const Fixture f;
  const std::string dir = testutil::TempDir();
  testutil::WriteFile(dir + "/r.db", "old");
  {
    auto writer = ResultWriter::Open(dir + "/r.db");
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(f.Run(writer.value().get()).ok());
    // Destroyed without Commit: the run's caller gave up.
  }
  EXPECT_EQ(testutil::ReadFile(dir + "/r.db"), "old");
  EXPECT_EQ(testutil::ListDir(dir), std::vector<std::string>{"r.db"});
}

TEST(ResultWriterTest, CommitWithoutTheEndOfARunWritesNothing) {
  const std::string dir = testutil::TempDir();
  auto writer = ResultWriter::Open(dir + "/r.db");
  ASSERT_TRUE(writer.ok());
  JobRecord rec;
  rec.name = "j";
  writer.value()->OnJob(rec);
  Status s = writer.value()->Commit();
  EXPECT_EQ(s.message(), dir + "/r.db: the run did not end; nothing written");
  EXPECT_EQ(writer.value()->Commit().message(), dir + "/r.db: Commit called twice");
  writer.value().reset();
  EXPECT_TRUE(testutil::ListDir(dir).empty());
}

TEST(ResultWriterTest, RefusesWhatWriteResultsRefuses) {
  const std::string dir = testutil::TempDir();
  EXPECT_EQ(ResultWriter::Open(dir + "/nope/r.db").status().message(),
            dir + "/nope/r.db: directory " + dir + "/nope does not exist");
  fs::create_directory(dir + "/sub");
  EXPECT_EQ(ResultWriter::Open(dir + "/sub").status().message(),
            dir + "/sub: is a directory (not a regular file); refusing to replace it");
  testutil::WriteFile(dir + "/target", "mine");
  fs::create_symlink(dir + "/target", dir + "/link.db");
  auto linked = ResultWriter::Open(dir + "/link.db");
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.status().message().find("link"), std::string::npos) << linked.status().message();
  EXPECT_EQ(testutil::ReadFile(dir + "/target"), "mine");
  OutputGuard guard;
  guard.option = "--out";
  guard.inputs = {{"--trace", dir + "/target"}};
  auto over_input = ResultWriter::Open(dir + "/target", guard);
  ASSERT_FALSE(over_input.ok());
  EXPECT_EQ(over_input.status().message().rfind("--out: ", 0), 0u) << over_input.status().message();
  EXPECT_EQ(ResultWriter::Open("").status().message(), "no path given for the results database");
  EXPECT_EQ(testutil::ListDir(dir), (std::vector<std::string>{"link.db", "sub", "target"}));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
