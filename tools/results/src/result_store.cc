#include "utilsim/results/result_store.h"

#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "result_schema.h"
#include "result_sql.h"
#include "sqlite_util.h"
#include "utilsim/traces/temp_file.h"

namespace utilsim {
namespace {

using results::Cell;
using results::Db;
using results::Stmt;
using results::Table;

std::string ColumnList(const Table& t) {
  std::string s;
  for (size_t k = 0; k < t.columns.size(); ++k) s += (k ? ", " : "") + t.columns[k].name;
  return s;
}

// Writes the whole database into `file`; errors name `path`, the user's name.
Status WriteDb(const std::vector<RunResult>& runs, const std::string& file,
               const std::string& path) {
  Db db;
  auto fail = [&](const std::string& what) {
    return Status::Error(path + ": " + what + ": " + db.message());
  };
  // The file exists (TempFile made it, empty); never follow a link.
  if (!db.Open(file, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX)) {
    return fail("cannot create database");
  }
  const std::string version = runs.empty() ? "" : runs.front().meta.utilsim_version;
  if (!results::CreateResultSchema(db)) return fail("cannot create tables");
  if (!results::WriteMetaTable(db, version)) return fail("cannot write meta");
  const Table* tables[] = {&results::RunsTable(), &results::JobsTable(), &results::SamplesTable(),
                           &results::WaitsTable(), &results::ChangePointsTable()};

  // Table by table, runs in order: one contiguous stretch of pages per table.
  std::vector<Cell> row;
  Stmt insert[5];
  for (int t = 0; t < 5; ++t) {
    if (!insert[t].Prepare(db, results::InsertSql(*tables[t]))) return fail("cannot write");
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    results::RunRow(static_cast<int64_t>(r + 1), runs[r], &row);
    if (!results::InsertRow(insert[0].get(), row)) return fail("cannot write runs");
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const JobRecord& j : runs[r].jobs) {
      results::JobRow(static_cast<int64_t>(r + 1), j, &row);
      if (!results::InsertRow(insert[1].get(), row)) return fail("cannot write jobs");
    }
  }
  // A run's series in one form: its samples, or the change points they
  // derive from (the view `samples` derives them again).
  for (size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].meta.series == "changes") continue;
    for (const Sample& s : runs[r].samples) {
      results::SampleRow(static_cast<int64_t>(r + 1), s, &row);
      if (!results::InsertRow(insert[2].get(), row)) return fail("cannot write samples");
    }
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].meta.series != "changes") continue;
    for (const Sample& s : runs[r].changes) {
      results::SampleRow(static_cast<int64_t>(r + 1), s, &row);
      if (!results::InsertRow(insert[4].get(), row)) return fail("cannot write change points");
    }
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const JobRecord& j : runs[r].jobs) {
      for (const WaitInterval& w : j.waits) {
        results::WaitRow(static_cast<int64_t>(r + 1), j.job, w, &row);
        if (!results::InsertRow(insert[3].get(), row)) return fail("cannot write waits");
      }
    }
  }
  if (!db.Exec("COMMIT")) return fail("cannot commit");
  return Status::Ok();
}

// Copies the current result row of `st` into cells pointing into SQLite's
// buffers (valid until the next step).
void ReadCells(sqlite3_stmt* st, std::vector<Cell>* row) {
  int n = sqlite3_column_count(st);
  row->resize(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    Cell& c = (*row)[static_cast<size_t>(k)];
    switch (sqlite3_column_type(st, k)) {
      case SQLITE_INTEGER:
        c = Cell::Int(sqlite3_column_int64(st, k));
        break;
      case SQLITE_FLOAT:
        c = Cell::Real(sqlite3_column_double(st, k));
        break;
      case SQLITE_NULL:
        c = Cell::Null();
        break;
      default: {  // TEXT, or a BLOB read as text
        const char* text = reinterpret_cast<const char*>(sqlite3_column_text(st, k));
        c = Cell::Text(
            std::string_view(text ? text : "", static_cast<size_t>(sqlite3_column_bytes(st, k))));
      }
    }
  }
}

