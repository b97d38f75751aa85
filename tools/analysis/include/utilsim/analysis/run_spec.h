// The typed description of a run (everything but the inputs and the
// policy), and BuildRun, the one place that assembles a simulation from it:
// the workload transforms, the MIG cluster, the placement and scheduler
// decorators, the progress model and the samplers, applied in this order
// (docs/embedding.md, "Running a study"):
//
//   1. host-request scaling       (host_scale: workload copy, noted)
//   2. MIG                        (mig: expanded cluster + right-sized jobs,
//                                  or dynamic sizing + a repartitioning
//                                  decorator on every placement; noted)
//   3. GPU reservation            (gpu_reserve: placement decorator)
//   4. co-resource CPU allocation (cpu_alloc: scheduler decorator)
//   5. progress model             (model, comm_fraction)
//   6. GPU sharing                (sharing: exclusive rounds the workload up,
//                                  timeslice / mps wrap the model)
//   7. MIG progress wrap          (instances run at their slice speed)
//   8. fragmentation sampler      (when a request is fractional)
//
// Illegal combinations are errors of BuildRun (StatusCode::kInvalidArgument,
// message naming the RunSpec field): MIG with sharing other than
// fractional, MIG on a cluster without MIG layouts, a GPU reservation the
// cluster's nodes cannot hold, values out of range. No string settings: the
// command line and the bindings parse names with the Parse* functions below.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "utilsim/analysis/host_scale.h"
#include "utilsim/analysis/sharing.h"
#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/engine.h"
#include "utilsim/engine/metrics.h"
#include "utilsim/engine/mig.h"
#include "utilsim/engine/mig_cluster.h"
#include "utilsim/engine/progress.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"
#include "utilsim/io/inputs.h"
#include "utilsim/policies/coresource.h"
#include "utilsim/policies/mig_repartition.h"
#include "utilsim/policies/registry.h"

