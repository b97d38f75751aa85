// Fidelity of a replay: simulated against recorded per-job waits and starts,
// for traces that recorded their schedule (AAIC, openb, SWF, ...).
#pragma once

#include <string>
#include <vector>

#include "utilsim/analysis/runner.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/metrics.h"

namespace utilsim {

struct WaitFidelity {
  int64_t jobs = 0;  // jobs with a recorded start that the run started
  double recorded_mean_s = 0, simulated_mean_s = 0;
  double mae_s = 0;          // mean |simulated wait - recorded wait|
  double median_ae_s = 0;    // median of the same
  double start_mae_s = 0;    // mean |simulated start - recorded start| (= wait MAE)
  double spearman = 0;       // rank correlation of per-job waits (average ranks for ties)
  double daily_pearson = 0;  // Pearson correlation of daily mean waits (by submit day)
  int64_t days = 0;
  // The recorded waits' latency floor (trace_evidence.h) and the rank
  // correlation over the jobs whose recorded wait is above it: below the
  // floor, waits differ by the scheduler's cycle only and rank at random.
  double latency_floor_s = 0;
  int64_t jobs_above_floor = 0;
  double spearman_above_floor = 0;
  // Quantiles (p) of the two wait distributions, side by side.
  std::vector<double> quantile_p;
  std::vector<double> recorded_q, simulated_q;
};

// Compares run `r` of workload `w` with the starts `w` recorded.
WaitFidelity CompareWaits(const Workload& w, const RunResult& r);

// Spearman's rho with average ranks for ties; 0 when fewer than 2 values or
// a constant series. Exposed for tests.
double Spearman(const std::vector<double>& a, const std::vector<double>& b);
double Pearson(const std::vector<double>& a, const std::vector<double>& b);

// A fixed-width table of several fidelity results (one column per label).
std::string FormatFidelity(const std::vector<std::string>& labels,
                           const std::vector<WaitFidelity>& f);

// A replay at several cluster sizes (`utilsim validate`): `policy` on `in`
// with its single node group resized to each of `sizes` (empty: the cluster
// as loaded), every size at once on its own thread (spec.threads is
// ignored; spec.progress gets one slot per size), each compared with the
// recorded starts. Errors: no job has a recorded start, sizes for a cluster
// of several node groups, a run error.
// What `validate --infer` replays from the record (trace_evidence.h,
// docs/validation.md): the capacity in service per window, the outages, the
// scheduling cycle.
struct ValidateInference {
  Micros window = Seconds(86400);         // capacity steps (PeakGpusInUse)
  Micros outage_gap = Seconds(6 * 3600);  // FindStartGaps
  // Pass interval = the latency floor (LatencyFloorSeconds: twice the 10th
  // percentile of the recorded waits), so the cycle adds waits of 0 to the
  // floor, mean its half: the 10th percentile.
  bool latency = true;
};

struct SizedValidation {
  int64_t with_start = 0;           // jobs with a recorded start
  std::vector<std::string> labels;  // "N nodes", in the order of sizes
  std::vector<WaitFidelity> fidelity;
  std::vector<RunResult> runs;  // labelled "POLICY @ N nodes"
  size_t best = 0;              // the size of lowest wait MAE
  std::string inferred;         // with inference: what was inferred, one line
  // With inference, per size: the events replayed, the group's grown size,
  // and the scheduling cycle.
  std::vector<std::vector<ClusterEvent>> events;
  std::vector<int64_t> total_nodes;
  Micros pass_interval{0};
};
// With `infer`, each size's cluster follows the record's evidence
// (InferredEvents over the size as base; a single node group only) and
// passes run at the latency floor's cycle; labels stay the base sizes.
Result<SizedValidation> ValidateAtSizes(const Inputs& in, const PolicyRegistry& reg,
                                        const std::string& policy, const std::vector<int>& sizes,
                                        const RunSpec& spec,
                                        const ValidateInference* infer = nullptr);

}  // namespace utilsim
