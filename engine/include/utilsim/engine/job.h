// The job model: what a job asks for, what the trace recorded about it, and
// its measured utilization profile.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "utilsim/engine/time.h"
#include "utilsim/engine/units.h"

namespace utilsim {

// Index of a job inside its Workload (dense, 0-based).
using JobIndex = uint32_t;

// Demand of one task of a job. A job is `tasks` identical tasks placed
// all-or-nothing (gang); each task lives on one node.
struct TaskDemand {
  int32_t gpus = 0;                   // GPUs per task (0 = CPU-only task)
  int32_t gpu_milli = kMilliPerUnit;  // share of each GPU, 1..1000; <1000 only when gpus == 1
  int64_t cpu_milli = 0;              // host CPU, milli-cores
  int64_t mem_bytes = 0;              // host memory, bytes
  int64_t gpu_mem_bytes = 0;          // GPU memory needed per GPU, bytes (0 = unknown)
  // MIG instance profile each GPU of the task needs, as an index into
  // mig::GpuModel::profiles (the same order on every MIG model), or -1 = not
  // a MIG task. Set only by dynamic MIG right-sizing (mig_cluster.h); such a
  // task's gpu_milli is the instance's memory slices x 125 (1000 for 7g), and
  // only the MIG repartitioning placement (policies/mig_repartition.h) may
  // put it on a MIG-managed GPU.
  int32_t mig_profile = -1;

  // Total GPU share of the task in milli-GPU.
  int64_t total_gpu_milli() const { return int64_t{gpus} * gpu_milli; }
  bool fractional() const { return gpus == 1 && gpu_milli < kMilliPerUnit; }
  bool operator==(const TaskDemand&) const = default;
};

// Which signal a utilization figure measures (domain.md §3.3).
enum class UtilSignal : uint8_t {
  kUnknown = 0,
  kGpuUtil,         // NVML/DCGM "GPU utilization": a kernel was running
  kSmActive,        // DCGM PROF_SM_ACTIVE
  kGrEngineActive,  // DCGM PROF_GR_ENGINE_ACTIVE
  kSynthetic,       // drawn by a generator from published distributions
};
const char* UtilSignalName(UtilSignal s);

// How a job's recorded runtime divides beyond its busy share `util` (issue
// 5; docs/model.md): fractions of the recorded runtime R. A negative part is
// unknown and takes the run's default (StallProgress: comm from
// --comm-fraction for gangs, nothing for input). What is left after busy,
// input and comm is fixed time (start-up, idle), which no resource changes.
struct StallSplit {
  float input_cpu = -1;      // waiting for CPU preprocessing (scales with CPU cores given)
  float input_storage = -1;  // waiting for storage reads (scales with the storage share)
  float comm = -1;           // communication / synchronisation (topology, NIC share)
  bool operator==(const StallSplit&) const = default;
};

// A measured utilization time series over a job's recorded life.
// Piecewise constant: busy[i] holds from offset[i] (recorded time since the
// job's start) until offset[i+1] (or the job's end). offset[0] must be 0,
// offsets strictly increasing, busy in [0, 1].
struct UtilSeries {
  std::vector<Micros> offset;
  std::vector<float> busy;
};

// What a job does, where a trace says (the MIG speed model's demand,
// utilsim/engine/mig.h MigDemand).
enum class JobKind : uint8_t { kUnknown, kTraining, kInference };

struct Job {
  std::string name;                      // id as given by the trace; unique within a workload
  Micros submit{0};                      // submission time
  uint32_t tenant = 0;                   // index into Workload::tenants
  int32_t priority = 0;                  // larger = more important
  int32_t tasks = 1;                     // gang size (>= 1)
  TaskDemand task;                       // per-task demand
  std::vector<std::string> gpu_models;   // allowed GPU models; empty = any
  Micros runtime{0};                     // recorded run time at the recorded allocation (> 0)
  std::optional<Micros> recorded_start;  // when the trace recorded a start
  // Hosts the trace recorded the job on (one per task where known), for
  // joining host-level telemetry; empty when unknown.
  std::vector<std::string> recorded_hosts;
  std::optional<Micros> walltime_limit;  // user's requested limit, if any
  // The trace's scheduler ends a job at walltime_limit (AAIC: termcode
  // "walltime exceeded"): a run that would take longer than
  // max(walltime_limit, runtime) is killed there (the max keeps recorded
  // overruns, grace periods, intact).
  bool kill_at_limit = false;
  // Mean busy fraction of each allocated GPU over the recorded life, 0..1.
  // For a series this equals the series' time-weighted mean.
  float util = 1.0f;
  int32_t series = -1;  // index into Workload::series, or -1 (constant util)
  // False while util is the placeholder 1.0 because nothing is known about
  // the job's utilization (then a profile library may attach one); true once
  // util/series come from the trace, telemetry, a generator or a library.
  bool util_known = false;
  int64_t host_cpu_used_milli = -1;  // measured host CPU use, -1 unknown
  StallSplit stalls;                 // where the non-busy time went, where known
  // Bandwidth the job drives per node while it runs, bytes/s (0 = none or
  // unknown): jobs on one node share its NIC / storage max-min fairly.
  double nic_bytes_s = 0;           // across nodes (multi-node gangs only)
  double storage_bytes_s = 0;       // reads from the node's storage
  int64_t gpu_mem_used_bytes = -1;  // measured GPU memory use, -1 unknown
  JobKind kind = JobKind::kUnknown;
  // An inference job's batch size x sequence length (tokens per step), 0
  // unknown: a small step is latency-bound on a MIG slice (docs/mig.md).
  float tokens_per_step = 0;
};

// A job list plus the tables it refers to. Jobs are sorted by (submit, input
// order) by Workload::Finalize().
struct Workload {
  std::vector<Job> jobs;
  std::vector<std::string> tenants;  // tenants[0] is "default" unless a reader sets others
  std::vector<UtilSeries> series;
  UtilSignal signal = UtilSignal::kUnknown;  // what `util` measures
  std::string source;  // human-readable origin ("synthetic:default seed=1", a path, ...)

  // Returns the tenant index for `name`, adding it if new.
  uint32_t InternTenant(const std::string& name);
  // Stable-sorts jobs by submit time. Call once after loading.
  void Finalize();
};

// Time-weighted mean of a series over [0, runtime).
double SeriesMean(const UtilSeries& s, Micros runtime);

}  // namespace utilsim
