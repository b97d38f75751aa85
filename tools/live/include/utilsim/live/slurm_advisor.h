// `utilsim slurm advise` (docs/live-slurm.md): a shadow advisor beside a
// running Slurm. Each poll reads Slurm's jobs and nodes (slurm_source.h),
// models the cluster (slurm_model.h), advises every pending GPU job, notes
// which advised jobs Slurm started and where, and, only with apply enabled,
// pins pending jobs of allowed partitions to the advised nodes.
//
// The advice log (JSON lines, "v":1, "t" = ms since the UNIX epoch):
//   {"v":1,"t":..,"event":"start","policy":..,"source":..,"slurm":"22.05.8",
//    "data_parser":"v0.0.38","apply":false}
//   {"v":1,"t":..,"event":"advice","job":"123","job_id":123,"partition":..,
//    "user":..,"account":..,"priority":..,"tasks":1,"gpus":4,"cpu_milli":..,
//    "mem_bytes":..,"gpu_model":"v100"|"","whole_node_memory":false,
//    "now":true,"nodes":["b1"],"placement":"b1:0,1,2,3","ranked":[["b1"],..],
//    "stranded_after":0,"est_start":unix_s|-1,"slurm_start":unix_s|-1,
//    "slurm_reason":"Resources","why":""}
//       written when a job's advice first appears and whenever its nodes,
//       "now", estimate or reason change;
//   {"v":1,"t":..,"event":"started","job":"123","job_id":123,
//    "slurm_nodes":["b2"],"advised":["b1"],"agree":false,"in_ranked":true,
//    "applied":false,"start":unix_s,"stranded_slurm":n,"advised_stranded":n}
//       the first poll that sees an advised job hold nodes;
//   {"v":1,"t":..,"event":"gone","job":..,"state":"CANCELLED"}
//   {"v":1,"t":..,"event":"poll_error","error":".."} (the first failed poll
//       of a streak; the first success after it:
//   {"v":1,"t":..,"event":"recovered","failed_polls":n,"down_s":s,
//    "last_error":".."})
// The apply log (with apply enabled) is separate:
//   {"v":1,"t":..,"event":"pin","job":..,"job_id":..,"partition":..,
//    "before":"","after":"b1","deadline":unix_s}
//   {"v":1,"t":..,"event":"unpin","job":..,"job_id":..,"to":"",
//    "why":"deadline"|"revert","ok":true,"error":""}
//   {"v":1,"t":..,"event":"pin_ended","job":..,"why":"started"|"gone",
//    "nodes":[..]}
//
// Robustness: a poll that fails (slurmctld down or restarting, a command
// timing out, a malformed answer) changes nothing and is counted; Run then
// waits poll_s x 2^k (up to max_backoff_s) before trying again, and keeps
// serving the last good state (its age in the metrics). The advisor only
// reads Slurm with ordinary client calls at the poll interval and writes
// only with apply enabled, rate-limited.
// Thread-safety: Poll and Run from one thread; MetricsText, AdviceJson,
// ready from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/live/jsonl_file.h"
#include "utilsim/live/prometheus.h"
#include "utilsim/live/slurm_model.h"
#include "utilsim/live/slurm_source.h"

namespace utilsim::live {

struct SlurmApplyOptions {
  bool enabled = false;
  std::vector<std::string> partitions;  // the allow-list (required when enabled)
  double max_per_minute = 6;            // pins per minute (token bucket)
  int64_t deadline_s = 600;             // a pin of a job still pending after this is removed
};

struct SlurmAdvisorOptions {
  SlurmAdviceOptions advice;
  int32_t poll_s = 30;
  int32_t max_backoff_s = 300;
  SlurmApplyOptions apply;
};

class SlurmAdvisor {
 public:
  // `source` must outlive the advisor; `advice_log`, `apply_log` (required
  // when apply is enabled) and `measured` may be null.
  SlurmAdvisor(SlurmAdvisorOptions options, SlurmSource* source, JsonlFile* advice_log,
               JsonlFile* apply_log, MeasuredUtil* measured);
  ~SlurmAdvisor();

  // One poll as of `now_unix_ms`. Error: Slurm could not be read or its
  // answer not understood (nothing changed).
  Status Poll(int64_t now_unix_ms);
  // Polls until `stop` (checked every 100 ms), with backoff after errors;
  // stops after `max_polls` polls when > 0.
  void Run(const std::atomic<bool>& stop, int64_t max_polls = 0);

  // Prometheus text of the latest state and the counters.
  std::string MetricsText() const;
  // {"time":..,"ready":..,"advice":[{..as the log's advice lines..}],
  //  "usage":{..}} of the latest good poll.
  std::string AdviceJson() const;
  bool ready() const;
  uint64_t polls_ok() const;
  uint64_t polls_failed() const;
  // The latest advice (tests, --once).
  std::vector<SlurmAdvice> advice() const;
  std::string last_error() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// `utilsim slurm advise --revert LOG`: every pin of the apply log that was
// neither removed nor ended is removed (the job's required nodes set back to
// what they were) when the job is still pending; each outcome is appended to
// the log as an "unpin" line with why "revert" and returned as a line of
// text. Error: the log cannot be read, Slurm cannot be read.
Result<std::vector<std::string>> RevertPins(const std::string& apply_log_path, SlurmSource* source,
                                            JsonlFile* apply_log);

}  // namespace utilsim::live