// Runs SELECT <columns of t> ... and hands each row to parse(run_index, row).
template <typename Parse>
Status ReadTable(const Db& db, const Table& t, const std::string& order,
                 const std::map<int64_t, size_t>& run_index, const std::string& path, Parse parse) {
  Stmt st;
  std::string sql = "SELECT " + ColumnList(t) + " FROM " + t.name + " ORDER BY " + order;
  if (!st.Prepare(db, sql))
    return Status::Error(path + ": cannot read " + t.name + ": " + db.message());
  std::vector<Cell> row;
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    ReadCells(st.get(), &row);
    auto it = run_index.find(row[0].kind == Cell::Kind::kInt ? row[0].i : -1);
    if (it == run_index.end()) {
      return Status::Error(path + ": table " + t.name + ": row with an unknown run_id");
    }
    Status s = parse(it->second, row);
    if (!s.ok()) return Status::Error(path + ": " + s.message());
  }
  if (rc != SQLITE_DONE)
    return Status::Error(path + ": cannot read " + t.name + ": " + db.message());
  return Status::Ok();
}

// A run of series "changes": its samples from its change points. Each run's
// rows are in one table only.
Status DeriveSamples(const std::string& path, size_t run_id, RunResult* run) {
  const std::string where = path + ": run " + std::to_string(run_id) + ": ";
  const RunMeta& m = run->meta;
  if (m.series != "changes") {
    if (!run->changes.empty())
      return Status::Error(where + "change points in a run whose series is samples");
    return Status::Ok();
  }
  if (!run->samples.empty())
    return Status::Error(where + "interval samples in a run whose series is changes");
  if (!SamplesFromChanges(run->changes, m.sample_start, m.sample_interval, m.sample_count,
                          &run->samples))
    return Status::Error(where + "the change points (" + std::to_string(run->changes.size()) +
                         ") do not cover its " + std::to_string(m.sample_count) +
                         " sample ticks from " + std::to_string(m.sample_start.seconds()) +
                         " s, or are out of time order");
  return Status::Ok();
}

}  // namespace

