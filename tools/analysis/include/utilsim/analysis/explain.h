// `utilsim explain`: why one job of a run waited (docs/explain.md), from the
// run's results: its requests, its queued time by primary cause (wait.h) and
// the timeline of its wait intervals, each with what held it back — the job
// whose reservation blocked it, or for "queue-order" the jobs ahead of it in
// the queue that were waiting for resources when the interval began.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/metrics.h"
#include "utilsim/engine/status.h"

namespace utilsim {

struct ExplainAhead {
  JobIndex job = 0;
  std::string name;
  WaitCause cause = WaitCause::kCapacity;  // what that job was waiting on then
};

struct ExplainStep {
  WaitInterval interval;
  std::string blocker_name;  // interval.blocker's name, "" when none
  // For queue-order: the jobs submitted before it that were queued at the
  // interval's start and waiting on something other than the queue (up to
  // five, earliest submit first), and how many there were in all.
  std::vector<ExplainAhead> ahead;
  int64_t ahead_total = 0;
  // For capacity: the earliest time enough GPUs would have been free had the
  // jobs running at the interval's start ended at their recorded runtimes and
  // no other job started first (what the queue then implied, beside the
  // scheduler's own estimate, interval.estimate); kNever when unknown.
  Micros capacity_estimate = kNever;
};

struct Explanation {
  std::string run_label;
  JobRecord job;  // waits included
  std::vector<ExplainStep> steps;
};

// The job of `runs[run]` named `job` ("#<index>" selects by job index).
// Errors: no such run or job (the message names what there is).
Result<Explanation> ExplainJob(const std::vector<RunResult>& runs, const std::string& run_label,
                               const std::string& job);

// Plain text; JSON (one object).
std::string FormatExplanation(const Explanation& e);
std::string ExplanationJson(const Explanation& e);

}  // namespace utilsim
