// The HTML report: one self-contained file (charts, tables, run metadata)
// that compares the runs of a results database, one per policy. It opens
// offline: the charting libraries (vega, vega-lite, vega-embed, pinned by
// tools/report/package-lock.json) and the data are inlined. What each chart
// shows and how it is computed: docs/report.md.
//
// Thread-safety: the functions share no state.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "utilsim/analysis/fgd_compare.h"
#include "utilsim/analysis/fgd_experiment.h"
#include "utilsim/engine/metrics.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/output_path.h"

namespace utilsim {

// Caps that keep the report small for any run size. Down-sampling is
// deterministic (no randomness), and the report states what it did.
struct ReportOptions {
  // Points per run of a time series: consecutive samples are averaged in
  // groups of ceil(samples / max_points). Must be >= 1.
  size_t max_points = 2000;
  // Points per run of a distribution (CDF): every value up to this many
  // values, else the nearest-rank quantiles at p = i / max_quantiles. >= 1.
  size_t max_quantiles = 500;
  // Rows of the tenant table (largest GPU-hours first); the rest are summed
  // into one row. >= 1.
  size_t max_tenants = 50;
  // Runs beyond which the per-run time series (allocated vs busy per run,
  // stranded GPUs and fragmentation over time) are not drawn: with more runs
  // than this they are unreadable, so a note says they were skipped and the
  // summary table still lists every run. 0: no limit.
  size_t max_series_runs = 12;
};

// Ok when this utilsim was built with the HTML report. A build without npm
// (or configured with UTILSIM_REPORT=OFF) has no charting libraries to inline;
// then this is the error "this utilsim was built without the HTML report (npm
// missing at build time); rebuild with npm" (the parenthesis and the advice
// name what the build lacked), BuildReportHtml returns "", and WriteReport and
// ReportFromDatabase return this error once their output path is checked.
Status CheckReportBuilt();

// The report of `runs` as HTML text. Deterministic: the same runs and options
// give the same bytes (no timestamps, no paths). Runs without samples or
// without finished jobs still get their (empty) charts, with a note. With
// more runs than opt.max_series_runs the per-run time series are not drawn
// (a note says so).
std::string BuildReportHtml(const std::vector<RunResult>& runs, const ReportOptions& opt = {});

// Writes BuildReportHtml(runs) to `path` atomically (a temporary file renamed
// into place, so a failure leaves no partial file and any old file intact;
// utilsim/traces/temp_file.h), or to standard output when `path` is "-" and
// guard.allow_stdout. `path` is checked by CheckOutput(path, guard)
// (output_path.h: not an input, not a link, FIFO, device or folder, its folder
// there) before the report is built and again just before the rename.
// Errors (message starts with guard.option, else with `path`): CheckOutput's
// (e.g. "<path>: directory <dir> does not exist", "<path>: is a directory
// (not a regular file); refusing to replace it"), "<path>: cannot write:
// <reason>", or a failed flush/rename. An empty `runs` is an error ("no runs
// to report"), then a build without the report (CheckReportBuilt, its message
// after guard.option).
Status WriteReport(const std::vector<RunResult>& runs, const std::string& path,
                   const ReportOptions& opt = {}, const OutputGuard& guard = {});

// Reads the results database `db` (ReadResults) and writes its report to
// `html`, which may not be `db` itself (it is added to guard.inputs as "the
// results database"). The output path is checked before the database is
// read, then CheckReportBuilt. A database written by `utilsim sweep merge`
// (it has table sweep_runs) also gets a "Sweep" section: metrics against each
// numeric swept axis (mean over seeds, min..max band), the runs that did not
// finish, and the Morris effects of table sweep_effects (docs/report.md,
// "Sweeps"). Errors, in addition to WriteReport's: "<db>: no such file",
// "<db>: not a SQLite file ...", "<db>: not a utilsim results database",
// "<db>: schema version X, expected 2 ...", "<db>: holds no runs", "<db>:
// cannot read the sweep tables: <SQLite's message>".
Status ReportFromDatabase(const std::string& db, const std::string& html,
                          const ReportOptions& opt = {}, const OutputGuard& guard = {});

// The FGD experiment's page (fgd-experiment --report; `utilsim report` of a
// file written by fgd-experiment --csv): a table at 100 % / 130 % arrived and
// three charts against arrived demand (allocation, fragmentation,
// fragmentation ratio), one line per policy (mean over seeds) and, dashed,
// the matching published curve of `published` (fgd_compare.h). "" in a build
// without the report. Deterministic.
std::string BuildFgdReportHtml(const std::vector<FgdCurve>& curves,
                               const std::vector<FgdPublished>& published,
                               const std::string& subtitle);
// Writes BuildFgdReportHtml atomically to `path` (or standard output for "-"
// with guard.allow_stdout), with WriteReport's checks and errors.
Status WriteFgdReport(const std::vector<FgdCurve>& curves,
                      const std::vector<FgdPublished>& published, const std::string& subtitle,
                      const std::string& path, const OutputGuard& guard = {});

}  // namespace utilsim