namespace utilsim {

class ProgressBoard;  // utilsim/analysis/progress.h

// The progress model (docs/model.md).
enum class ProgressModelKind : uint8_t { kWholeGpu, kStallSerial, kStallOverlapped };
// "whole-gpu", "stall-serial", "stall-overlapped".
const char* ProgressModelName(ProgressModelKind k);
Result<ProgressModelKind> ParseProgressModel(const std::string& name);
// "fractional", "exclusive", "timeslice", "mps".
const char* SharingModeName(SharingMode m);
// "arrivals", "full".
const char* WindowName(Window w);
Result<Window> ParseWindow(const std::string& name);
// "auto", "changes", "samples" (SeriesFormName).
Result<SeriesForm> ParseSeriesForm(const std::string& name);

// MIG (docs/mig.md).
struct MigSpec {
  enum class Mode : uint8_t { kOff, kRightSize, kDynamic };
  Mode mode = Mode::kOff;
  RightSizeParams size;      // right-sizing (both modes): tolerance in (0, 1]
  mig::ReconfigTimes times;  // dynamic: what a layout change takes
  bool drain = true;         // dynamic: the planner may drain busy instances
};
// "right-size[:TOL]" / "dynamic[:TOL]" (the mode and tolerance of a MigSpec).
Result<MigSpec> ParseMigSpec(const std::string& text);

struct RunSpec {
  ProgressModelKind model = ProgressModelKind::kWholeGpu;
  double comm_fraction = WholeGpuProgress::kDefaultCommFraction;  // [0, 1]
  SharingMode sharing = SharingMode::kFractional;
  double mps_thread_pct = 100;  // (0, 100], sharing kMps only
  CpuAlloc cpu_alloc = CpuAlloc::kRequest;
  std::optional<GpuReservation> gpu_reserve;  // per whole-free GPU, held from CPU-only jobs
  std::optional<HostScale> host_scale;        // factors on every job's CPU and memory request
  MigSpec mig;
  Window window = Window::kArrivals;
  Micros warmup{0};                       // >= 0, skipped at the start of the arrivals window
  Micros restart_cost{0};                 // >= 0, work a preempted job redoes
  Micros sample_interval = Seconds(300);  // > 0
  SeriesForm series = SeriesForm::kAuto;  // change points or samples (SimConfig::series)
  // Simulated time after the first submission at which runs stop; none =
  // run to the end.
  std::optional<Micros> horizon;
  uint64_t seed = 1;
  double price_per_gpu_h = 2.0;  // >= 0
  // Power of the GPUs and nodes (engine power.h) and the price of a kWh of
  // facility energy, for the energy figures (docs/energy.md).
  PowerModel power = DefaultPowerModel();
  double energy_price_per_kwh = 0.10;  // >= 0
  // Powering off free nodes after this long empty (none = never) and the
  // time a node takes to wake up (SimConfig::power_off_after, wake_delay).
  std::optional<Micros> power_off_after;
  Micros wake_delay = Seconds(300);  // >= 0
  // Power caps per GPU model (engine power.h ApplyPowerCaps, by the power
  // model's cap_curve): applied to the cluster's model speeds and the power
  // model before anything else sees them, and noted in every result.
  std::vector<PowerCap> power_caps;
  // Power budget of the cluster and of each rack, IT watts, 0 = none
  // (SimConfig::power_budget_w, rack_power_budget_w).
  double power_budget_w = 0;
  double rack_power_budget_w = 0;
  bool wait_detail = false;  // SimConfig::wait_detail
  // Clusters that change (engine cluster_events.h, docs/cluster-events.md):
  // node events on the workload's clock (SimConfig::cluster_events), and
  // failures drawn from `failures` with `seed` (DrawFailures) from the first
  // submission to the horizon (without one: to the last submission + the
  // longest recorded runtime; the result's notes say the span). Jobs a node
  // going down kills keep the work of their last checkpoint
  // (SimConfig::checkpoint_interval; none = restart from the start).
  std::vector<ClusterEvent> cluster_events;
  FailureModel failures;
  std::optional<Micros> checkpoint_interval;
  std::array<std::optional<Checkpointing>, 3> checkpoints_by_kind{};  // SimConfig's
  Micros pass_interval{0};  // SimConfig::pass_interval, >= 0
  int threads = 0;          // RunPolicies: parallel runs (0 = one per core)
  // Hooks (C++ only). `progress`: each run reports its events and simulated
  // time to this board (not owned; null = none). `observer`: called for
  // every event of every run, after the progress observer, from the run's
  // thread (runs on parallel threads share it); it may RequestStop() its
  // run, which then ends as "stopped on request". It must not throw.
  ProgressBoard* progress = nullptr;
  EventObserver observer;
  // `sink`: receives the rows of the run as they become final (result_sink.h;
  // e.g. a ResultWriter, results/result_writer.h). One run only: RunPolicies
  // refuses a sink with more than one policy. With keep_rows = false the
  // result holds no jobs or samples (its meta and summary are complete),
  // except with MIG, whose figures need the rows: those keep them anyway.
  // The sink's OnEnd gets the engine's meta; the notes this run adds after
  // the engine (transforms, policy parameters, MIG figures) are only in the
  // returned result's meta (give that to ResultWriter::Commit).
  ResultSink* sink = nullptr;
  bool keep_rows = true;
};

// Checks the ranges of a spec on its own (BuildRun also checks it against
// the inputs). Errors name the field.
Status ValidateRunSpec(const RunSpec& spec);

// Reads a cluster events file (docs/cluster-events.md,
// utilsim/traces/cluster_events_yaml.h) into `spec`: its events, failure
// model and checkpoints by job kind replace the spec's. `run --events` and
// Python's `events=` both load it so. Errors: the reader's (file, line,
// key); `spec` is unchanged then.
Status LoadClusterEvents(const std::string& path, RunSpec* spec);

// A run assembled by BuildRun: the (transformed) workload and cluster, the
// decorated policies, progress model and configuration. Immutable after
// BuildRun; Simulate may be called from several threads at once, each call
// an independent simulation (no shared mutable state). Must not outlive
// the Inputs and registry it was built from.
class PreparedRun {
 public:
  PreparedRun(const PreparedRun&) = delete;
  PreparedRun& operator=(const PreparedRun&) = delete;
  ~PreparedRun();

  // One simulation of `policy` (a registry name: PLACEMENT,
  // QUEUE+PLACEMENT, a profile; parameters NAME:key=value allowed).
  // `observer` (may be empty) is called for every event after the spec's
  // hooks. The result's notes carry every transform applied.
  Result<RunResult> Simulate(const std::string& policy, EventObserver observer = {}) const;

  const ClusterSpec& cluster() const;  // the cluster the runs use (MIG: expanded)
  const Workload& workload() const;    // the workload the runs use (scaled, sized, rounded)
  const SimConfig& config() const;     // without observer, fragmentation sampler
  const std::vector<std::string>& notes() const;  // recorded in every result, in order

 private:
  friend Result<std::unique_ptr<PreparedRun>> BuildRun(const RunSpec&, const Inputs&,
                                                       const ClusterSpec&, const PolicyRegistry&);
  struct State;
  explicit PreparedRun(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

// Assembles runs of `in`'s workload on `cluster` (usually in.cluster) in the
// order above. `reg` and `in` must outlive the result (the runs read in's
// workload in place unless a step changes it: host scaling, MIG, exclusive
// sharing).
Result<std::unique_ptr<PreparedRun>> BuildRun(const RunSpec& spec, const Inputs& in,
                                              const ClusterSpec& cluster,
                                              const PolicyRegistry& reg);

}  // namespace utilsim
