// `utilsim sweep merge OUT`: one results database for a whole sweep
// (docs/sweeps.md, "Merged results"). It holds
//  - every finished run, in plan order (a run the plan holds twice, once),
//    as a run of the results schema
//    (docs/results.md: runs, jobs, samples; run_id = 1, 2, ... over the
//    finished runs; label "#<index> key=value ...");
//  - table sweep_runs: one row per run of the plan, finished or not:
//    run_index, digest, status (ok | failed | timeout | memory | pending),
//    reason, run_id (NULL unless ok), then one column per swept key (the key
//    with '-' as '_'; numbers stored as numbers, other values as text);
//  - view sweep: sweep_runs joined with the runs' summary metrics (the
//    sweep file's `metrics`, default every summary column of runs);
//  - table sweep_effects (Morris sweeps): for each grid combination (grp),
//    factor and metric: mu, mu_star, sigma, n and the factor's rank by mu*;
//  - meta key sweep_name.
// The CSV (when asked) is the view `sweep`, one row per run. The same runs
// give a byte-identical file whichever executor ran them: nothing
// time- or host-dependent is stored.
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/status.h"

namespace utilsim::sweep {

struct MergeOptions {
  std::string db;   // the merged database to write ("" = OUT/merged.db)
  std::string csv;  // the CSV of the view sweep ("" = none)
};

struct MergeStats {
  int runs = 0, ok = 0, failed = 0, pending = 0;
  int effects = 0;                 // rows of sweep_effects
  std::string db, csv;             // what was written
  std::vector<std::string> notes;  // e.g. Morris groups left out
};

// Errors: no plan in OUT, a run database that cannot be read, an output
// that would replace an input or a link (output_path.h rules).
Result<MergeStats> MergeSweep(const std::string& out, const MergeOptions& opt);

}  // namespace utilsim::sweep
