#include "result_sql.h"

#include <string_view>
#include <utility>

#include "utilsim/results/result_store.h"

namespace utilsim::results {
namespace {

const char* SqlType(ColumnType t) {
  switch (t) {
    case ColumnType::kInteger:
      return "INTEGER";
    case ColumnType::kReal:
      return "REAL";
    case ColumnType::kText:
      return "TEXT";
  }
  return "";
}

std::string CreateSql(const Table& t) {
  std::string sql = std::string("CREATE TABLE ") + t.name + "(";
  for (size_t k = 0; k < t.columns.size(); ++k) {
    if (k) sql += ", ";
    sql += t.columns[k].name + " " + SqlType(t.columns[k].type);
    if (k == 0 && std::string_view(t.name) == "runs") sql += " PRIMARY KEY";
  }
  return sql + ")";
}

// The view `samples`: every run's state at its sample ticks. A run of
// series "samples" has its rows in interval_samples; for one of "changes"
// each tick k < sample_count, at sample_start + k x sample_interval (in
// integer microseconds, as the engine counts), shows the last change point
// at or before it. A point's time_s is its microseconds / 1e6, so "at or
// before the tick" is time_s <= (tick + 0.5 us) / 1e6, which keeps the
// lookup on the index.
std::string SamplesViewSql() {
  const Table& t = SamplesTable();
  std::string plain, derived;
  for (size_t k = 0; k < t.columns.size(); ++k) {
    const std::string& c = t.columns[k].name;
    plain += (k ? ", " : "") + c;
    if (c == "run_id")
      derived += "t.run_id";
    else if (c == "time_s")
      derived += ", t.us / 1e6";
    else
      derived += ", c." + c;
  }
  return "CREATE VIEW samples AS SELECT " + plain + " FROM interval_samples UNION ALL SELECT " +
         derived +
         " FROM (WITH RECURSIVE tick(run_id, k, n, t0, dt) AS ("
         "SELECT run_id, 0, sample_count, CAST(round(sample_start_s * 1e6) AS INTEGER), "
         "CAST(round(sample_interval_s * 1e6) AS INTEGER) FROM runs "
         "WHERE series = 'changes' AND sample_count > 0 "
         "UNION ALL SELECT run_id, k + 1, n, t0, dt FROM tick WHERE k + 1 < n) "
         "SELECT run_id, t0 + k * dt AS us FROM tick) t "
         "JOIN change_points c ON c.run_id = t.run_id AND c.time_s = "
         "(SELECT max(p.time_s) FROM change_points p WHERE p.run_id = t.run_id "
         "AND p.time_s <= (t.us + 0.5) / 1e6)";
}

}  // namespace

Status CheckResultsPath(const std::string& path, const OutputGuard& guard, OutputGuard* g) {
  *g = guard;
  g->allow_stdout = false;
  g->format = "a SQLite results database";
  if (path.empty())
    return Status::Error((g->option.empty() ? std::string() : g->option + ": ") +
                         "no path given for the results database");
  return CheckOutput(path, *g);
}

bool CreateResultSchema(Db& db) {
  // page_size must precede the first table. Without a journal a failed write
  // leaves a broken temporary file, which is removed anyway. Rows are only
  // appended, so a small page cache suffices (8 MiB; 32 MiB took 25 MiB more
  // of a 1M-job run's peak and was no faster: docs/performance.md).
  if (!db.Exec("PRAGMA page_size=4096; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
               "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-8192; BEGIN")) {
    return false;
  }
  if (!db.Exec("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")) return false;
  for (const Table* t :
       {&RunsTable(), &JobsTable(), &SamplesTable(), &ChangePointsTable(), &WaitsTable()}) {
    if (!db.Exec(CreateSql(*t))) return false;
  }
  if (!db.Exec("CREATE INDEX change_points_by_time ON change_points(run_id, time_s)")) return false;
  if (!db.Exec(SamplesViewSql())) return false;
  // Queued hours per run, tenant and cause, from the waits (docs/results.md).
  if (!db.Exec("CREATE VIEW waits_by_cause AS SELECT w.run_id AS run_id, j.tenant AS tenant, "
               "w.cause AS cause, COUNT(DISTINCT w.job_index) AS jobs, "
               "SUM(w.to_s - w.from_s) / 3600.0 AS wait_h FROM waits w JOIN jobs j "
               "ON j.run_id = w.run_id AND j.job_index = w.job_index "
               "GROUP BY w.run_id, j.tenant, w.cause")) {
    return false;
  }
  return true;
}

bool WriteMetaTable(Db& db, const std::string& utilsim_version) {
  Stmt meta;
  if (!meta.Prepare(db, "INSERT INTO meta(key, value) VALUES(?, ?)")) return false;
  const std::string schema = std::to_string(kResultsSchemaVersion);
  const std::pair<std::string, std::string> entries[] = {
      {"schema_version", schema}, {"utilsim_version", utilsim_version}, {"created_by", "utilsim"}};
  for (const auto& [key, value] : entries) {
    if (!InsertRow(meta.get(), {Cell::Text(key), Cell::Text(value)})) return false;
  }
  return true;
}

std::string InsertSql(const Table& t) {
  std::string sql = std::string("INSERT INTO ") + t.name + "(";
  for (size_t k = 0; k < t.columns.size(); ++k) sql += (k ? ", " : "") + t.columns[k].name;
  sql += ") VALUES(";
  for (size_t k = 0; k < t.columns.size(); ++k) sql += k ? ",?" : "?";
  return sql + ")";
}

bool InsertRow(sqlite3_stmt* st, const std::vector<Cell>& row) {
  static const char kEmpty[] = "";
  for (size_t k = 0; k < row.size(); ++k) {
    const Cell& c = row[k];
    int i = static_cast<int>(k) + 1, rc = SQLITE_OK;
    switch (c.kind) {
      case Cell::Kind::kNull:
        rc = sqlite3_bind_null(st, i);
        break;
      case Cell::Kind::kInt:
        rc = sqlite3_bind_int64(st, i, c.i);
        break;
      case Cell::Kind::kReal:
        rc = sqlite3_bind_double(st, i, c.d);
        break;
      case Cell::Kind::kText:
        rc = sqlite3_bind_text(st, i, c.s.data() ? c.s.data() : kEmpty,
                               static_cast<int>(c.s.size()), SQLITE_STATIC);
        break;
    }
    if (rc != SQLITE_OK) return false;
  }
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_DONE;
}

}  // namespace utilsim::results
