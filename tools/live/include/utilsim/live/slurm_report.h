// `utilsim shadow-report ADVICE_LOG --sacct HISTORY` for the Slurm advisor
// (docs/live-slurm.md, "What Slurm did against what utilsim advised"): the
// advice log of `utilsim slurm advise` (slurm_advisor.h) beside the
// accounting history of the same period (sacct, read by traces/sacct.h).
//
// Per advised job: the nodes utilsim advised (the last advice before the
// start), the nodes Slurm chose (the advice log's "started" line, else
// sacct's NodeList), whether they agree (the same set of nodes) or Slurm's
// choice was one of the ranked alternatives, whether the job was pinned by
// apply mode, its recorded wait (sacct: Start - Eligible) against utilsim's
// estimate at the first advice, and the GPUs left stranded (free, but the
// node's CPUs or memory gone) on Slurm's nodes when it started against on
// the advised nodes had it gone there.
// Overall: jobs advised, started, agreement, pins, recorded waits of the
// advised jobs (mean, p50, p95), stranded GPUs each way, the outage lines.
// The offline replay of the same history under Slurm's decisions and under
// the advised policy is the command line's part (it runs simulations).
// Reading: a last line cut short is skipped with a warning; any other bad
// line is an error "<file>:<line>: ...". Never throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/status.h"

namespace utilsim::live {

struct SlurmReportRow {
  std::string job;
  std::vector<std::string> advised, slurm;
  bool started = false, agree = false, in_ranked = false, applied = false;
  int64_t first_advice_unix = 0;  // when utilsim first advised it
  int64_t est_start_unix = -1;    // utilsim's estimate then (-1 none)
  int64_t start_unix = 0;         // Slurm's start (0 unknown)
  double recorded_wait_s = -1;    // sacct Start - Eligible (-1 not in the history)
  int32_t stranded_slurm = -1, advised_stranded = -1;  // -1 unknown
};

struct SlurmReport {
  std::string path, policy, slurm;
  int64_t lines = 0, first_ms = 0, last_ms = 0;
  int64_t advised = 0, started = 0, agree = 0, in_ranked = 0, applied = 0, gone = 0;
  int64_t poll_errors = 0, recoveries = 0;
  int64_t in_history = 0;  // advised jobs found in the sacct history
  double wait_mean_s = 0, wait_p50_s = 0, wait_p95_s = 0;
  int64_t stranded_slurm = 0, advised_stranded = 0;  // sums over started jobs
  std::vector<SlurmReportRow> rows;                  // by first advice
  std::vector<std::string> warnings;
};

// True when `path` is an advice log of `utilsim slurm advise` (its first
// complete line is an advisor event: "start", "advice" or "poll_error").
bool IsSlurmAdviceLog(const std::string& path);

// `sacct_path` "" = no history (waits unknown, Slurm's nodes from the log).
Result<SlurmReport> ReadSlurmReport(const std::string& path, const std::string& sacct_path);
std::string FormatSlurmReport(const SlurmReport& r, bool per_job);
std::string SlurmReportJson(const SlurmReport& r);

}  // namespace utilsim::live
