// Per-job state of a simulation in progress (private to the engine).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "utilsim/engine/metrics.h"
#include "utilsim/engine/placement.h"
#include "utilsim/engine/time.h"
#include "utilsim/engine/wait.h"

namespace utilsim {

inline constexpr size_t kCauses = static_cast<size_t>(IdleCause::kCount);

// Wait attribution of a queued job's open interval (wait.h; Simulation's
// QueuedNow, Settle, CloseWait).
inline constexpr uint32_t kNoPass = UINT32_MAX;
struct WaitTrack {
  Micros since{0};               // start of the open interval
  uint32_t last_pass = kNoPass;  // the pass that last reported it, kNoPass = none since `since`
  WaitCause cause = WaitCause::kQueueOrder;
  bool preempted = false;  // queued again after a preemption: all kPreemption
  JobIndex blocker = kNoBlocker;
  NodeCounts nodes;          // of the open interval (SimConfig::wait_detail)
  Micros estimate = kNever;  // the scheduler's first estimate in the open interval
};

// The state of a job from its arrival until its record is final (rejected,
// finished, or the end of the run). Only such live jobs have one: the engine
// keeps them in a pool of slots reused as jobs end (Simulation::Run), so its
// memory follows the jobs in the system, not the jobs in the workload.
struct JobRun {
  JobIndex job = std::numeric_limits<JobIndex>::max();  // whose state; max = a free slot
  bool queued = false, running = false, finished = false, rejected = false;
  bool killed = false;  // finished at its walltime limit with work left
  std::string reason;
  Placement placement;
  Micros start{-1}, end{-1};   // start of the current (last) run segment; end when finished
  Micros first_start{-1};      // first time the job started
  int64_t held_before_us = 0;  // time held in earlier segments (before preemptions)
  int32_t preemptions = 0;
  int32_t interruptions = 0;  // kills by cluster events
  double lost_us = 0;         // wall time of work lost to kills and preemptions
  Micros last{0};             // time up to which `done` is accounted
  Micros finish{0};           // scheduled finish under the current rate
  double done = 0;            // recorded microseconds of work completed
  double hwm = 0;             // most work ever completed (done falls back on preemption)
  double rate = 1.0;          // recorded us of work per simulated us
  double speed = 1.0;         // slowest GPU speed of the placement
  mutable double comm = -1;   // CommSlowdown of the placement, -1 until asked
  int64_t busy_micro = 0;     // contribution to the busy sum (constant-util jobs), micro-GPUs
  double busy_frac = 0;       // busy fraction now (constant-util jobs; series: unused)
  double busy_gpu_us = 0;     // integral of busy fraction x GPU share over held time, GPU-us
  // Power of the current placement per GPU held (power.h; averaged over the
  // tasks' GPU models): context (allocated, idle) and active watts.
  double context_w = 0, active_w = 0;
  double energy_j = 0, busy_energy_j = 0;  // energy of the job's GPU share, J (JobMeter)
  int64_t power_uw = 0;      // its power now, micro-watts (constant-util jobs; for samples)
  Micros queued_since{0};    // start of the current queued interval, while queued
  int64_t queued_us = 0;     // sum of the closed queued intervals
  uint32_t running_pos = 0;  // index in the list of running series jobs
  uint32_t list_pos = 0;     // index in the list of all running jobs
  std::array<float, kCauses> share{};     // idle share of wall time by cause, current rate
  std::array<double, kCauses> idle_us{};  // integral of share over the job's run time, us
  WaitTrack wait;                         // while queued
  std::vector<WaitInterval> waits;        // closed wait intervals so far
};

}  // namespace utilsim
