// The report's Sweep section (report_sweep.h): reading sweep_runs and
// sweep_effects, the metric-against-axis charts, the status and effects tables.
#include "report_sweep.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "report_data.h"
#include "report_page.h"

namespace utilsim::report {
namespace {

using nlohmann::json;

// sweep_runs' own columns; every other column is a swept key.
const std::set<std::string> kFixedColumns = {"run_index", "digest", "status", "reason", "run_id"};

// Per kSweepMetrics metric: the chart id's suffix and the axis title.
constexpr std::array<const char*, 3> kMetricIds = {"wait", "allocation", "util"};
constexpr std::array<const char*, 3> kMetricTitles = {"mean queue wait (s)", "allocated GPUs (%)",
                                                      "effectively busy GPUs (%)"};

// Statuses in the order the status table lists them; others follow by name.
const std::vector<std::string> kStatusOrder = {"ok", "failed", "timeout", "memory", "pending"};

std::string Quoted(const std::string& id) {
  std::string q = "\"";
  for (char c : id) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string Text(sqlite3_stmt* st, int c) {
  const unsigned char* t = sqlite3_column_text(st, c);
  return t ? reinterpret_cast<const char*>(t) : "";
}

double Real(sqlite3_stmt* st, int c) {
  return sqlite3_column_type(st, c) == SQLITE_NULL ? std::nan("") : sqlite3_column_double(st, c);
}

// The database, open read-only; prepares statements and remembers the first
// error.
class Reader {
 public:
  explicit Reader(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) Fail();
  }
  ~Reader() { sqlite3_close(db_); }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Runs `sql`, calling row(stmt) for each row. False on an error (error()).
  template <typename F>
  bool Each(const std::string& sql, F row) {
    if (!error_.empty()) return false;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      Fail();
      return false;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) row(st);
    if (rc != SQLITE_DONE) Fail();
    sqlite3_finalize(st);
    return error_.empty();
  }
  bool HasTable(const std::string& name) {
    bool found = false;
    Each("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '" + name + "'",
         [&](sqlite3_stmt*) { found = true; });
    return found;
  }
  const std::string& error() const { return error_; }

