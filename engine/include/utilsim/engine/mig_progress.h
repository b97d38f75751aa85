// MIG in the simulation (docs/mig.md, "Simulation"): a progress-model
// decorator giving a job on a MIG instance the speed of the MIG speed model.
//
// MigProgress(inner, cluster, params) gives running job j on a placement
// whose GPUs are instances of profile P (the node's GPU model is an expanded
// "<model>/<profile>" name, mig_cluster.h)
//   rate_j = inner rate_j x m_j,   m_j = MigSpeed(P, MigDemandFromUtil(util_j))
// (the slowest of its tasks' nodes), and the inner rate on whole GPUs
// (m = 1; also a 7g instance: MigSpeed of 7g is 1). Dynamic MIG (the
// cluster not expanded): on a node of a group that declares `mig`, P is the
// task's own profile (TaskDemand::mig_profile; m = 1 when it has none). The MIG speed law is a
// throughput ratio of the whole job (fitted on whole-run throughputs, its
// min(1, s/d) already hides the instance's loss behind the job's non-GPU
// time), so it scales the whole rate, not only the busy part: scaling the
// busy part again would count that hiding twice (docs/mig.md).
// Idle attribution: nothing new. The inner idle shares x (of the inner wall
// time) become x * m of the longer wall time, i.e. the same idle seconds;
// the extra time is instance-busy. BusyFraction is the inner one: recorded
// busy x rate / speed, the full-GPU-equivalent busy work per second held —
// the unit of JobRecord::useful_gpu_s.
//
// Cost: O(tasks) per evaluation plus the inner model's. Thread-safety:
// const after construction; safe to share between simulations.
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/mig.h"
#include "utilsim/engine/progress.h"
#include "utilsim/engine/scaled_progress.h"

namespace utilsim {

class MigProgress final : public ScaledProgress {
 public:
  // inner: not owned, must outlive this. cluster: the expanded spec the runs
  // use (its model indices are ClusterState's); models whose names are not
  // expanded instance models are whole GPUs.
  MigProgress(const ProgressModel* inner, const ClusterSpec& cluster,
              mig::MigSpeedParams params = {});
  // "<inner> mig w=<memory weight> u_sat=<util at saturation>".
  std::string name() const override;
  double Rate(const Job& job, const Placement& p, const ClusterState& cluster) const override;
  // Static layouts: the inner one. Dynamic MIG: a task below 7g holds only
  // its memory slices (gpu_milli / 1000 of a GPU) while its recorded
  // utilization is of a whole GPU, so the inner busy fraction (full-GPU
  // busy work per second) is divided by that share, clamped to [0, 1]:
  // useful GPU-seconds are then the same as in a static or whole-GPU run.
  double BusyFraction(const Job& job, const Workload& w, Micros done, double rate,
                      double speed) const override;
  bool interacts() const override { return inner_->interacts(); }
  bool Interacts(const Workload& w, const ClusterState& c) const override {
    return inner_->Interacts(w, c);
  }

  // m_j above for `job` at `p` (1 on whole GPUs and CPU-only jobs).
  double InstanceSpeed(const Job& job, const Placement& p, const ClusterState& cluster) const;

 private:
  double Factor(JobIndex j, const RunView& v) const override {
    return InstanceSpeed(v.workload().jobs[j], v.placement_of(j), v.state());
  }

  std::vector<const mig::Profile*> profile_;   // per model index; null = whole GPU
  std::vector<const mig::GpuModel*> managed_;  // per group: MIG-managed model, or null
  mig::MigSpeedParams params_;
};

}  // namespace utilsim
