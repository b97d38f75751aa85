// The merge of a sweep's runs into one results database and CSV
// (sweep_merge.h).
#include "utilsim/sweep/sweep_merge.h"

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "utilsim/io/output_path.h"
#include "utilsim/results/result_store.h"
#include "utilsim/sweep/sweep_store.h"
#include "utilsim/traces/temp_file.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim::sweep {
namespace {

// The Morris outputs when the sweep file names no metrics.
const std::vector<std::string> kMorrisMetrics = {"wait_mean_s", "allocation_pct",
                                                 "effective_util_pct"};

std::string Column(const std::string& key) {
  std::string c = key;
  for (char& ch : c)
    if (ch == '-') ch = '_';
  return c;
}

std::string Quoted(const std::string& id) { return "\"" + id + "\""; }

bool AsNumber(const std::string& s, double* v) {
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), *v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(*v);
}

// A small RAII wrapper over one open database.
class Db {
 public:
  explicit Db(const std::string& path) : path_(path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      err_ = sqlite3_errmsg(db_);
    }
  }
  ~Db() { sqlite3_close(db_); }
  Status Exec(const std::string& sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
      std::string m = msg ? msg : "?";
      sqlite3_free(msg);
      return Status::Error(StatusCode::kIo, path_ + ": " + m);
    }
    return Status::Ok();
  }
  sqlite3* get() { return db_; }
  const std::string& error() const { return err_; }

 private:
  std::string path_, err_;
  sqlite3* db_ = nullptr;
};

// Columns of the runs table, in order.
std::vector<std::string> RunsColumns(Db& db) {
  std::vector<std::string> cols;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db.get(), "PRAGMA table_info(runs)", -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW)
    cols.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)));
  sqlite3_finalize(st);
  return cols;
}

struct RowOut {
  const PlanEntry* e;
  std::string status, reason;
  int run_id = 0;  // 0 = none
};

Status WriteSweepRuns(Db& db, const std::vector<RowOut>& rows,
                      const std::vector<std::string>& keys) {
  std::string ddl =
      "CREATE TABLE sweep_runs(run_index INTEGER PRIMARY KEY, digest TEXT NOT NULL, status TEXT "
      "NOT NULL, reason TEXT NOT NULL, run_id INTEGER";
  for (const auto& k : keys) ddl += ", " + Quoted(Column(k));
  ddl += ")";
  if (Status s = db.Exec(ddl); !s.ok()) return s;
  std::string ins = "INSERT INTO sweep_runs VALUES(?,?,?,?,?";
  for (size_t i = 0; i < keys.size(); ++i) ins += ",?";
  ins += ")";
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db.get(), ins.c_str(), -1, &st, nullptr) != SQLITE_OK)
    return Status::Error(StatusCode::kIo, sqlite3_errmsg(db.get()));
  for (const RowOut& r : rows) {
    sqlite3_reset(st);
    sqlite3_bind_int(st, 1, r.e->run.index);
    sqlite3_bind_text(st, 2, r.e->digest.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, r.status.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, r.reason.c_str(), -1, SQLITE_TRANSIENT);
    if (r.run_id > 0)
      sqlite3_bind_int(st, 5, r.run_id);
    else
      sqlite3_bind_null(st, 5);
    for (size_t k = 0; k < keys.size(); ++k) {
      const int col = static_cast<int>(6 + k);
      sqlite3_bind_null(st, col);
      for (const Param& p : r.e->run.swept) {
        if (p.key != keys[k]) continue;
        double v;
        int64_t i = 0;
        auto ri = std::from_chars(p.value.data(), p.value.data() + p.value.size(), i);
        if (ri.ec == std::errc() && ri.ptr == p.value.data() + p.value.size())
          sqlite3_bind_int64(st, col, i);
        else if (AsNumber(p.value, &v))
          sqlite3_bind_double(st, col, v);
        else
          sqlite3_bind_text(st, col, p.value.c_str(), -1, SQLITE_TRANSIENT);
      }
    }
    if (sqlite3_step(st) != SQLITE_DONE) {
      sqlite3_finalize(st);
      return Status::Error(StatusCode::kIo, sqlite3_errmsg(db.get()));
    }
  }
  sqlite3_finalize(st);
  return Status::Ok();
}

