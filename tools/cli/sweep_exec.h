// Running a sweep's runs (docs/sweeps.md): resolving a run's options as
// `utilsim run` would parse them, and the local executor. Private to the
// command line (cmd_sweep.cc); the sweep file, run identities, the output
// folder and the merge are utilsim::sweep's.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "utilsim/analysis/run_spec.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/inputs.h"
#include "utilsim/policies/registry.h"
#include "utilsim/sweep/sweep_spec.h"
#include "utilsim/sweep/sweep_store.h"

namespace utilsim::cli {

// What one run needs: built from its options, sharing inputs and policy
// registries with every other run of the same inputs in this process.
struct ResolvedRun {
  std::shared_ptr<const Inputs> inputs;  // after arrival-scale
  ClusterSpec cluster;                   // after cluster-scale
  RunSpec spec;
  std::string policy;
  std::shared_ptr<const PolicyRegistry> reg;
  std::string digest;  // sweep::RunDigest
  double cost = 0;     // expected relative cost
};

// Resolves runs of one sweep file. Options are those of `utilsim run`
// (long names without --) plus cluster-scale (> 0: every node group scaled,
// ScaleCluster) and arrival-scale (> 0: submission gaps divided by it, so
// 2 = twice the load; recorded starts dropped). Not allowed: out, csv,
// progress, threads, max-memory (the sweep's own). Input paths (trace,
// cluster, telemetry, util-library, node-list, profiles) may name
// environment variables as ${NAME}; relative ones are read from the sweep
// file's folder. Thread-safe; inputs are loaded once per
// distinct set of input options and kept.
class SweepResolver {
 public:
  explicit SweepResolver(std::string sweep_path);
  // Errors: "<sweep file>:<line>: option --<key>: <what>" (kInvalidArgument)
  // for an unknown option or a bad value; input errors as LoadInputs's.
  Result<ResolvedRun> Resolve(const sweep::SweepRun& run);
  // Distinct inputs loaded so far.
  size_t inputs_loaded() const;

 private:
  // One cache entry: loaded under its own lock (the map's lock mu_ is held
  // only to find or create the entry).
  struct Slot {
    std::mutex mu;
    std::shared_ptr<const Inputs> inputs;
    std::shared_ptr<const PolicyRegistry> reg;
  };
  std::shared_ptr<Slot> slot(std::map<std::string, std::shared_ptr<Slot>>& m,
                             const std::string& key);
  std::string path_, dir_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Slot>> inputs_, regs_;
};

// Expands and resolves a sweep on `workers` threads (distinct inputs load
// in parallel): every run with its digest and cost, in plan order.
// Errors: the spec's, a run's resolution. Runs that are the same run
// (same digest) are all kept; they share one result.
Result<std::vector<sweep::PlanEntry>> PlanSweep(const sweep::SweepSpec& spec,
                                                SweepResolver& resolver, int workers);

// Pending runs of `plan` (no result and, unless retry_failed, no failure
// record), each digest once, longest expected first (cost descending, then
// index).
std::vector<const sweep::PlanEntry*> PendingRuns(const std::string& out,
                                                 const std::vector<sweep::PlanEntry>& plan,
                                                 bool retry_failed);

struct ExecOptions {
  std::string out;
  int workers = 1;  // threads, each running one run at a time
  sweep::RunLimits limits;
  bool retry_failed = false;
  std::function<void(const std::string&)> say;  // one line per finished run; may be empty
};
struct ExecStats {
  int started = 0, done = 0, failed = 0, skipped = 0;
};

// Runs `runs` on `workers` threads (ParallelFor). A run whose result or failure record
// appeared meanwhile (another process) is skipped. Each finished run is
// written to OUT/runs/<digest>.db; a run that fails, passes limits.time or
// whose memory estimate passes limits.memory gets a failure record instead
// (recorded as data; the sweep goes on). Errors only when the folder
// cannot be written.
Result<ExecStats> ExecuteRuns(SweepResolver& resolver,
                              const std::vector<const sweep::PlanEntry*>& runs,
                              const ExecOptions& opt);

}  // namespace utilsim::cli
