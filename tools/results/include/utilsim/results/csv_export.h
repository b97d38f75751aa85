// CSV export of results: the same tables and columns as the result store
// (docs/results.md), one file per table.
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/metrics.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/output_path.h"

namespace utilsim {

// Writes `<dir>/runs.csv`, `jobs.csv`, `samples.csv` (every run's samples:
// the view `samples`), `waits.csv` and `change_points.csv` (the change points
// of the runs of series "changes"), each with a header line and the columns
// of the table of the same name (run_id first; run_id = position in `runs` +
// 1). Existing files are replaced.
//
// Format: RFC 4180 (comma-separated, "\n" line ends, text fields quoted when
// they hold a comma, quote or line break); numbers in the shortest form that
// reads back to the same double (std::to_chars); NULL and NaN as an empty
// field. Independent of the locale.
//
// Safe: the folder is checked by CheckOutputFolder and each file by
// CheckOutput(file, guard) (output_path.h: not an input, not a link, FIFO,
// device or folder) before anything is written and again before its rename.
// A missing folder is created (with its missing parents).
// Atomic per file: each file is written to `.<file>.utilsim-tmp-<pid>` beside
// it (utilsim/traces/temp_file.h) and renamed into place; on failure the
// temporary file is removed. Files renamed before a failure stay (the set of
// five is not atomic as a whole).
//
// Errors (message starts with guard.option, if any): CheckOutputFolder's and
// CheckOutput's, "<dir>: cannot create the folder: ...", or an I/O error
// naming the file.
Status ExportCsv(const std::vector<RunResult>& runs, const std::string& dir,
                 const OutputGuard& guard = {});

// The five files ExportCsv writes: <dir>/runs.csv, jobs.csv, samples.csv,
// waits.csv, change_points.csv.
std::vector<std::string> CsvExportPaths(const std::string& dir);

// ExportCsv's checks of `dir` and of its five files, without writing (the
// CLI runs them before a run starts).
Status CheckCsvExport(const std::string& dir, const OutputGuard& guard);

}  // namespace utilsim
