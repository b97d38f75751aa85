// The sweep's Slurm executor (docs/sweeps.md, "On a Slurm cluster"): the
// pending runs become the tasks of `sbatch --array` jobs, chunked to the
// cluster's MaxArraySize (array indices must stay below it), with an
// optional %K limit on the tasks running at once. Each task runs
// `utilsim sweep task FILE --out OUT --task I`: the runs on line I of
// OUT/slurm/tasks.txt, in this process, sharing their inputs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/sweep/sweep_store.h"

namespace utilsim::cli {

struct SlurmSweepOptions {
  std::string slurm_bin;                 // folder of sbatch/squeue/scontrol ("" = PATH)
  int tasks = 0;                         // array tasks in all; 0 = one per pending run
  int max_parallel = 0;                  // the %K of --array; 0 = no limit
  int cpus_per_task = 1;                 // --cpus-per-task, and the task's worker threads
  std::vector<std::string> sbatch_args;  // passed to sbatch as given
  bool wait = false;                     // poll squeue until the jobs have left the queue
  int poll_s = 5;
};

// The cluster's MaxArraySize (`scontrol show config`), 1001 (Slurm's
// default) when it does not say.
Result<int> SlurmMaxArraySize(const std::string& slurm_bin);

// Writes OUT/slurm/tasks.txt and OUT/slurm/sweep.sbatch and submits the
// array jobs; returns their job ids (also appended to OUT/slurm/jobs.txt).
// `file` and `out` must be absolute. With wait, returns once squeue no
// longer lists them. Errors: sbatch's message, a task list that cannot be
// written.
Result<std::vector<std::string>> SubmitSweep(const std::string& utilsim, const std::string& file,
                                             const std::string& out,
                                             const std::vector<const sweep::PlanEntry*>& pending,
                                             const SlurmSweepOptions& opt,
                                             const std::function<void(const std::string&)>& say);

// Run indices of task `task` (line task of OUT/slurm/tasks.txt).
Result<std::vector<int>> SlurmTaskRuns(const std::string& out, int task);

// Job ids of OUT/slurm/jobs.txt (empty when none) and, per state, how many
// of their array tasks squeue and sacct report ("PENDING 3, RUNNING 2, ...").
std::vector<std::string> SlurmJobIds(const std::string& out);
std::string SlurmJobStates(const std::string& slurm_bin, const std::vector<std::string>& ids);

}  // namespace utilsim::cli
