#include "utilsim/engine/sharing_progress.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <utility>

#include "utilsim/engine/units.h"

namespace utilsim {

double SoloGpuUtil(const Job& job) {
  if (job.task.gpus == 0) return 0;
  const double u = std::clamp(static_cast<double>(job.util), 0.0, 1.0);
  return u * std::clamp(job.task.gpu_milli, 0, kMilliPerUnit) / kMilliPerUnit;
}

CoRunner CoRunnerOf(const Job& job, const SharingConfig& /*sharing*/) {
  CoRunner c;
  c.gpu_util = SoloGpuUtil(job);
  c.mem_util = std::min(1.0, kMemUtilPerGpuUtil * c.gpu_util);
  c.gpu_mem_mib = static_cast<double>(std::max<int64_t>(0, job.task.gpu_mem_bytes)) / 1048576.0;
  return c;
}

SharedGpuProgress::SharedGpuProgress(const ProgressModel* inner, SharingConfig sharing,
                                     InterferenceParams params)
    : ScaledProgress(inner, IdleCause::kSharing), sharing_(sharing), params_(params) {}

std::string SharedGpuProgress::name() const {
  std::string out = inner_->name() + " sharing=" + std::string(GpuSharingName(sharing_.mode));
  if (sharing_.mode == GpuSharing::kMps) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " threads=%g%%", sharing_.mps_default_thread_fraction * 100);
    out += buf;
  }
  return out;
}

bool SharedGpuProgress::Interacts(const Workload& w, const ClusterState& c) const {
  if (inner_->Interacts(w, c)) return true;
  return std::any_of(w.jobs.begin(), w.jobs.end(),
                     [](const Job& j) { return j.task.fractional(); });
}

double SharedGpuProgress::SharingSpeed(JobIndex j, const RunView& v) const {
  const Workload& w = v.workload();
  // Only fractional tasks share a GPU (a whole-GPU task holds all of it).
  if (!w.jobs[j].task.fractional()) return 1.0;
  thread_local std::vector<JobIndex> with;
  thread_local std::vector<CoRunner> runners;
  thread_local std::vector<double> speeds;
  double s = 1.0;
  for (const TaskPlacement& t : v.placement_of(j)) {
    for (uint64_t mask = t.gpu_mask; mask != 0; mask &= mask - 1) {
      const uint64_t bit = mask & (~mask + 1);
      with.clear();
      for (JobIndex k : v.jobs_on(t.node)) {
        if (k == j) continue;
        for (const TaskPlacement& o : v.placement_of(k))
          if (o.node == t.node && (o.gpu_mask & bit)) {
            with.push_back(k);
            break;
          }
      }
      if (with.empty()) continue;  // alone on this GPU: speed 1
      with.push_back(j);
      // Job order makes the sums (and so the speeds) independent of start order.
      std::sort(with.begin(), with.end());
      runners.clear();
      size_t self = 0;
      for (size_t i = 0; i < with.size(); ++i) {
        if (with[i] == j) self = i;
        runners.push_back(CoRunnerOf(w.jobs[with[i]], sharing_));
      }
      speeds.assign(runners.size(), 1.0);
      Status st = PredictCoRunSpeeds(runners, sharing_, params_, speeds);
      if (!st.ok() && sharing_.mode == GpuSharing::kMps) {
        SharingConfig ts = sharing_;
        ts.mode = GpuSharing::kTimeSlice;  // over the MPS client limit (header)
        st = PredictCoRunSpeeds(runners, ts, params_, speeds);
      }
      if (st.ok()) s = std::min(s, speeds[self]);
    }
  }
  return s;
}

}  // namespace utilsim
