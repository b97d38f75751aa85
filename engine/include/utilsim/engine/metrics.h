// What a run reports (design §6): one record per job, periodic samples and a
// summary. Plain data; produced by Simulator, consumed by result writers.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "utilsim/engine/job.h"
#include "utilsim/engine/time.h"
#include "utilsim/engine/wait.h"

namespace utilsim {

enum class JobOutcome : uint8_t {
  kFinished = 0,
  kRejected,    // can never run on this cluster; reason given
  kUnfinished,  // still queued or running when the run stopped (horizon)
  kKilled,      // ended at its walltime limit before its work was done (Job::kill_at_limit)
};
const char* JobOutcomeName(JobOutcome o);

// Causes of allocated-but-idle GPU time. Issue 2's model attributes all idle
// time to kUnattributed; the co-resource model (issue 5) splits it.
enum class IdleCause : uint8_t {
  kUnattributed = 0,
  kInput,          // CPU preprocessing (input pipeline, CPU starvation)
  kCommunication,  // network / synchronisation
  kFixed,          // start-up, idle
  kSharing,        // waiting for co-runners on a shared GPU
  kStorage,        // storage reads
  kCount
};
const char* IdleCauseName(IdleCause c);

struct JobRecord {
  JobIndex job = 0;
  std::string name;
  uint32_t tenant = 0;
  JobOutcome outcome = JobOutcome::kFinished;
  std::string reason;  // why rejected (empty otherwise)
  Micros submit{0};
  Micros start{-1};  // first start; -1 if never started
  // Total time queued: every queued interval (submit to first start, each
  // preemption to the next start, and a last one still open when the run
  // stopped), seconds; -1 for rejected jobs.
  double queued_s = -1;
  Micros finish{-1};  // -1 if not finished
  Micros recorded_runtime{0};
  int32_t tasks = 1;
  int64_t gpu_milli = 0;    // total GPU share held while running, milli-GPU
  std::string placement;    // "node:gpu,gpu;node:gpu" (one ';'-separated entry per task), last run
  int32_t preemptions = 0;  // times the job was preempted
  // Cluster events (cluster_events.h): times a node the job ran on went down
  // under it (it was killed and queued again); GPU-seconds lost to those
  // kills and to preemptions (the GPUs held for the work that was redone
  // after its last checkpoint, plus the restart cost), at the rate the job
  // ran when stopped; effective training time ratio: (held time - lost
  // time) / (end - first start), the share of its time in the system since
  // it first started that made progress (1 without kills or preemptions; -1
  // when it never started; for an unfinished job up to the end of the run).
  int32_t interruptions = 0;
  double lost_gpu_s = 0;
  double ettr = -1;
  double alloc_gpu_s = 0;  // GPU-seconds allocated (held), over the run intervals
  // GPU-seconds busy: the integral over the run intervals of the GPU share
  // held x the progress model's busy fraction (what the samples show);
  // never more than alloc_gpu_s (an invariant of every run).
  double useful_gpu_s = 0;
  std::array<double, static_cast<size_t>(IdleCause::kCount)> idle_gpu_s{};  // by cause
  // Energy of the job's GPU share over its run intervals (power.h), kWh:
  // active power x busy GPU time + context power x idle GPU time; the idle
  // part apart. GPUs only: node overhead and PUE are run-level figures.
  double energy_kwh = 0, idle_energy_kwh = 0;
  // Queued time by primary cause (wait.h, WaitCause order), seconds; they sum
  // to queued_s. And the intervals themselves, in time order.
  std::array<double, kWaitCauses> wait_cause_s{};
  std::vector<WaitInterval> waits;

