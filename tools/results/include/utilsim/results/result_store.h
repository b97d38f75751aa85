// The result store: one SQLite database holding one or more runs (a `compare`
// writes all its policies into one file). The schema (tables meta, runs, jobs,
// interval_samples, change_points, waits, the views samples and
// waits_by_cause; every column and its unit) is documented in docs/results.md.
//
// Thread-safety: the functions share no state; concurrent calls are safe as
// long as they name different paths.
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/metrics.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/output_path.h"

namespace utilsim {

// Version of the database layout; ReadResults accepts only this version.
inline constexpr int kResultsSchemaVersion = 8;

// The column-name form of a wait cause ("co-resource" -> "co_resource"), as
// in jobs.wait_<cause>_s and runs.wait_<cause>_h (docs/results.md).
std::string WaitCauseColumn(WaitCause c);

// Writes `runs` (run_id = position + 1) to a new database at `path`, replacing
// the regular file already there, if any.
//
// Safe: `path` is checked by CheckOutput(path, guard) (output_path.h: not an
// input in guard.inputs, not a link, FIFO, device or folder, its folder
// there; "-" is refused, a database cannot go to standard output) before
// anything is written and again just before the rename.
// Atomic: the data is written to the temporary file `.<name>.utilsim-tmp-<pid>`
// beside `path` (utilsim/traces/temp_file.h; removed on SIGINT/SIGTERM),
// flushed to disk and then renamed over `path`; on any failure the temporary
// file is removed and `path` is left as it was, so a complete-looking file is
// always a complete one.
// Deterministic: the same runs give a byte-identical file (no timestamps,
// fixed page size, fixed insertion order), given the same SQLite version.
//
// Errors (message starts with guard.option, else with `path`): CheckOutput's
// (e.g. "<path>: directory <dir> does not exist", "<path>: is a directory
// (not a regular file); refusing to replace it"), or SQLite or the file
// system failed (SQLite's message is included).
//
// Values: times are stored as REAL seconds and read back rounded to the
// microsecond, exact for times up to about 71 years; NaN doubles are stored as
// NULL; seeds >= 2^63 are stored as the negative int64 with the same bits.
Status WriteResults(const std::vector<RunResult>& runs, const std::string& path,
                    const OutputGuard& guard = {});

// Reads a database written by WriteResults. Every field of every run equals
// the written value (NaN reads back as NaN); a run of series "changes" gets
// its samples derived from its change points (SamplesFromChanges), so
// RunResult::samples is every run's fixed-interval view. WriteResults writes
// a run's samples or (series "changes") its change points, not both.
//
// Errors: "<path>: no such file", "<path>: not a utilsim results database",
// "<path>: schema version X, expected 1", or a corrupt/unreadable value.
Result<std::vector<RunResult>> ReadResults(const std::string& path);

}  // namespace utilsim
