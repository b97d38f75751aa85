// The output folder of a sweep (docs/sweeps.md, "The output folder"):
//
//   OUT/sweep.yaml            the sweep file of the last `sweep run`/`plan`
//   OUT/plan.jsonl            one line per run of that file: index, digest,
//                             expected cost, swept values, all options
//   OUT/runs/<digest>.db      a finished run (results schema, one run)
//   OUT/runs/<digest>.fail.json  a run that failed or hit a limit, and why
//   OUT/log.jsonl             start / done / failed events, with wall time
//   OUT/slurm/                the Slurm executor's script and job ids
//
// A run's identity is its digest (RunDigest): the same options on the same
// inputs under the same utilsim version are the same run, wherever and
// whenever it ran, so a finished run is never redone (resume after a kill)
// and an edited sweep file reuses every run it still holds. Results and
// failure records are written atomically (TempFile), so a file that exists
// is complete. Runs in several processes (Slurm array tasks) share the
// folder: each writes only its own runs' files; the log is appended with
// O_APPEND, one write() per line.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/sweep/sweep_spec.h"

namespace utilsim::sweep {

// SHA-256 (hex, 64 characters) of "utilsim sweep run\n", the utilsim version,
// the inputs' digest (Inputs::digest: workload and cluster content) and
// CanonicalOptions(options).
std::string RunDigest(const std::string& input_digest, const std::vector<Param>& options);

struct PlanEntry {
  SweepRun run;
  std::string digest;
  double cost = 0;  // expected relative cost (longest-expected-first ordering)
};

std::string RunDbPath(const std::string& out, const std::string& digest);
std::string RunFailPath(const std::string& out, const std::string& digest);

enum class RunState { kPending, kDone, kFailed };
RunState StateOf(const std::string& out, const std::string& digest);

// Creates OUT and OUT/runs when missing (OUT's parent must exist). Refuses
// an OUT that is a file, link or other non-folder, and an OUT holding files
// that are not a sweep's (a folder with something else in it).
Status PrepareOutFolder(const std::string& out);

// Writes OUT/sweep.yaml (`spec_text`) and OUT/plan.jsonl atomically.
Status WritePlan(const std::string& out, const std::string& spec_text,
                 const std::vector<PlanEntry>& plan);
// Reads OUT/plan.jsonl (errors name the file and line).
Result<std::vector<PlanEntry>> ReadPlan(const std::string& out);

// Why a run has no results.
struct RunFailure {
  std::string status;  // "failed", "timeout" or "memory"
  std::string reason;  // one line
};
// Writes OUT/runs/<digest>.fail.json atomically.
Status RecordFailure(const std::string& out, const std::string& digest, const RunFailure& f);
Result<RunFailure> ReadFailure(const std::string& out, const std::string& digest);

// Appends one JSON object as a line to OUT/log.jsonl (one write(), O_APPEND).
// `event`: "start", "done", "failed"; `wall_s` < 0 = not written.
Status AppendLog(const std::string& out, const std::string& event, const PlanEntry& e,
                 double wall_s, const std::string& detail = "");
// The digests OUT/log.jsonl has a "done" event for (empty when there is no
// log; lines that do not parse are skipped: a kill may cut the last one).
std::set<std::string> LoggedDone(const std::string& out);

}  // namespace utilsim::sweep