 private:
  void Fail() {
    if (error_.empty()) error_ = db_ ? sqlite3_errmsg(db_) : "out of memory";
  }
  sqlite3* db_ = nullptr;
  std::string error_;
};

size_t MetricOrder(const std::string& metric) {
  for (size_t m = 0; m < kSweepMetrics.size(); ++m)
    if (metric == kSweepMetrics[m]) return m;
  return kSweepMetrics.size();
}

// A value as a sort key: NULL first, then numbers by value, then texts.
using ValueKey = std::tuple<int, double, std::string>;
ValueKey KeyOf(const SweepValue& v) {
  return {static_cast<int>(v.kind), v.kind == SweepValue::Kind::kNumber ? v.number : 0.0,
          v.kind == SweepValue::Kind::kText ? v.text : std::string()};
}

std::string Shown(const SweepValue& v) { return v.kind == SweepValue::Kind::kNull ? "-" : v.text; }

// "key=value key=value" over `keys` (positions in sweep.keys); `none` when
// there are none.
std::string Label(const SweepData& sweep, const SweepRow& row, const std::vector<size_t>& keys,
                  const std::string& none) {
  std::string l;
  for (size_t k : keys) l += (l.empty() ? "" : " ") + sweep.keys[k] + "=" + Shown(row.values[k]);
  return l.empty() ? none : l;
}

// Morris factors as column names ('-' written '_', as sweep merge does).
std::set<std::string> FactorColumns(const SweepData& sweep) {
  std::set<std::string> out;
  for (const auto& e : sweep.effects) {
    std::string c = e.factor;
    std::replace(c.begin(), c.end(), '-', '_');
    out.insert(c);
  }
  return out;
}

bool IsSeed(const std::string& key) { return key == "seed"; }

// Positions of the keys that get charts: numeric (every value a number or
// NULL, at least one number), at least two distinct values among the
// finished runs, neither seed nor a Morris factor.
std::vector<size_t> NumericAxes(const SweepData& sweep, const std::set<std::string>& factors) {
  std::vector<size_t> out;
  for (size_t k = 0; k < sweep.keys.size(); ++k) {
    if (IsSeed(sweep.keys[k]) || factors.count(sweep.keys[k])) continue;
    bool numeric = true;
    std::set<double> ok_values;
    for (const auto& r : sweep.rows) {
      const SweepValue& v = r.values[k];
      if (v.kind == SweepValue::Kind::kText) numeric = false;
      if (v.kind == SweepValue::Kind::kNumber && r.status == "ok") ok_values.insert(v.number);
    }
    if (numeric && ok_values.size() >= 2) out.push_back(k);
  }
  return out;
}

// Grid groups of a Morris sweep, in order: sweep merge numbers them (grp) in
// plan order, and each group's runs are consecutive and share the values of
// every key that is not a factor, which differ between neighbouring groups.
std::vector<std::string> GroupLabels(const SweepData& sweep, const std::set<std::string>& factors) {
  std::vector<size_t> grid;
  for (size_t k = 0; k < sweep.keys.size(); ++k)
    if (!factors.count(sweep.keys[k])) grid.push_back(k);
  std::vector<std::string> out;
  std::vector<ValueKey> last;
  for (size_t i = 0; i < sweep.rows.size(); ++i) {
    std::vector<ValueKey> now;
    for (size_t k : grid) now.push_back(KeyOf(sweep.rows[i].values[k]));
    if (i == 0 || now != last) out.push_back(Label(sweep, sweep.rows[i], grid, "all runs"));
    last = std::move(now);
  }
  return out;
}

std::string GroupName(const std::vector<std::string>& labels, int64_t grp) {
  return grp >= 0 && static_cast<size_t>(grp) < labels.size() ? labels[static_cast<size_t>(grp)]
                                                              : "group " + std::to_string(grp);
}

// Metric m against swept key `axis`: finished runs grouped by the axis value
// and the `by` keys; per group the mean, min and max over its runs.
Chart AxisChart(const SweepData& sweep, size_t axis, size_t m, const std::vector<size_t>& by) {
  struct Point {
    double sum = 0, lo = 0, hi = 0;
    size_t n = 0;
  };
  std::map<std::vector<ValueKey>, std::pair<std::string, std::map<double, Point>>> series;
  for (const auto& r : sweep.rows) {
    const double y = r.metrics[m];
    if (r.status != "ok" || r.values[axis].kind != SweepValue::Kind::kNumber || !std::isfinite(y))
      continue;
    std::vector<ValueKey> key;
    for (size_t k : by) key.push_back(KeyOf(r.values[k]));
    auto& s = series[key];
    if (s.first.empty()) s.first = Label(sweep, r, by, "all runs");
    Point& p = s.second[r.values[axis].number];
    p.lo = p.n == 0 ? y : std::min(p.lo, y);
    p.hi = p.n == 0 ? y : std::max(p.hi, y);
    p.sum += y;
    ++p.n;
  }
  json rows = json::array();
  json names = json::array(), colors = json::array();
  size_t most = 0;
  for (const auto& [key, s] : series) {
    colors.push_back(PaletteColor(names.size()));
    names.push_back(s.first);
    for (const auto& [x, p] : s.second) {
      rows.push_back({{"series", s.first},
                      {"x", Round(x, 6)},
                      {"mean", Round(p.sum / static_cast<double>(p.n), 3)},
                      {"lo", Round(p.lo, 3)},
                      {"hi", Round(p.hi, 3)},
                      {"runs", p.n}});
      most = std::max(most, p.n);
    }
  }
  const std::string& name = sweep.keys[axis];
  Chart c;
  c.id = "sweep-" + std::to_string(axis + 1) + "-" + kMetricIds[m];
  c.section = "sweep-axis";
  c.title = std::string(kMetricTitles[m]) + " against " + name + " (runs." + kSweepMetrics[m] + ")";
  if (rows.empty()) c.note = "No finished run has a value: nothing to draw.";
  c.rows = rows.size();
  c.spec = ChartBase(std::move(rows), 240);
  const json color = {{"field", "series"},
                      {"type", "nominal"},
                      {"scale", {{"domain", names}, {"range", colors}}},
                      {"legend", {{"orient", "bottom"}, {"title", nullptr}, {"labelLimit", 600}}}};
  c.spec["encoding"] = {
      {"x",
       {{"field", "x"}, {"type", "quantitative"}, {"title", name}, {"scale", {{"zero", false}}}}},
      {"color", color}};
  json line = {{"mark", {{"type", "line"}, {"point", true}, {"tooltip", true}}},
               {"encoding",
                {{"y", {{"field", "mean"}, {"type", "quantitative"}, {"title", kMetricTitles[m]}}},
                 {"order", {{"field", "x"}, {"type", "quantitative"}}}}}};
  c.spec["layer"] = json::array();
  if (most >= 2)  // the band: min..max over the runs of each point
    c.spec["layer"].push_back(
        {{"mark", {{"type", "area"}, {"opacity", 0.2}}},
         {"encoding",
          {{"y", {{"field", "lo"}, {"type", "quantitative"}, {"title", kMetricTitles[m]}}},
           {"y2", {{"field", "hi"}}}}}});
  c.spec["layer"].push_back(std::move(line));
  return c;
}

// mu* of each factor, per group, for one metric.
Chart EffectsChart(const SweepData& sweep, const std::string& metric, size_t pos,
                   const std::vector<std::string>& group_labels) {
  json rows = json::array();
  std::map<std::string, std::pair<double, size_t>> total;  // factor -> (sum of mu*, count)
  std::set<int64_t> groups;
  for (const auto& e : sweep.effects) {
    if (e.metric != metric) continue;
    rows.push_back({{"group", GroupName(group_labels, e.grp)},
                    {"factor", e.factor},
                    {"mu_star", Round(e.mu_star, 6)}});
    if (std::isfinite(e.mu_star)) total[e.factor].first += e.mu_star;
    ++total[e.factor].second;
    groups.insert(e.grp);
  }
  // Factors by mean mu* over the groups, largest first, then by name.
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [f, t] : total) order.push_back({-t.first / static_cast<double>(t.second), f});
  std::sort(order.begin(), order.end());
  json factors = json::array();
  for (const auto& o : order) factors.push_back(o.second);
  json group_names = json::array(), colors = json::array();
  for (int64_t g : groups) {
    colors.push_back(PaletteColor(group_names.size()));
    group_names.push_back(GroupName(group_labels, g));
  }
  Chart c;
  c.id = "sweep-effects-" + std::to_string(pos + 1);
  c.section = "sweep-effects";
  c.title = "Morris mu* per factor: " + metric;
  c.rows = rows.size();
  const size_t bars = std::max<size_t>(1, rows.size());
  c.spec = ChartBase(std::move(rows), static_cast<int>(std::max<size_t>(60, bars * 16 + 20)));
  c.spec["mark"] = {{"type", "bar"}, {"tooltip", true}};
  c.spec["encoding"] = {
      {"y", {{"field", "factor"}, {"type", "nominal"}, {"sort", factors}, {"title", nullptr}}},
      {"x",
       {{"field", "mu_star"},
        {"type", "quantitative"},
        {"title", "mu* (mean |elementary effect|)"}}}};
  if (groups.size() > 1) {
    c.spec["encoding"]["yOffset"] = {
        {"field", "group"}, {"type", "nominal"}, {"sort", group_names}};
    c.spec["encoding"]["color"] = {
        {"field", "group"},
        {"type", "nominal"},
        {"scale", {{"domain", group_names}, {"range", colors}}},
        {"legend", {{"orient", "bottom"}, {"title", "group"}, {"labelLimit", 600}}}};
  } else {
    c.spec["mark"]["color"] = PaletteColor(0);
  }
  return c;
}

