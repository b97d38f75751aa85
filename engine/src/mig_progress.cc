#include "utilsim/engine/mig_progress.h"

#include <algorithm>
#include <cstdio>

#include "utilsim/engine/mig_cluster.h"
#include "utilsim/engine/units.h"

namespace utilsim {

MigProgress::MigProgress(const ProgressModel* inner, const ClusterSpec& cluster,
                         mig::MigSpeedParams params)
    : ScaledProgress(inner, std::nullopt), params_(params) {
  for (const GpuModelSpec& m : cluster.models) {
    auto im = ParseMigInstanceModel(m.name);
    profile_.push_back(im ? &im->prof() : nullptr);
  }
  for (const NodeGroup& g : cluster.groups)
    managed_.push_back(g.mig.empty() ? nullptr : mig::FindGpuModel(g.gpu_model));
}

std::string MigProgress::name() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, " mig w=%g u_sat=%g", params_.memory_weight,
                params_.util_at_saturation);
  return inner_->name() + buf;
}

double MigProgress::InstanceSpeed(const Job& job, const Placement& p,
                                  const ClusterState& cluster) const {
  if (p.empty() || job.task.gpus == 0) return 1.0;
  double m = 1.0;
  double demand = -1;  // computed once, when some task is on an instance
  for (const TaskPlacement& t : p) {
    const int model = cluster.node(t.node).model;
    if (model < 0 || static_cast<size_t>(model) >= profile_.size()) continue;
    const mig::Profile* prof = profile_[static_cast<size_t>(model)];
    if (!prof) {  // dynamic MIG: a MIG-managed physical GPU, the task's own profile
      const int32_t g = cluster.node(t.node).group;
      const mig::GpuModel* mm = g >= 0 && static_cast<size_t>(g) < managed_.size()
                                    ? managed_[static_cast<size_t>(g)]
                                    : nullptr;
      const int32_t pr = job.task.mig_profile;
      if (!mm || pr < 0 || static_cast<size_t>(pr) >= mm->profiles.size()) continue;
      prof = &mm->profiles[static_cast<size_t>(pr)];
    }
    if (demand < 0) demand = mig::MigDemand(mig::MigInputsOf(job), params_);
    m = std::min(m, mig::MigSpeed(*prof, demand, params_));
  }
  return m;
}

double MigProgress::BusyFraction(const Job& job, const Workload& w, Micros done, double rate,
                                 double speed) const {
  const double f = inner_->BusyFraction(job, w, done, rate, speed);
  if (job.task.mig_profile < 0 || job.task.gpu_milli >= kMilliPerUnit || job.task.gpu_milli <= 0)
    return f;
  return std::clamp(f * kMilliPerUnit / job.task.gpu_milli, 0.0, 1.0);
}

double MigProgress::Rate(const Job& job, const Placement& p, const ClusterState& cluster) const {
  return inner_->Rate(job, p, cluster) * InstanceSpeed(job, p, cluster);
}

}  // namespace utilsim
