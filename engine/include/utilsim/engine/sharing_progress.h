// GPU sharing in the simulation (issue 6; docs/sharing.md): a progress-model
// decorator that slows jobs sharing a GPU by the co-location interference
// model (interference.h).
//
// SharedGpuProgress(inner, sharing, params) gives running job j
//   rate_j = inner rate_j x s_j,   s_j = min over j's GPUs g of speed_j(g)
// where speed_j(g) is PredictCoRunSpeeds over the jobs holding a share of
// GPU g (found with RunView::jobs_on and each co-runner's placement mask).
// A GPU that j holds alone gives speed 1, so a job alone on its GPUs runs
// exactly at the inner model's rate (identity; also under MPS: a lone
// client's thread limit is not applied). The extra wall time is attributed
// to IdleCause::kSharing: with the inner shares x (of the inner wall time),
// the new shares are x * s and kSharing gets x_sharing * s + (1 - s).
//
// Solo profile of a co-runner (CoRunner), from its Job:
//   gpu_util = clamp(Job::util, 0, 1) x gpu_milli / 1000 (Job::util is the
//              busy share of what the job holds, so a 0.5-GPU job busy all
//              the time uses half the GPU's time; openb pods, whose util is
//              the unknown placeholder 1.0, use exactly their share);
//   mem_util = kMemUtilPerGpuUtil x gpu_util (no trace records it per job;
//              0.5 is the ratio of summed memory-controller to summed GPU
//              utilization over the 66 Lucid solo configurations, 0.56,
//              median ratio 0.49, rounded);
//   gpu_mem_mib = the task's gpu_mem_bytes (0 = unknown) — not used for
//              speed; summed memory is checked by the colocate placement.
// MPS: every client gets the daemon's default thread fraction (SharingConfig
// ::mps_default_thread_fraction); more co-runners on one GPU than
// mps_max_clients fall back to the time-slicing prediction for that GPU (the
// engine cannot fail a rate; placements should not produce it: the smallest
// openb share is 50 milli, 20 per GPU).
//
// Cost: per evaluation O(tasks x co-runners on the job's nodes); no
// allocation after warm-up (thread-local scratch). Thread-safety: const, safe
// to share between simulations on separate threads.
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/interference.h"
#include "utilsim/engine/progress.h"
#include "utilsim/engine/scaled_progress.h"

namespace utilsim {

// Memory-controller utilization assumed per unit of solo GPU utilization.
inline constexpr double kMemUtilPerGpuUtil = 0.5;

// Solo whole-GPU utilization of one task of `job` on one of its GPUs
// (above), 0..1; 0 for CPU-only jobs.
double SoloGpuUtil(const Job& job);
// The job's solo profile as a co-runner (above).
CoRunner CoRunnerOf(const Job& job, const SharingConfig& sharing);

class SharedGpuProgress final : public ScaledProgress {
 public:
  // inner: not owned, must outlive this. sharing.mode kTimeSlice or kMps.
  SharedGpuProgress(const ProgressModel* inner, SharingConfig sharing,
                    InterferenceParams params = {});
  // "<inner> sharing=time-slice" or "<inner> sharing=mps threads=<pct>%".
  std::string name() const override;
  // No co-runners are known here: the inner rate.
  double Rate(const Job& job, const Placement& p, const ClusterState& cluster) const override {
    return inner_->Rate(job, p, cluster);
  }
  bool interacts() const override { return true; }
  // True when some job is fractional (only those can share a GPU) or the
  // inner model interacts.
  bool Interacts(const Workload& w, const ClusterState& c) const override;

  // s_j above for running job j (1 when it shares no GPU).
  double SharingSpeed(JobIndex j, const RunView& v) const;

 private:
  double Factor(JobIndex j, const RunView& v) const override { return SharingSpeed(j, v); }

  SharingConfig sharing_;
  InterferenceParams params_;
};

}  // namespace utilsim