// Metrics of sweep_effects in their order there.
std::vector<std::string> EffectMetrics(const SweepData& sweep) {
  std::vector<std::string> out;
  for (const auto& e : sweep.effects)
    if (out.empty() || out.back() != e.metric) out.push_back(e.metric);
  return out;
}

void StatusTable(std::ostream& os, const SweepData& sweep) {
  std::map<std::string, std::vector<const SweepRow*>> by;
  for (const auto& r : sweep.rows) by[r.status].push_back(&r);
  std::vector<std::string> order;
  for (const auto& s : kStatusOrder)
    if (by.count(s)) order.push_back(s);
  for (const auto& [s, rows] : by)
    if (std::find(kStatusOrder.begin(), kStatusOrder.end(), s) == kStatusOrder.end())
      order.push_back(s);
  constexpr size_t kReasons = 3;
  os << "<table id=\"sweep-status\"><thead><tr><th>status</th><th>runs</th><th>first runs "
        "(run_index: reason)</th></tr></thead><tbody>\n";
  for (const auto& s : order) {
    const auto& rows = by[s];
    os << "<tr><td>" << HtmlEscape(s) << "</td><td>" << Count(static_cast<int64_t>(rows.size()))
       << "</td><td class=\"text\">";
    if (s == "ok") {
      os << "-";
    } else {
      for (size_t i = 0; i < rows.size() && i < kReasons; ++i) {
        os << (i ? "; " : "") << "#" << rows[i]->run_index;
        if (!rows[i]->reason.empty()) os << ": " << HtmlEscape(rows[i]->reason);
      }
      if (rows.size() > kReasons)
        os << "; and " << Count(static_cast<int64_t>(rows.size() - kReasons)) << " more";
    }
    os << "</td></tr>\n";
  }
  os << "</tbody></table>\n";
}

