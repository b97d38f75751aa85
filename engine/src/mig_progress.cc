#include "utilsim/engine/mig_progress.h"

#include <algorithm>
#include <cstdio>

#include "utilsim/engine/mig_cluster.h"

namespace utilsim {

MigProgress::MigProgress(const ProgressModel* inner, const ClusterSpec& cluster,
                         mig::MigSpeedParams params)
    : inner_(inner), params_(params) {
  for (const GpuModelSpec& m : cluster.models) {
    auto im = ParseMigInstanceModel(m.name);
    profile_.push_back(im ? &im->prof() : nullptr);
  }
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
    if (!prof) continue;
    if (demand < 0) demand = mig::MigDemandFromUtil(job.util, params_);
    m = std::min(m, mig::MigSpeed(*prof, demand, params_));
  }
  return m;
}

double MigProgress::Rate(const Job& job, const Placement& p, const ClusterState& cluster) const {
  return inner_->Rate(job, p, cluster) * InstanceSpeed(job, p, cluster);
}

Progress MigProgress::Apply(const Progress& inner, double m) {
  if (m == 1.0) return inner;
  Progress out;
  out.rate = inner.rate * m;
  for (size_t c = 0; c < out.idle.size(); ++c) out.idle[c] = inner.idle[c] * m;
  return out;
}

Progress MigProgress::Evaluate(JobIndex j, const RunView& v) const {
  return Apply(inner_->Evaluate(j, v),
               InstanceSpeed(v.workload().jobs[j], v.placement_of(j), v.state()));
}

void MigProgress::EvaluateMany(const std::vector<JobIndex>& jobs, const RunView& v,
                               std::vector<Progress>* out) const {
  inner_->EvaluateMany(jobs, v, out);
  for (size_t i = 0; i < jobs.size(); ++i)
    (*out)[i] = Apply((*out)[i], InstanceSpeed(v.workload().jobs[jobs[i]],
                                               v.placement_of(jobs[i]), v.state()));
}

double MigProgress::BusyFraction(const Job& job, const Workload& w, Micros done, double rate,
                                 double speed) const {
  return inner_->BusyFraction(job, w, done, rate, speed);
}

}  // namespace utilsim