// The metric value of a run (NaN when NULL).
double Metric(Db& db, const std::string& metric, int run_id) {
  sqlite3_stmt* st = nullptr;
  const std::string q = "SELECT " + Quoted(metric) + " FROM runs WHERE run_id = ?";
  double v = std::nan("");
  if (sqlite3_prepare_v2(db.get(), q.c_str(), -1, &st, nullptr) == SQLITE_OK) {
    sqlite3_bind_int(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
      v = sqlite3_column_double(st, 0);
  }
  sqlite3_finalize(st);
  return v;
}

Status WriteEffects(Db& db, const MorrisDesign& design, const std::vector<RowOut>& rows,
                    const std::vector<std::string>& metrics, MergeStats* stats) {
  if (Status s = db.Exec(
          "CREATE TABLE sweep_effects(grp INTEGER NOT NULL, factor TEXT NOT NULL, metric TEXT "
          "NOT NULL, mu REAL, mu_star REAL, sigma REAL, n INTEGER, rank INTEGER, "
          "PRIMARY KEY(grp, metric, factor))");
      !s.ok())
    return s;
  std::map<int, std::vector<const RowOut*>> groups;
  for (const RowOut& r : rows) groups[r.e->run.morris_group].push_back(&r);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db.get(), "INSERT INTO sweep_effects VALUES(?,?,?,?,?,?,?,?)", -1, &st,
                     nullptr);
  for (const auto& [g, members] : groups) {
    for (const std::string& m : metrics) {
      std::vector<double> y(design.points.size(), std::nan(""));
      bool complete = members.size() == design.points.size();
      for (const RowOut* r : members) {
        const int p = r->e->run.morris_point;
        if (r->run_id <= 0 || p < 0 || p >= static_cast<int>(y.size())) {
          complete = false;
          continue;
        }
        y[p] = Metric(db, m, r->run_id);
        if (!std::isfinite(y[p])) complete = false;
      }
      if (!complete) {
        stats->notes.push_back("Morris group " + std::to_string(g) + ", " + m +
                               ": left out (a run is not finished or has no value)");
        continue;
      }
      auto eff = MorrisEffects(design, y);
      if (!eff.ok()) return eff.status();
      const std::vector<int> rank = MorrisRanking(eff.value());
      for (size_t pos = 0; pos < rank.size(); ++pos) {
        const MorrisEffect& e = eff.value()[rank[pos]];
        sqlite3_reset(st);
        sqlite3_bind_int(st, 1, g);
        sqlite3_bind_text(st, 2, e.factor.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, m.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(st, 4, e.mu);
        sqlite3_bind_double(st, 5, e.mu_star);
        sqlite3_bind_double(st, 6, e.sigma);
        sqlite3_bind_int(st, 7, e.n);
        sqlite3_bind_int(st, 8, static_cast<int>(pos + 1));
        if (sqlite3_step(st) != SQLITE_DONE) {
          sqlite3_finalize(st);
          return Status::Error(StatusCode::kIo, sqlite3_errmsg(db.get()));
        }
        ++stats->effects;
      }
    }
  }
  sqlite3_finalize(st);
  return Status::Ok();
}

void AppendCsvCell(sqlite3_stmt* st, int c, std::string* out) {
  switch (sqlite3_column_type(st, c)) {
    case SQLITE_NULL:
      return;
    case SQLITE_INTEGER: {
      char buf[32];
      auto r = std::to_chars(buf, buf + sizeof buf, sqlite3_column_int64(st, c));
      out->append(buf, r.ptr);
      return;
    }
    case SQLITE_FLOAT: {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, sqlite3_column_double(st, c));
      out->append(buf, r.ptr);
      return;
    }
    default:  // text, quoted as every CSV writer of utilsim quotes (text_writer.h)
      traces::AppendCsvField(out, reinterpret_cast<const char*>(sqlite3_column_text(st, c)));
  }
}