  double wait_s() const { return start.us < 0 ? -1 : (start - submit).seconds(); }
  double jct_s() const { return finish.us < 0 ? -1 : (finish - submit).seconds(); }
};

// State of the cluster at one instant.
struct Sample {
  Micros time{0};
  double gpus_allocated = 0;  // sum of allocated GPU shares, in GPUs
  double gpus_busy = 0;       // sum over running jobs of allocated GPUs x current busy fraction
  int64_t queued = 0;
  int64_t running = 0;
  double cpu_allocated_frac = 0;  // of total CPU
  double mem_allocated_frac = 0;  // of total memory
  int64_t gpus_free_whole = 0;    // GPUs with nothing allocated
  // Free whole GPUs on nodes whose free CPU or memory cannot host any GPU
  // task shape of the workload that needs at most those GPUs (StrandingTest).
  int64_t gpus_stranded = 0;
  // Allocated GPUs idle now, by cause (IdleCause order); they sum to
  // gpus_allocated - gpus_busy up to rounding.
  std::array<double, static_cast<size_t>(IdleCause::kCount)> gpus_idle{};
  // Fragmentation of the free GPU share now, milli-GPU (SimConfig::
  // fragmentation, e.g. the FGD measure); NaN when not computed.
  double frag_gpu_milli = std::numeric_limits<double>::quiet_NaN();
  // IT power now (power.h): every GPU at its state's power plus the powered
  // nodes' non-GPU power, watts (before PUE).
  double power_w = 0;
  // GPUs of nodes down now (cluster events: absent, maintenance, failure);
  // they are not capacity (gpus_free_whole excludes them).
  int64_t gpus_down = 0;
};

struct Summary {
  int64_t jobs = 0, finished = 0, rejected = 0, unfinished = 0;
  int64_t killed = 0;  // ended at their walltime limit (counted apart from finished)
  int64_t capacity_gpus = 0;
  // The measurement window the GPU-hour and percentage figures cover (see
  // SimConfig::window): job allocations are clipped to it.
  Micros window_start{0}, window_end{0};
  double alloc_gpu_h = 0;         // GPU-hours held by jobs inside the window
  double useful_gpu_h = 0;        // GPU-hours of busy work inside the window
  double idle_alloc_gpu_h = 0;    // alloc - useful
  double allocation_pct = 0;      // alloc / (capacity x window) x 100
  double effective_util_pct = 0;  // useful / (capacity x window) x 100
  double price_per_gpu_h = 0;     // stated price used for idle_cost
  double idle_cost = 0;           // idle_alloc_gpu_h x price
  // idle_alloc_gpu_h by cause (docs/model.md), pro rata inside the window.
  double idle_input_gpu_h = 0, idle_storage_gpu_h = 0, idle_comm_gpu_h = 0, idle_fixed_gpu_h = 0,
         idle_sharing_gpu_h = 0, idle_unattributed_gpu_h = 0;
  // Integrals over the window of the cluster's step functions:
  double stranded_gpu_h = 0;  // stranded GPUs (Sample::gpus_stranded), GPU-hours
  double cpu_alloc_pct = 0;   // mean CPU allocated, % of the cluster's CPU
  double mem_alloc_pct = 0;   // mean memory allocated, % of the cluster's memory
  // Sampled, not integrated (the measure is costly): mean over the window's
  // samples of frag_gpu_milli / free GPU share x 100 (samples with no free
  // GPU share left out); NaN when not computed.
  double frag_mean_pct = std::numeric_limits<double>::quiet_NaN();
  // Energy inside the window (power.h, docs/energy.md), kWh. IT energy =
  // busy + allocated-idle + free + node; free includes stranded.
  double energy_it_kwh = 0;
  double energy_busy_kwh = 0;        // jobs' GPUs: active power x busy GPU time
  double energy_alloc_idle_kwh = 0;  // jobs' GPUs: context power x idle GPU time
  std::array<double, static_cast<size_t>(IdleCause::kCount)> energy_idle_kwh{};  // ... by cause
  double energy_free_kwh = 0;      // GPU share held by no job (powered)
  double energy_stranded_kwh = 0;  // of which stranded GPUs
  double energy_node_kwh = 0;      // nodes' non-GPU parts
  double pue = 1;
  double energy_facility_kwh = 0;  // energy_it_kwh x pue
  double energy_price_per_kwh = 0;
  double energy_cost = 0;             // energy_facility_kwh x price
  double idle_alloc_energy_cost = 0;  // energy_alloc_idle_kwh x pue x price
  // Queued job-hours by primary cause (wait.h), summed over every job's
  // queued intervals (not clipped to the window, like the wait figures).
  std::array<double, kWaitCauses> wait_cause_h{};
  // Powering off idle nodes (SimConfig::power_off_after): GPU-hours of
  // capacity switched off inside the window, and wake-ups over the run.
  double off_gpu_h = 0;
  int64_t wakeups = 0;
  // Clusters that change (cluster_events.h): GPU-hours of capacity down
  // inside the window, by cause (absent: before a node was added or after it
  // was removed; maintenance; failure). The percentages refer to the GPU time
  // that was not down: capacity x window - these.
  double down_absent_gpu_h = 0, down_maintenance_gpu_h = 0, down_failure_gpu_h = 0;
  // Over the run (like the waits, not clipped to the window): jobs killed by
  // a node going down, the GPU-hours of work they lost (JobRecord::
  // lost_gpu_s, preemptions included), and the effective training time ratio
  // of the finished jobs (mean and 5th percentile; 1 without interruptions).
  int64_t interruptions = 0;
  double lost_gpu_h = 0;
  double ettr_mean = 1, ettr_p5 = 1;
  // Wait: submit to first start, over the jobs that started.
  double wait_mean_s = 0, wait_p50_s = 0, wait_p95_s = 0, wait_p99_s = 0, wait_max_s = 0;
  // Queued: total time queued (JobRecord::queued_s), over the same jobs; equal
  // to the wait unless jobs were preempted.
  double queued_mean_s = 0, queued_p50_s = 0, queued_p95_s = 0, queued_p99_s = 0, queued_max_s = 0;
  double jct_mean_s = 0, jct_p50_s = 0, jct_p95_s = 0;
  // Bounded slowdown: max(1, JCT / max(runtime, 10 s)).
  double slowdown_mean = 0, slowdown_p50 = 0, slowdown_p95 = 0;
  double makespan_s = 0;  // first submit to last finish (or the stop time)
  // Jain's fairness index over tenants' mean bounded slowdown (1 = fair).
  double tenant_fairness = 1;
  int64_t events = 0;  // events processed
};

struct RunMeta {
  std::string utilsim_version;
  std::string queue_policy, queue_policy_version;
  std::string placement_policy, placement_policy_version;
  // PolicyId::params of each: canonical "key=value,..." or "".
  std::string queue_policy_params, placement_policy_params;
  std::string label;  // policy label as given by the user, e.g. "best-fit"
  uint64_t seed = 0;
  std::string input_digest;  // hex digest of the workload and cluster
  std::string workload_source;
  std::string cluster_name;
  // The series (SimConfig::series, resolved): "changes" (RunResult::changes
  // holds the change points and ::samples is derived from them) or
  // "samples" (the samples were taken; no change points).
  std::string series = "samples";
  // The sample ticks: sample_count of them, sample_interval apart from
  // sample_start (the window's start); the same in both forms.
  Micros sample_interval{0};
  Micros sample_start{0};
  int64_t sample_count = 0;
  std::string progress_model;  // name of the progress model used
  std::string notes;           // e.g. profile attachment rule, warnings
};

struct RunResult {
  RunMeta meta;
  std::vector<JobRecord> jobs;
  // The state at each sample tick (meta.sample_count of them, in time order).
  std::vector<Sample> samples;
  // meta.series == "changes": the state after every instant at which it
  // changed, in time order; each point differs from the one before it in
  // some field other than time; the first is at the first tick. Between two
  // points the state is the earlier one, except the busy GPUs, idle GPUs by
  // cause and power of jobs with a utilization series, which change within
  // their series' steps and are recorded at each event and each tick.
  std::vector<Sample> changes;
  Summary summary;
};

// The fixed-interval view of a change-point series: for each of the `count`
// ticks start + k x interval, the last point at or before it, with the
// tick's time. False (and *out cleared) when a tick comes before the first
// point or the points are not in time order.
bool SamplesFromChanges(const std::vector<Sample>& changes, Micros start, Micros interval,
                        int64_t count, std::vector<Sample>* out);
// Whether two samples show the same state: every field but the time equal
// (doubles bit for bit, NaN equal to NaN).
bool SameState(const Sample& a, const Sample& b);

// The integrals over a measurement window that the engine accumulates
// during a run, from the jobs' run intervals and the cluster's state between
// events (exact, not sampled).
struct WindowTotals {
  double alloc_gpu_s = 0;                                                   // GPU share held
  double useful_gpu_s = 0;                                                  // busy GPU time
  std::array<double, static_cast<size_t>(IdleCause::kCount)> idle_gpu_s{};  // by cause
  double stranded_gpu_s = 0;
  double cpu_alloc_frac_s = 0;  // allocated / total CPU, integrated over seconds
  double mem_alloc_frac_s = 0;
  double energy_busy_j = 0;  // energy, joules (Summary's kWh figures)
  std::array<double, static_cast<size_t>(IdleCause::kCount)> energy_idle_j{};
  double energy_free_j = 0, energy_stranded_j = 0, energy_node_j = 0;
  double off_gpu_s = 0;                // GPU-seconds of powered-off nodes
  std::array<double, 3> down_gpu_s{};  // GPU-seconds of down nodes, by DownCause
};

// Summary figures: GPU-hours and percentages from `totals` over
// [window_start, window_end] (capacity_gpus x that window is the GPU time the
// percentages refer to); counts, waits, queued times, JCT, slowdown and
// fairness from the per-job records. Percentiles use the nearest-rank method.
// Wait and queued figures cover every job that started; JCT and slowdown
// cover finished jobs.
Summary ComputeSummary(const std::vector<JobRecord>& jobs, const WindowTotals& totals,
                       int64_t capacity_gpus, Micros window_start, Micros window_end,
                       double makespan_s, double price_per_gpu_h);

// Fills the energy figures of s from t (the window's joules), the PUE and the
// energy price per kWh.
void AddEnergyFigures(const WindowTotals& t, double pue, double price_per_kwh, Summary* s);

// Fills the sampled figure of s (frag_mean_pct) from the samples taken in
// [s.window_start, s.window_end).
void AddSampleFigures(const std::vector<Sample>& samples, Summary* s);

}  // namespace utilsim