void EffectsTables(std::ostream& os, const SweepData& sweep,
                   const std::vector<std::string>& group_labels, const std::vector<Chart>& charts) {
  const std::vector<std::string> metrics = EffectMetrics(sweep);
  std::set<int64_t> groups;
  for (const auto& e : sweep.effects) groups.insert(e.grp);
  const bool many = groups.size() > 1;
  for (size_t m = 0; m < metrics.size(); ++m) {
    os << "<h3>Effects on " << HtmlEscape(metrics[m]) << "</h3>\n<table id=\"sweep-effects-"
       << HtmlEscape(metrics[m]) << "\"><thead><tr>" << (many ? "<th>group</th>" : "")
       << "<th>rank</th><th>factor</th><th>mu*</th><th>mu</th><th>sigma</th><th>n</th></tr>"
          "</thead><tbody>\n";
    for (const auto& e : sweep.effects) {
      if (e.metric != metrics[m]) continue;
      os << "<tr>";
      if (many)
        os << "<td class=\"text\">" << HtmlEscape(GroupName(group_labels, e.grp)) << "</td>";
      os << "<td>" << e.rank << "</td><td class=\"text\">" << HtmlEscape(e.factor) << "</td><td>"
         << Fixed(e.mu_star, 3) << "</td><td>" << Fixed(e.mu, 3) << "</td><td>" << Fixed(e.sigma, 3)
         << "</td><td>" << e.n << "</td></tr>\n";
    }
    os << "</tbody></table>\n";
    const std::string id = "sweep-effects-" + std::to_string(m + 1);
    for (const auto& c : charts)
      if (c.id == id) ChartBlock(os, c);
  }
}

}  // namespace

