// The progress model: how fast a job advances through its recorded work under
// a placement (design §4).
//
// A job's work is its recorded runtime R, measured in "recorded seconds". Rate
// r is recorded seconds of work per simulated second; a job placed as recorded
// runs at r = 1 exactly, so it finishes after exactly R (identity invariant).
// Rates may change while a job runs (co-runners arriving or leaving); the
// engine then recomputes remaining work and the finish time.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/metrics.h"
#include "utilsim/engine/placement.h"

namespace utilsim {

// What a progress model may see of the running simulation (the engine
// implements it).
class RunView {
 public:
  virtual ~RunView() = default;
  virtual const Workload& workload() const = 0;
  virtual const ClusterState& state() const = 0;
  // Placement and granted per-task demand of running job j.
  virtual const Placement& placement_of(JobIndex j) const = 0;
  virtual const TaskDemand& granted(JobIndex j) const = 0;
  // Running jobs with a task on node n (maintained only for models that
  // interact(); empty otherwise).
  virtual const std::vector<JobIndex>& jobs_on(NodeIndex n) const = 0;
  // PlacementSpeed and CommSlowdown of running job j's placement. They do
  // not change while it runs, so a view may compute them once per run; these
  // defaults compute them on every call.
  virtual double speed(JobIndex j) const;
  virtual double comm_slowdown(JobIndex j) const;
};

// Share of a job's wall time per idle cause (the rest is GPU-busy).
using CauseShares = std::array<double, static_cast<size_t>(IdleCause::kCount)>;

struct Progress {
  double rate = 1.0;
  // Of the job's wall time at this rate: the share its GPUs idle for each
  // cause. busy share = 1 - sum = util x rate / speed for constant util.
  CauseShares idle{};
};

class ProgressModel {
 public:
  virtual ~ProgressModel() = default;
  virtual std::string name() const = 0;

  // Rate (> 0) of `job` running at `p` in the current cluster state. Called
  // when the job starts and, if interacts(), whenever another task starts or
  // finishes on one of the nodes in p.
  virtual double Rate(const Job& job, const Placement& p, const ClusterState& cluster) const = 0;

  // Rate of running job j with what it shares (co-runners, granted demand),
  // and the split of its idle time by cause. Default: Rate(), with all
  // non-busy time unattributed.
  virtual Progress Evaluate(JobIndex j, const RunView& v) const;

  // Evaluate for each of `jobs` (the co-runners the engine re-rates after a
  // start or finish on their nodes), in order, into out[0..jobs.size()).
  // Must equal calling Evaluate on each; models whose evaluation repeats
  // per-node work (a node's fair share) may share it across the batch.
  virtual void EvaluateMany(const std::vector<JobIndex>& jobs, const RunView& v,
                            std::vector<Progress>* out) const;

  // Busy fraction (0..1) of the job's allocated GPUs at recorded progress
  // point `done` while running at `rate` on GPUs of relative `speed`:
  // recorded busy x rate / speed, clamped to [0, 1].
  virtual double BusyFraction(const Job& job, const Workload& w, Micros done, double rate,
                              double speed) const;

  // True when one job's rate can depend on other jobs on the same nodes.
  virtual bool interacts() const { return false; }
  // Whether it does for this workload and cluster (asked once per run; the
  // engine tracks co-runners and re-rates them only then). Default:
  // interacts().
  virtual bool Interacts(const Workload& /*w*/, const ClusterState& /*c*/) const {
    return interacts();
  }
};

// Whole-GPU model: the GPU-busy part of the work (util x R) scales with the
// relative speed of the GPUs the job gets (slowest GPU of its placement;
// reference speed 1.0 is the recorded GPU); a communication part c x R of a
// gang (more than one GPU) scales with the bottleneck bandwidth it gets
// relative to the one it was recorded with (Topology::Assess; recorded =
// its recorded hosts where the trace has them, else the assumed placement
// Topology::AssumedRecorded, against which only slow-downs count); the rest
// is unchanged:
//   time = R x ((1 - u - c) + u / speed + c x bw_recorded / bw_now)
//   c = min(comm_fraction, 1 - u) for gangs, 0 for one GPU or none.
// With speed 1.0 and the recorded bandwidth the rate is exactly 1.
class WholeGpuProgress final : public ProgressModel {
 public:
  // comm_fraction: share of a gang's recorded runtime spent communicating,
  // 0..1 (a stated default, docs/topology.md).
  explicit WholeGpuProgress(double comm_fraction = kDefaultCommFraction)
      : comm_fraction_(comm_fraction) {}
  static constexpr double kDefaultCommFraction = 0.1;
  // "whole-gpu comm=<fraction>", recorded in every result.
  std::string name() const override;
  double comm_fraction() const { return comm_fraction_; }
  double Rate(const Job& job, const Placement& p, const ClusterState& cluster) const override;
  // Communication time is attributed to kCommunication, the rest of the
  // non-busy time stays unattributed.
  Progress Evaluate(JobIndex j, const RunView& v) const override;

 private:
  double comm_fraction_;
};

// Bandwidth ratio bw_recorded / bw_now of a gang at `p` (1 when either is
// unlimited or the job uses at most one GPU).
double CommSlowdown(const Job& job, const Placement& p, const ClusterState& cluster);

// Busy fraction of `job` at recorded progress `done`: its series value there,
// or its constant util.
double RecordedBusy(const Job& job, const Workload& w, Micros done);
// Recorded busy seconds in the first `done` of the job's work (integral of
// RecordedBusy over [0, done)).
double RecordedBusyIntegral(const Job& job, const Workload& w, Micros done);
// Slowest GPU speed among the placement's nodes (1.0 for CPU-only jobs).
double PlacementSpeed(const Job& job, const Placement& p, const ClusterState& cluster);

}  // namespace utilsim