std::string WaitCauseColumn(WaitCause c) {
  std::string s = WaitCauseName(c);
  for (char& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

Status WriteResults(const std::vector<RunResult>& runs, const std::string& path,
                    const OutputGuard& guard) {
  OutputGuard g;
  if (Status s = results::CheckResultsPath(path, guard, &g); !s.ok()) return s;
  traces::TempFile tmp;
  if (Status s = tmp.Create(path); !s.ok()) return s;
  tmp.CloseFd();  // SQLite opens the (empty) file by name
  if (Status s = WriteDb(runs, tmp.path(), path); !s.ok()) return s;  // closes the connection
  if (Status s = CheckOutput(path, g); !s.ok()) return s;  // again, just before the rename
  return tmp.Commit();
}

Result<std::vector<RunResult>> ReadResults(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Status::Error(path + ": is a directory");
  if (!std::filesystem::exists(path, ec)) return Status::Error(path + ": no such file");
  Db db;
  if (!db.Open(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX)) {
    return Status::Error(path + ": cannot open: " + db.message());
  }
  const Status not_ours = Status::Error(path + ": not a utilsim results database");
  std::map<std::string, std::string> meta;
  {
    Stmt st;
    if (!st.Prepare(db, "SELECT key, value FROM meta")) {
      int code = db.code() & 0xff;
      if (code == SQLITE_NOTADB || code == SQLITE_ERROR) return not_ours;
      return Status::Error(path + ": cannot read: " + db.message());
    }
    while (sqlite3_step(st.get()) == SQLITE_ROW) {
      const unsigned char* k = sqlite3_column_text(st.get(), 0);
      const unsigned char* v = sqlite3_column_text(st.get(), 1);
      if (k && v) meta[reinterpret_cast<const char*>(k)] = reinterpret_cast<const char*>(v);
    }
  }
  if (meta["created_by"] != "utilsim") return not_ours;
  const std::string& version = meta["schema_version"];
  if (version != std::to_string(kResultsSchemaVersion)) {
    return Status::Error(path + ": schema version " + (version.empty() ? "?" : version) +
                         ", expected " + std::to_string(kResultsSchemaVersion));
  }

  std::vector<RunResult> runs;
  std::map<int64_t, size_t> run_index;
  {
    // Collect run ids first so rows of the runs table go through ReadTable too.
    Stmt st;
    if (!st.Prepare(db, "SELECT run_id FROM runs ORDER BY run_id")) {
      return Status::Error(path + ": cannot read runs: " + db.message());
    }
    while (sqlite3_step(st.get()) == SQLITE_ROW) {
      run_index.emplace(sqlite3_column_int64(st.get(), 0), run_index.size());
    }
  }
  runs.resize(run_index.size());
  Status s = ReadTable(
      db, results::RunsTable(), "run_id", run_index, path,
      [&](size_t r, const std::vector<Cell>& row) { return results::ParseRunRow(row, &runs[r]); });
  if (s.ok()) {
    // Each record goes to its job_index: a file written after the run holds
    // the rows in job order, a streamed one (ResultWriter) in the order the
    // jobs ended. Every index from 0 must appear exactly once: n rows with
    // indices below n and none twice.
    std::vector<std::vector<char>> seen(runs.size());
    {
      // Every run's job count first, so that each run's jobs are allocated
      // once (a streamed file's indices do not come in order).
      Stmt st;
      if (!st.Prepare(db, "SELECT run_id, count(*) FROM jobs GROUP BY run_id")) {
        return Status::Error(path + ": cannot read jobs: " + db.message());
      }
      while (sqlite3_step(st.get()) == SQLITE_ROW) {
        auto it = run_index.find(sqlite3_column_int64(st.get(), 0));
        if (it == run_index.end()) {
          return Status::Error(path + ": table jobs: row with an unknown run_id");
        }
        const auto n = static_cast<size_t>(sqlite3_column_int64(st.get(), 1));
        runs[it->second].jobs.resize(n);
        seen[it->second].assign(n, 0);
      }
    }
    s = ReadTable(db, results::JobsTable(), "rowid", run_index, path,
                  [&](size_t r, const std::vector<Cell>& row) {
                    JobRecord rec;
                    if (Status p = results::ParseJobRow(row, &rec); !p.ok()) return p;
                    std::vector<JobRecord>& jobs = runs[r].jobs;
                    const size_t k = rec.job;
                    if (k >= jobs.size())
                      return Status::Error("table jobs, column job_index: job " +
                                           std::to_string(k) + " of a run of " +
                                           std::to_string(jobs.size()) + " jobs");
                    if (seen[r][k])
                      return Status::Error("table jobs, column job_index: job " +
                                           std::to_string(k) + " appears twice");
                    seen[r][k] = 1;
                    jobs[k] = std::move(rec);
                    return Status::Ok();
                  });
  }
  if (s.ok()) {
    s = ReadTable(db, results::SamplesTable(), "rowid", run_index, path,
                  [&](size_t r, const std::vector<Cell>& row) {
                    return results::ParseSampleRow(row, &runs[r].samples.emplace_back());
                  });
  }
  if (s.ok()) {
    s = ReadTable(db, results::ChangePointsTable(), "rowid", run_index, path,
                  [&](size_t r, const std::vector<Cell>& row) {
                    return results::ParseSampleRow(row, &runs[r].changes.emplace_back(),
                                                   results::ChangePointsTable());
                  });
  }
  for (size_t r = 0; s.ok() && r < runs.size(); ++r) s = DeriveSamples(path, r + 1, &runs[r]);
  if (s.ok()) {
    s = ReadTable(db, results::WaitsTable(), "rowid", run_index, path,
                  [&](size_t r, const std::vector<Cell>& row) {
                    return results::ParseWaitRow(row, &runs[r].jobs);
                  });
  }
  if (!s.ok()) return s;
  return runs;
}

}  // namespace utilsim
