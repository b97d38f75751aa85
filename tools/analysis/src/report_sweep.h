// Private: the "Sweep" section of the report, for a results database written
// by `utilsim sweep merge` (utilsim/sweep/sweep_merge.h): its tables
// sweep_runs and sweep_effects and meta key sweep_name, read here with SQLite
// directly (utilsim::analysis does not depend on utilsim::sweep, which
// depends on it), and the charts and tables built from them. What the section
// shows: docs/report.md, "Sweeps". Deterministic.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "report_charts.h"
#include "utilsim/analysis/report.h"
#include "utilsim/engine/metrics.h"
#include "utilsim/engine/status.h"

namespace utilsim::report {

// The runs columns drawn against each numeric swept key, in page order.
inline constexpr std::array<const char*, 3> kSweepMetrics = {"wait_mean_s", "allocation_pct",
                                                             "effective_util_pct"};

// One cell of a swept key's column of sweep_runs.
struct SweepValue {
  enum class Kind { kNull, kNumber, kText };
  Kind kind = Kind::kNull;
  double number = 0;  // kNumber
  std::string text;   // as shown: the text, or the number as SQLite prints it ("3", "0.75")
};

// One row of sweep_runs, with the kSweepMetrics of its run.
struct SweepRow {
  int64_t run_index = 0;
  std::string status;  // ok | failed | timeout | memory | pending
  std::string reason;
  int64_t run_id = 0;               // 0 when NULL (the run did not finish)
  std::vector<SweepValue> values;   // one per SweepData::keys
  std::array<double, 3> metrics{};  // kSweepMetrics of run run_id; NaN when none
};

// One row of sweep_effects (NULL numbers read as NaN).
struct SweepEffect {
  int64_t grp = 0;
  std::string factor, metric;
  double mu = 0, mu_star = 0, sigma = 0;
  int64_t n = 0, rank = 0;
};

struct SweepData {
  std::string name;               // meta sweep_name; "" when absent
  std::vector<std::string> keys;  // the swept columns of sweep_runs, in table order
  std::vector<SweepRow> rows;     // by run_index
  bool has_effects = false;       // the database has table sweep_effects
  // By metric (kSweepMetrics first, in that order, then by name), group, rank.
  std::vector<SweepEffect> effects;
};

// Reads the sweep tables of the results database `db`. Sets *found to false
// and returns Ok when it has no table sweep_runs (not a sweep). Errors:
// "<db>: cannot read the sweep tables: <SQLite's message>".
Status ReadSweep(const std::string& db, SweepData* out, bool* found);

// The section's charts, in page order: for each numeric swept key with at
// least two values among the finished runs (not seed, not a Morris factor
// named in sweep_effects), one chart per kSweepMetrics metric, ids
// "sweep-<key position, 1-based>-<wait|allocation|util>" (section
// "sweep-axis"); then one bar chart of mu* per metric of sweep_effects,
// "sweep-effects-<metric position, 1-based>" (section "sweep-effects").
std::vector<Chart> BuildSweepCharts(const SweepData& sweep);

// Writes the section: what was swept, the runs by status when one did not
// finish, the charts of `charts` (BuildSweepCharts), the effects tables.
void SweepSection(std::ostream& os, const SweepData& sweep, const std::vector<Chart>& charts);

// The report page; `sweep` (may be null) adds the Sweep section.
// BuildReportHtml(runs, opt) is BuildPage(runs, opt, nullptr).
std::string BuildPage(const std::vector<RunResult>& runs, const ReportOptions& opt,
                      const SweepData* sweep);

}  // namespace utilsim::report
