// The progress model: how fast a job advances through its recorded work under
// a placement (design §4).
//
// A job's work is its recorded runtime R, measured in "recorded seconds". Rate
// r is recorded seconds of work per simulated second; a job placed as recorded
// runs at r = 1 exactly, so it finishes after exactly R (identity invariant).
// Rates may change while a job runs (co-runners arriving or leaving); the
// engine then recomputes remaining work and the finish time.
#pragma once

#include <memory>
#include <string>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/placement.h"

namespace utilsim {

class ProgressModel {
 public:
  virtual ~ProgressModel() = default;
  virtual std::string name() const = 0;

  // Rate (> 0) of `job` running at `p` in the current cluster state. Called
  // when the job starts and, if interacts(), whenever another task starts or
  // finishes on one of the nodes in p.
  virtual double Rate(const Job& job, const Placement& p, const ClusterState& cluster) const = 0;

  // Busy fraction (0..1) of the job's allocated GPUs at recorded progress
  // point `done` while running at `rate` on GPUs of relative `speed`:
  // recorded busy x rate / speed, clamped to [0, 1].
  virtual double BusyFraction(const Job& job, const Workload& w, Micros done, double rate,
                              double speed) const;

  // True when one job's rate can depend on other jobs on the same nodes.
  virtual bool interacts() const { return false; }
};

// Whole-GPU model of issue 2: the GPU-busy part of the work (util x R) scales
// with the relative speed of the GPUs the job gets (slowest GPU of its
// placement; reference speed 1.0 is the recorded GPU), the rest is unchanged:
//   time = R x ((1 - u) + u / speed)   =>   rate = 1 / ((1 - u) + u / speed).
// With speed 1.0 the rate is exactly 1.
class WholeGpuProgress final : public ProgressModel {
 public:
  std::string name() const override { return "whole-gpu"; }
  double Rate(const Job& job, const Placement& p, const ClusterState& cluster) const override;
};

// Busy fraction of `job` at recorded progress `done`: its series value there,
// or its constant util.
double RecordedBusy(const Job& job, const Workload& w, Micros done);
// Recorded busy seconds in the first `done` of the job's work (integral of
// RecordedBusy over [0, done)).
double RecordedBusyIntegral(const Job& job, const Workload& w, Micros done);
// Slowest GPU speed among the placement's nodes (1.0 for CPU-only jobs).
double PlacementSpeed(const Job& job, const Placement& p, const ClusterState& cluster);

}  // namespace utilsim