Status ReadSweep(const std::string& db, SweepData* out, bool* found) {
  *out = SweepData{};
  *found = false;
  Reader rd(db);
  auto fail = [&]() { return Status::Error(db + ": cannot read the sweep tables: " + rd.error()); };
  const bool has_runs = rd.HasTable("sweep_runs");
  if (!rd.error().empty()) return fail();
  if (!has_runs) return Status::Ok();
  *found = true;
  rd.Each("SELECT name FROM pragma_table_info('sweep_runs') ORDER BY cid", [&](sqlite3_stmt* st) {
    const std::string c = Text(st, 0);
    if (!kFixedColumns.count(c)) out->keys.push_back(c);
  });
  std::string sql = "SELECT s.run_index, s.status, s.reason, s.run_id";
  for (const auto& k : out->keys) sql += ", s." + Quoted(k);
  for (const char* m : kSweepMetrics) sql += ", r." + Quoted(m);
  sql += " FROM sweep_runs s LEFT JOIN runs r ON r.run_id = s.run_id ORDER BY s.run_index";
  const int nk = static_cast<int>(out->keys.size());
  rd.Each(sql, [&](sqlite3_stmt* st) {
    SweepRow r;
    r.run_index = sqlite3_column_int64(st, 0);
    r.status = Text(st, 1);
    r.reason = Text(st, 2);
    r.run_id = sqlite3_column_type(st, 3) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 3);
    for (int k = 0; k < nk; ++k) {
      SweepValue v;
      switch (sqlite3_column_type(st, 4 + k)) {
        case SQLITE_NULL:
          break;
        case SQLITE_INTEGER:
        case SQLITE_FLOAT:
          v.kind = SweepValue::Kind::kNumber;
          v.number = sqlite3_column_double(st, 4 + k);
          v.text = Text(st, 4 + k);
          break;
        default:
          v.kind = SweepValue::Kind::kText;
          v.text = Text(st, 4 + k);
      }
      r.values.push_back(std::move(v));
    }
    for (size_t m = 0; m < kSweepMetrics.size(); ++m)
      r.metrics[m] = r.run_id > 0 ? Real(st, 4 + nk + static_cast<int>(m)) : std::nan("");
    out->rows.push_back(std::move(r));
  });
  rd.Each("SELECT value FROM meta WHERE key = 'sweep_name'",
          [&](sqlite3_stmt* st) { out->name = Text(st, 0); });
  out->has_effects = rd.HasTable("sweep_effects");
  if (out->has_effects)
    rd.Each("SELECT grp, factor, metric, mu, mu_star, sigma, n, rank FROM sweep_effects",
            [&](sqlite3_stmt* st) {
              SweepEffect e;
              e.grp = sqlite3_column_int64(st, 0);
              e.factor = Text(st, 1);
              e.metric = Text(st, 2);
              e.mu = Real(st, 3);
              e.mu_star = Real(st, 4);
              e.sigma = Real(st, 5);
              e.n = sqlite3_column_int64(st, 6);
              e.rank = sqlite3_column_int64(st, 7);
              out->effects.push_back(std::move(e));
            });
  if (!rd.error().empty()) return fail();
  std::sort(out->effects.begin(), out->effects.end(),
            [](const SweepEffect& a, const SweepEffect& b) {
              return std::make_tuple(MetricOrder(a.metric), a.metric, a.grp, a.rank, a.factor) <
                     std::make_tuple(MetricOrder(b.metric), b.metric, b.grp, b.rank, b.factor);
            });
  return Status::Ok();
}

std::vector<Chart> BuildSweepCharts(const SweepData& sweep) {
  std::vector<Chart> charts;
  const std::set<std::string> factors = FactorColumns(sweep);
  for (size_t axis : NumericAxes(sweep, factors)) {
    // Grouped by every other key but seed and the Morris factors.
    std::vector<size_t> by;
    for (size_t k = 0; k < sweep.keys.size(); ++k)
      if (k != axis && !IsSeed(sweep.keys[k]) && !factors.count(sweep.keys[k])) by.push_back(k);
    for (size_t m = 0; m < kSweepMetrics.size(); ++m)
      charts.push_back(AxisChart(sweep, axis, m, by));
  }
  const std::vector<std::string> labels = GroupLabels(sweep, factors);
  const std::vector<std::string> metrics = EffectMetrics(sweep);
  for (size_t m = 0; m < metrics.size(); ++m)
    charts.push_back(EffectsChart(sweep, metrics[m], m, labels));
  return charts;
}