Status WriteCsv(Db& db, const std::string& path, const OutputGuard& guard) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db.get(), "SELECT * FROM sweep ORDER BY run_index", -1, &st, nullptr) !=
      SQLITE_OK)
    return Status::Error(StatusCode::kIo, sqlite3_errmsg(db.get()));
  std::string text;
  const int n = sqlite3_column_count(st);
  for (int c = 0; c < n; ++c) text += (c ? "," : "") + std::string(sqlite3_column_name(st, c));
  text += "\n";
  while (sqlite3_step(st) == SQLITE_ROW) {
    for (int c = 0; c < n; ++c) {
      if (c) text += ",";
      AppendCsvCell(st, c, &text);
    }
    text += "\n";
  }
  sqlite3_finalize(st);
  if (Status s = CheckOutput(path, guard); !s.ok()) return s;
  traces::AtomicFile f(path);
  if (Status s = f.Open(); !s.ok()) return s;
  if (Status s = f.Write(text); !s.ok()) return s;
  if (Status s = f.Close(); !s.ok()) return s;
  if (Status s = CheckOutput(path, guard); !s.ok()) return s;
  return f.Commit();
}

std::string Label(const PlanEntry& e) {
  std::string l = "#" + std::to_string(e.run.index);
  for (const Param& p : e.run.swept) l += " " + p.key + "=" + p.value;
  return l;
}

}  // namespace

