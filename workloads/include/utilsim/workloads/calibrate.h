// Calibration of the stall-decomposed progress model (docs/model.md
// "Calibration"): how much of a job's idle GPU time is CPU input starvation,
// estimated from short telemetry windows of GPU and host-CPU utilization.
//
// Data: per job, windows w (one per host and minute of the job's own run)
// holding the mean GPU utilization of the job's GPUs on that host and the
// machine's CPU utilization, both 0..1. Readers of concrete telemetry (e.g.
// traces::PhillyStartWindows) fill these plain structs; this module reads no
// files.
//
// Estimator (FitInputStalls). With GPU idle g_w = 1 - gpu_busy_w and CPU
// saturation above a threshold x_w = max(0, cpu_busy_w - theta):
//   pooled:     g_w = a + b x_w + e_w                      (OLS over all windows)
//   within-job: g_w - mean_j(g) = b (x_w - mean_j(x)) + e_w  (job fixed effects)
// solved by least squares (Eigen, column-pivoting QR), optionally weighting
// each job equally. theta is given or chosen by scanning a grid for the best
// R^2. The standard error of b is cluster-robust by job (windows of one job
// are not independent). A fit is `identified` only when at least
// min_active windows have cpu_busy > theta and x has spread.
//
// Attribution (ApplyInputStalls). For a job with windows W_j:
//   kFit:        i_c = mean_w min(g_w, max(0, b) x_w)
//   kSaturatedIdle (an upper bound, not an estimate):
//                i_c = mean_w g_w [cpu_busy_w >= theta]
// then clamped to [0, 1 - util - known storage/comm parts]. A negative b
// (more CPU use, less GPU idle) attributes nothing: i_c = 0.
//
// What it cannot identify: machine CPU includes co-located tenants; a
// single-threaded loader starves the GPU at low machine CPU; the windows
// cover the first minutes of a run, not all of it; association is not
// causation. docs/model.md states these with the fitted numbers.
// Thread-safety: pure functions; safe for concurrent calls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"

namespace utilsim {

// One minute of one job on one host.
struct CalibrationWindow {
  int32_t minute = 0;          // minutes since the job's start
  std::string host;            // host name ("" when unknown)
  double gpu_busy = 0;         // mean GPU utilization of the job's GPUs on the host, 0..1
  double cpu_busy = 0;         // the machine's CPU utilization, 0..1 (all tenants)
  int32_t host_gpus_used = 0;  // the job's GPUs on the host (0 = unknown)
  int32_t host_gpus = 0;       // GPUs of the host (0 = unknown)
};

// The windows of one job. `job` is Job::name.
struct JobWindows {
  std::string job;
  int32_t gpus = 0;  // total GPUs of the job (for class filters; 0 = unknown)
  std::vector<CalibrationWindow> windows;
  // Mean of gpu_busy over the windows (0 when there are none).
  double GpuMean() const;
};

enum class FitScope { kPooled, kWithinJob };
const char* FitScopeName(FitScope s);  // "pooled", "within-job"

struct FitOptions {
  double theta = 0.8;       // CPU saturation threshold, 0..1
  bool scan_theta = false;  // choose theta from theta_grid by best R^2
  std::vector<double> theta_grid = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
  FitScope scope = FitScope::kPooled;
  bool job_weighted = false;  // weight 1 / (windows of the job): every job counts once
  // Windows used: only hosts whose GPUs the job holds entirely (machine CPU
  // is then the job's own plus system overhead; needs host_gpus known).
  bool exclusive_hosts_only = false;
  // Job class: jobs with min_job_gpus <= gpus <= max_job_gpus (0 = no bound).
  int32_t min_job_gpus = 0, max_job_gpus = 0;
  // Fewest windows above theta for the fit to count as identified.
  int64_t min_active = 30;
};

// One candidate theta of a scan.
struct ThetaScanRow {
  double theta = 0, a = 0, b = 0, r2 = 0;
  int64_t n_active = 0;
};

struct CalibrationFit {
  FitScope scope = FitScope::kPooled;
  double theta = 0.8;
  double a = 0;     // intercept (within-job: grand mean of g - b x)
  double b = 0;     // GPU idle per unit CPU saturation above theta
  double b_se = 0;  // cluster-robust (by job) standard error of b
  double r2 = 0;    // (within-job: within) R^2
  int64_t n_windows = 0, n_jobs = 0;
  int64_t n_active = 0;                    // windows with cpu_busy > theta
  double mean_gpu_idle = 0, mean_cpu = 0;  // over the windows used
  bool identified = false;                 // n_active >= min_active and x has spread
  std::vector<ThetaScanRow> scan;          // filled when scan_theta
  // One line: "pooled theta=0.8: g = 0.606 + -5.51 x (se 0.42), R^2 0.0028, n 36757 windows / 5838
  // jobs, 209 above theta".
  std::string Summary() const;
};

// Least-squares fit over the windows of `jobs` selected by `opt`. Errors:
// theta outside 0..1, an empty grid when scanning, a window with
// gpu_busy/cpu_busy outside 0..1 or NaN (naming the job), fewer than 3
// windows selected, a singular design.
Result<CalibrationFit> FitInputStalls(const std::vector<JobWindows>& jobs,
                                      const FitOptions& opt = {});

enum class Attribution { kFit, kSaturatedIdle };

struct ApplyOptions {
  Attribution rule = Attribution::kFit;
  // > 0: set Job::host_cpu_used_milli (per task, where unknown) to the mean
  // over the job's hosts of cpu_busy x this x the task's GPUs — the
  // machine's CPU use shared by GPU, with this many milli-cores per GPU
  // assumed (as traces::ApplyPhillyWindows does with the node's cores).
  int64_t cpu_milli_per_gpu = 0;
};

struct ApplyReport {
  int64_t jobs_matched = 0;  // JobWindows entries naming a job of the workload
  int64_t util_set = 0;      // jobs whose util came from the windows
  int64_t input_set = 0;     // jobs whose stalls.input_cpu was set
  int64_t clamped = 0;       // of those, cut to fit 1 - util - other parts
  int64_t host_cpu_set = 0;
  int64_t above_0_1 = 0;      // jobs with input_cpu > 0.1
  double mean_input_cpu = 0;  // over input_set jobs
};

// For each entry of `jobs` naming a job of `w` that has windows: sets
// util from the windows' GPU mean where util_known is false (util_known =
// true), and, when the fit is identified (or the rule is kSaturatedIdle),
// stalls.input_cpu as in the header comment, never above
// 1 - util - max(0, input_storage) - max(0, comm). Jobs without windows keep
// their stalls unknown.
ApplyReport ApplyInputStalls(const CalibrationFit& fit, const std::vector<JobWindows>& jobs,
                             Workload* w, const ApplyOptions& opt = {});

// One window per job from lifetime averages, for traces that record a
// job's mean GPU utilization and its own mean CPU use but no time series
// (the PAI sensor table: gpu_wrk_util and cpu_usage per instance, read by
// traces::ReadPai into Job::util and Job::host_cpu_used_milli). For each
// job with GPUs, util_known, host_cpu_used_milli >= 0 and a CPU request:
//   gpu_busy = util,  cpu_busy = min(1, host_cpu_used_milli / cpu_milli)
// (the job's CPU use relative to its own request, not the machine's), host
// "", minute 0. Jobs are in workload order. With one window per job only the
// pooled fit is meaningful (within-job has nothing to compare).
std::vector<JobWindows> LifetimeWindows(const Workload& w);

}  // namespace utilsim