void SweepSection(std::ostream& os, const SweepData& sweep, const std::vector<Chart>& charts) {
  const std::set<std::string> factors = FactorColumns(sweep);
  size_t ok = 0;
  for (const auto& r : sweep.rows) ok += r.status == "ok";
  os << "<h2 id=\"sweep\">Sweep</h2>\n<p class=\"explain\">Sweep <b>"
     << HtmlEscape(sweep.name.empty() ? std::string("(unnamed)") : sweep.name) << "</b> (meta "
     << "sweep_name): " << Count(static_cast<int64_t>(sweep.rows.size()))
     << " runs planned (table sweep_runs), " << Count(static_cast<int64_t>(ok))
     << " finished (status ok); each finished run is one run of this report, labelled "
        "<code>#run_index key=value ...</code>. Swept keys: ";
  for (size_t k = 0; k < sweep.keys.size(); ++k) {
    std::set<ValueKey> distinct;
    for (const auto& r : sweep.rows) distinct.insert(KeyOf(r.values[k]));
    os << (k ? ", " : "") << HtmlEscape(sweep.keys[k]) << " ("
       << Count(static_cast<int64_t>(distinct.size()))
       << (distinct.size() == 1 ? " value" : " values")
       << (factors.count(sweep.keys[k]) ? ", Morris factor" : "") << ")";
  }
  if (sweep.keys.empty()) os << "none";
  os << ".</p>\n";

  if (ok < sweep.rows.size()) {
    os << "<h3>Runs by status</h3>\n<p class=\"note\">"
       << Count(static_cast<int64_t>(sweep.rows.size() - ok)) << " of "
       << Count(static_cast<int64_t>(sweep.rows.size()))
       << " runs did not finish: they are left out of the charts below.</p>\n";
    StatusTable(os, sweep);
  }

  os << "<h3>Metrics against each numeric swept key</h3>\n";
  const bool any_axis = std::any_of(charts.begin(), charts.end(),
                                    [](const Chart& c) { return c.section == "sweep-axis"; });
  if (any_axis) {
    os << "<p class=\"explain\">For each swept key whose values are numbers and that takes at "
          "least two values among the finished runs (not <code>seed</code>"
       << (factors.empty() ? "" : ", nor a Morris factor")
       << "): mean queue wait (runs.wait_mean_s), allocated GPUs (runs.allocation_pct) and "
          "effectively busy GPUs (runs.effective_util_pct) against it. Only finished runs "
          "(status ok). The runs are grouped by the key's value and the values of every other "
          "swept key but <code>seed</code>"
       << (factors.empty() ? "" : " and the Morris factors")
       << "; each point is the mean over its group's runs (its seeds"
       << (factors.empty() ? "" : " and Morris points")
       << "), one line per combination of the other keys (named in the legend), and the band "
          "spans the group's minimum to maximum (drawn when a point has two runs or more).</p>\n";
    for (const auto& c : charts)
      if (c.section == "sweep-axis") ChartBlock(os, c);
  } else {
    os << "<p class=\"note\" id=\"sweep-no-axis\">No swept key has numbers for values and at "
          "least two of them among the finished runs (<code>seed</code>"
       << (factors.empty() ? "" : " and the Morris factors")
       << " excepted): no metric charts.</p>\n";
  }

  if (sweep.has_effects) {
    os << "<h3>Morris elementary effects</h3>\n<p class=\"explain\">Table sweep_effects (written "
          "by <code>sweep merge</code> for a Morris sweep): for each factor, mu* = mean "
          "|elementary effect| (its overall influence), mu = mean elementary effect (its sign), "
          "sigma = their standard deviation (non-linearity or interactions), n = elementary "
          "effects used; rank 1 is the largest mu*. One ranking per group: each combination "
          "of the other swept keys runs its own Morris design.</p>\n";
    if (sweep.effects.empty())
      os << "<p class=\"note\" id=\"sweep-no-effects\">Table sweep_effects is empty: no Morris "
            "group had all its runs finished with a value (<code>sweep merge</code> names the "
            "groups left out).</p>\n";
    EffectsTables(os, sweep, GroupLabels(sweep, factors), charts);
  }
}

}  // namespace utilsim::report
