// CSV export of results: the same tables and columns as the result store
// (docs/results.md), one file per table.
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/metrics.h"
#include "utilsim/engine/status.h"

namespace utilsim {

// Writes `<dir>/runs.csv`, `<dir>/jobs.csv` and `<dir>/samples.csv`, each with
// a header line and the columns of the table of the same name (run_id first;
// run_id = position in `runs` + 1). Existing files are replaced.
//
// Format: RFC 4180 (comma-separated, "\n" line ends, text fields quoted when
// they hold a comma, quote or line break); numbers in the shortest form that
// reads back to the same double (std::to_chars); NULL and NaN as an empty
// field. Independent of the locale.
//
// Atomic per file: each file is written to `<file>.tmp-<pid>` and renamed into
// place; on failure the temporary file is removed. Files renamed before a
// failure stay (the set of three is not atomic as a whole).
//
// Errors: "<dir>: directory does not exist", or an I/O error naming the file.
Status ExportCsv(const std::vector<RunResult>& runs, const std::string& dir);

}  // namespace utilsim
