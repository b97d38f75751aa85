// Exact accounting of a run (private to the engine): the cluster's step
// functions (GPU share, CPU and memory allocated, stranded GPUs) integrated
// between events, and per-job meters snapshotted at the measurement window's
// boundaries, so that every summary figure is an integral over run intervals,
// never an estimate from first start and last finish (docs/results.md,
// "How the figures are computed").
//
// Thread-safety: none; one per simulation.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/job.h"
#include "utilsim/engine/metrics.h"
#include "utilsim/engine/time.h"

namespace utilsim {

__extension__ typedef __int128 WideInt;

// Values of the cluster's step functions between two events.
struct Levels {
  int64_t gpu_milli = 0;  // allocated GPU share
  int64_t cpu_milli = 0;  // allocated CPU
  int64_t mem_bytes = 0;  // allocated memory
  int64_t stranded = 0;   // whole free GPUs on nodes that cannot host a GPU task
  // Power (power.h), micro-watts: of the free GPU share (whole-free GPUs at
  // idle power, the free part of partly allocated GPUs at context power), of
  // the stranded GPUs (part of the free), and of the powered nodes' non-GPU
  // parts.
  int64_t free_uw = 0, stranded_uw = 0, node_uw = 0;
  int64_t off_gpus = 0;                // GPUs of powered-off nodes
  std::array<int64_t, 3> down_gpus{};  // GPUs of down nodes, by DownCause
};

// Integral of Levels over time, in unit x microseconds (exact integers).
struct LevelIntegral {
  WideInt gpu_milli_us = 0, cpu_milli_us = 0, mem_bytes_us = 0, stranded_us = 0;
  WideInt free_uw_us = 0, stranded_uw_us = 0, node_uw_us = 0;  // micro-joules
  WideInt off_gpus_us = 0;
  std::array<WideInt, 3> down_gpus_us{};
  void Add(const Levels& v, int64_t dt_us);
  LevelIntegral operator-(const LevelIntegral& o) const;
};

// Integrates Levels from t0 on and remembers the integral at up to two
// boundary instants (the arrivals window's ends), so that at the end of the
// run the integral over any window [from, to] can be had when `from` is t0 or
// a boundary and `to` is a boundary or a time after the last change of the
// levels.
class ClusterMeter {
 public:
  ClusterMeter(Micros t0, std::vector<Micros> boundaries);
  // Adds `over`, the levels since the previous call, over [previous t, t].
  // Precondition: t >= the previous t.
  void Advance(Micros t, const Levels& over);
  // Integral over [t0, t]. t must be t0, a boundary already passed, or a
  // time at or after the last change of the levels (extrapolated, forward or
  // back, at the levels of the last call).
  LevelIntegral TotalAt(Micros t) const;
  const Levels& levels() const { return levels_; }

 private:
  Micros last_;
  Levels levels_;
  LevelIntegral total_;
  Micros t0_;
  std::vector<Micros> boundary_;
  std::vector<bool> snapped_;
  std::vector<LevelIntegral> at_;
};

// What a job has accumulated up to an instant: time it held resources
// (over its run intervals), GPU-busy GPU-microseconds (the integral of its
// busy fraction x its GPU share) and idle-share microseconds by cause.
struct JobMeter {
  double held_us = 0;
  double busy_gpu_us = 0;
  // Energy of the job's GPU share (power.h), joules: all of it, and the part
  // drawn while busy (active power x busy GPU time).
  double energy_j = 0, busy_energy_j = 0;
  std::array<double, static_cast<size_t>(IdleCause::kCount)> idle_us{};
  JobMeter operator-(const JobMeter& o) const;
};

// Meters of the jobs that were started and not finished at one instant
// (queued again after a preemption, or running), in job order. A job not
// listed had either not started (all zero) or already finished (its totals).
struct JobMarks {
  Micros time{0};
  bool taken = false;
  std::vector<std::pair<JobIndex, JobMeter>> jobs;
};

// The first broken invariant of a run, if any: "invariant '<name>' violated
// at t=<s> s[, job <name>]: <numbers>. This is a utilsim bug".
std::string InvariantError(const std::string& name, Micros t, const std::string& job,
                           const std::string& detail);

}  // namespace utilsim
