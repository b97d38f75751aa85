// The discrete-event simulation of one cluster, one workload and one
// scheduler. An object, never a singleton: several simulations may run in one
// process on separate threads, as long as each has its own Scheduler.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>

#include "utilsim/engine/cluster_events.h"
#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/engine.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/metrics.h"
#include "utilsim/engine/power.h"
#include "utilsim/engine/progress.h"
#include "utilsim/engine/result_sink.h"
#include "utilsim/engine/scheduler.h"
#include "utilsim/engine/status.h"

namespace utilsim {

// Which period the summary's allocation and utilization figures measure.
enum class Window {
  // [first submit + warmup, last submit]: the period while the trace offers
  // load; excludes the drain after the last arrival (the usual choice for
  // steady-state figures). Falls back to kFull when that is empty.
  kArrivals,
  // [first submit, last finish] (or the stop time): everything.
  kFull,
};

// How a run records the cluster's state over time (docs/results.md, "The
// time series").
enum class SeriesForm : uint8_t {
  // kChanges when the workload would give no more change points than
  // samples: 2 x jobs + cluster events <= ticks from the first to the last
  // submission (a rule of the inputs alone, so deterministic).
  kAuto,
  // One point per instant at which the state changed (RunResult::changes),
  // exact for every figure that changes only at events; the fixed-interval
  // samples are derived from them (SamplesFromChanges).
  kChanges,
  // One sample per tick (RunResult::samples), as stored before schema 8.
  kSamples,
};
const char* SeriesFormName(SeriesForm f);  // "auto", "changes", "samples"

struct SimConfig {
  Micros sample_interval = Seconds(300);  // > 0: the ticks of the samples
  SeriesForm series = SeriesForm::kAuto;
  Micros horizon = kNever;       // events after this time are not processed
  uint64_t seed = 1;             // recorded in results; policies draw from it
  double price_per_gpu_h = 2.0;  // USD per GPU-hour, for the idle cost figure
  // Power of GPUs and nodes (power.h), for the energy figures; must pass
  // CheckPowerModel.
  PowerModel power = DefaultPowerModel();
  double energy_price_per_kwh = 0.10;  // USD per kWh (facility energy), >= 0
  // Powering off free nodes (docs/energy.md, "Powering off idle nodes"): a
  // node with nothing on it for `power_off_after` is switched off (no power,
  // hosts nothing); when queued jobs do not fit, off nodes are woken, and
  // host again `wake_delay` later. kNever = never switch off.
  Micros power_off_after = kNever;
  Micros wake_delay = Seconds(300);  // >= 0
  // Power budget (docs/energy.md, "Power budget"), IT watts, 0 = none: the
  // idle draw of the whole cluster (every GPU at idle power, every node's
  // non-GPU power) plus what allocated GPUs may add above idle, counted at
  // BudgetWatts (cap, else TDP, else active power) per whole GPU, never
  // exceeds power_budget_w; rack_power_budget_w is the same limit for each
  // rack of the topology. Jobs that would exceed it wait (kPowerBudget).
  double power_budget_w = 0;
  double rack_power_budget_w = 0;
  // Wait attribution detail: at the start of each wait interval with a
  // resource cause, count the nodes failing the job on each constraint
  // (WaitInterval::nodes; O(nodes) per interval, so off by default).
  bool wait_detail = false;
  Window window = Window::kArrivals;
  Micros warmup{0};  // skipped at the start of a kArrivals window
  // Work a preempted job loses (checkpoint interval + restart), in recorded
  // time: on preemption its progress goes back by this much (not below 0).
  Micros restart_cost{0};
  // Clusters that change (cluster_events.h, docs/cluster-events.md): node
  // downs, ups, drains, additions and removals, applied in time order (events
  // at or before the first submission set the initial state). Empty = a
  // constant cluster.
  std::vector<ClusterEvent> cluster_events;
  // Checkpoints of jobs a cluster event kills: such a job keeps its work up
  // to the last multiple of this interval (recorded time) and then loses
  // restart_cost more; kNever = no checkpoints, it restarts from the start.
  Micros checkpoint_interval = kNever;
  // Per job kind (JobKind order: unknown, training, inference), overriding
  // checkpoint_interval and restart_cost for kills by cluster events; unset =
  // those two.
  std::array<std::optional<Checkpointing>, 3> checkpoints_by_kind{};
  // Scheduling cycle (Slurm's sched_interval, a scheduler's loop period):
  // passes happen only at multiples of this on the workload's clock, so a
  // job waits for the next cycle; 0 = a pass at once after every arrival,
  // finish or change (the default).
  Micros pass_interval{0};
  // Share of a gang's recorded runtime spent communicating, for the default
  // progress model (WholeGpuProgress): 0..1.
  double comm_fraction = WholeGpuProgress::kDefaultCommFraction;
  // Progress model; nullptr = WholeGpuProgress(comm_fraction). Not owned.
  const ProgressModel* progress = nullptr;
  // Called for every event processed (engine.h: EventKind), with the run's
  // control: an observer may RequestStop() (plan stops hopeless runs so).
  // For golden event logs, progress bars, early stops; empty = none.
  EventObserver observer;
  // Fragmentation of the cluster at each sample, in milli-GPU (the tools set
  // the FGD measure, policies/fgd.h, over the workload's task shapes): fills
  // Sample::frag_gpu_milli and Summary::frag_mean_pct. Empty = not computed
  // (NaN). Called once per sample and, in the series form "changes", once
  // per change point at which the cluster's allocations changed (ClusterState
  // ::version), in time order, on the simulation's thread; it may keep state
  // (one hook per simulation).
  std::function<double(const ClusterState&)> fragmentation;
  // Streaming results (result_sink.h): every JobRecord, Sample and change
  // point is given to the sink as soon as it is final, on the driving thread. Not owned; it
  // must outlive the run (Finish). nullptr = none.
  ResultSink* sink = nullptr;
  // false: RunResult::jobs, ::samples and ::changes stay empty (a sink has
  // them) and
  // the run holds no rows, only a few figures per job for the summary;
  // RunResult::meta and ::summary are exactly those of a run with true.
  bool keep_rows = true;
  std::string workload_source;  // copied into RunMeta
  std::string input_digest;     // copied into RunMeta
};

// Runs the simulation to completion (or the horizon, or a stop requested by
// the observer): Engine::Create + RunUntil(kNever) + Finish. Errors: invalid
// cluster, a scheduler error, a placement that over-commits, a broken
// invariant. The workload must be Finalize()d (sorted by submit).
Result<RunResult> Simulate(const ClusterSpec& cluster, const Workload& w, Scheduler& scheduler,
                           const SimConfig& config);

// The version string compiled into the engine ("0.1.0").
const char* UtilsimVersion();

// Nearest-rank percentile (p in 0..100) of values; sorts a copy. 0 if empty.
double Percentile(std::vector<double> values, double p);

}  // namespace utilsim