Result<MergeStats> MergeSweep(const std::string& out, const MergeOptions& opt) {
  auto plan = ReadPlan(out);
  if (!plan.ok()) return plan.status();
  const std::string spec_path = out + "/sweep.yaml";
  std::ifstream sf(spec_path);
  std::stringstream ss;
  ss << sf.rdbuf();
  if (!sf) return Status::Error(StatusCode::kNotFound, spec_path + ": cannot read");
  auto spec = ParseSweepSpec(ss.str(), spec_path);
  if (!spec.ok()) return spec.status();
  MorrisDesign design;
  auto expanded = ExpandSweep(spec.value(), &design);
  if (!expanded.ok()) return expanded.status();
  if (expanded.value().size() != plan.value().size())
    return Status::Error(StatusCode::kInvalidArgument,
                         out + "/plan.jsonl: " + std::to_string(plan.value().size()) +
                             " runs, but " + spec_path + " expands to " +
                             std::to_string(expanded.value().size()) + "; rerun `sweep run`");

  MergeStats stats;
  stats.db = opt.db.empty() ? out + "/merged.db" : opt.db;
  stats.csv = opt.csv;
  const std::vector<NamedPath> inputs = {{"sweep folder", out + "/runs"},
                                         {"sweep folder", out + "/plan.jsonl"},
                                         {"sweep folder", spec_path},
                                         {"sweep folder", out + "/log.jsonl"}};
  const OutputGuard db_guard{"--db", inputs, false, "a SQLite results database"};
  const OutputGuard csv_guard{"--csv", inputs, false, "a CSV file"};
  if (Status s = CheckOutput(stats.db, db_guard); !s.ok()) return s;
  if (!stats.csv.empty()) {
    if (Status s = CheckOutput(stats.csv, csv_guard); !s.ok()) return s;
    if (Status s = CheckDistinctOutputs({{"--db", stats.db}, {"--csv", stats.csv}}); !s.ok())
      return s;
  }

  std::vector<RunResult> runs;
  std::vector<RowOut> rows;
  std::vector<std::string> keys;
  std::set<std::string> seen_keys;
  std::map<std::string, int> run_of;  // digest -> run_id of a finished run
  for (const PlanEntry& e : plan.value()) {
    for (const Param& p : e.run.swept)
      if (seen_keys.insert(p.key).second) keys.push_back(p.key);
    RowOut r{&e, "pending", "", 0};
    switch (StateOf(out, e.digest)) {
      case RunState::kDone: {
        if (auto same = run_of.find(e.digest); same != run_of.end()) {
          // The same run as an earlier row (a Morris point visited twice).
          r.status = "ok";
          r.run_id = same->second;
          ++stats.ok;
          break;
        }
        auto rr = ReadResults(RunDbPath(out, e.digest));
        if (!rr.ok()) return rr.status();
        if (rr.value().size() != 1)
          return Status::Error(StatusCode::kInvalidArgument,
                               RunDbPath(out, e.digest) + ": expected one run");
        runs.push_back(std::move(rr.value()[0]));
        runs.back().meta.label = Label(e);
        r.status = "ok";
        r.run_id = static_cast<int>(runs.size());
        run_of[e.digest] = r.run_id;
        ++stats.ok;
        break;
      }
      case RunState::kFailed: {
        auto f = ReadFailure(out, e.digest);
        if (!f.ok()) return f.status();
        r.status = f.value().status;
        r.reason = f.value().reason;
        ++stats.failed;
        break;
      }
      case RunState::kPending:
        ++stats.pending;
        break;
    }
    rows.push_back(r);
    ++stats.runs;
  }

  traces::TempFile tmp;
  if (Status s = tmp.Create(stats.db); !s.ok()) return s;
  tmp.CloseFd();
  const std::string tmp_path = traces::TempPathFor(stats.db);
  if (Status s = WriteResults(runs, tmp_path); !s.ok()) return s;
  {
    Db db(tmp_path);
    if (!db.error().empty()) return Status::Error(StatusCode::kIo, tmp_path + ": " + db.error());
    if (Status s = db.Exec("BEGIN"); !s.ok()) return s;
    if (Status s = WriteSweepRuns(db, rows, keys); !s.ok()) return s;
    const std::vector<std::string> cols = RunsColumns(db);
    std::vector<std::string> metrics = spec.value().metrics;
    for (const std::string& m : metrics)
      if (std::find(cols.begin(), cols.end(), m) == cols.end())
        return Status::Error(StatusCode::kInvalidArgument,
                             spec_path + ": field 'metrics': '" + m +
                                 "' is not a column of the runs table (docs/results.md)");
    if (metrics.empty()) {
      // Every summary column: from `jobs` on (the ones before describe the run).
      auto it = std::find(cols.begin(), cols.end(), "jobs");
      metrics.assign(it, cols.end());
    }
    std::string view = "CREATE VIEW sweep AS SELECT s.*";
    for (const auto& m : metrics) view += ", r." + Quoted(m);
    view += " FROM sweep_runs s LEFT JOIN runs r ON r.run_id = s.run_id";
    if (Status s = db.Exec(view); !s.ok()) return s;
    if (spec.value().morris) {
      const std::vector<std::string>& em =
          spec.value().metrics.empty() ? kMorrisMetrics : spec.value().metrics;
      if (Status s = WriteEffects(db, design, rows, em, &stats); !s.ok()) return s;
    }
    std::string name = spec.value().name;
    std::string esc;
    for (char c : name) esc += c == '\'' ? std::string("''") : std::string(1, c);
    if (Status s = db.Exec("INSERT INTO meta VALUES('sweep_name', '" + esc + "')"); !s.ok())
      return s;
    if (Status s = db.Exec("COMMIT"); !s.ok()) return s;
    if (!stats.csv.empty())
      if (Status s = WriteCsv(db, stats.csv, csv_guard); !s.ok()) return s;
  }
  if (Status s = CheckOutput(stats.db, db_guard); !s.ok()) return s;
  if (Status s = tmp.Commit(); !s.ok()) return s;
  return stats;
}

}  // namespace utilsim::sweep
