// Console rendering of run summaries: plain ASCII, fixed-width, deterministic
// (fixed precision, locale-independent), lines end with "\n" and carry no
// trailing spaces.
//
// Units: percentages with one decimal ("72.4 %"); GPU-hours with one decimal;
// money with two; durations in a unit chosen per value with one decimal:
// "42.0 s" below a minute, "4.2 min" below an hour, "3.5 h" above; "n/a" for
// NaN.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "utilsim/engine/metrics.h"

namespace utilsim {

// A table with one row per metric and one column per run (headed by its
// label, or "run N" when the label is empty). Rows: jobs finished / rejected /
// unfinished, allocation, effective utilization, allocated GPU-h, useful
// GPU-h, idle allocated GPU-h, idle cost (with the price), wait p50 / p95 /
// p99, mean JCT, mean bounded slowdown, makespan.
//
// Every run other than `baseline` is followed by a column of deltas against
// the baseline: signed counts for jobs ("+2"), percentage points for
// percentages ("+3.1 pp"), and relative change for the rest ("-12.0 %";
// "n/a" when the baseline value is 0 and the run's is not).
// `baseline` indexes `runs`; when it is out of range no deltas are shown.
// Returns "" for no runs.
std::string FormatComparison(const std::vector<RunResult>& runs, size_t baseline);

// A two-column "name  value" listing of one run: its identity (label,
// policies, seed, workload, cluster) and every Summary figure.
std::string FormatSummary(const RunResult& run);

}  // namespace utilsim
