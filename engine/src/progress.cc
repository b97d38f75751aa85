#include "utilsim/engine/progress.h"

#include <algorithm>

namespace utilsim {

double RecordedBusy(const Job& job, const Workload& w, Micros done) {
  if (job.series < 0) return job.util;
  const UtilSeries& s = w.series[job.series];
  auto it = std::upper_bound(s.offset.begin(), s.offset.end(), done);
  if (it == s.offset.begin()) return s.busy.empty() ? job.util : s.busy.front();
  return s.busy[static_cast<size_t>(it - s.offset.begin()) - 1];
}

double RecordedBusyIntegral(const Job& job, const Workload& w, Micros done) {
  if (job.series < 0) return static_cast<double>(job.util) * static_cast<double>(done.us) / 1e6;
  return SeriesMean(w.series[job.series], done) * static_cast<double>(done.us) / 1e6;
}

double PlacementSpeed(const Job& job, const Placement& p, const ClusterState& cluster) {
  if (p.empty() || job.task.gpus == 0) return 1.0;
  double speed = cluster.node(p.front().node).speed;
  for (const auto& t : p) speed = std::min(speed, cluster.node(t.node).speed);
  return speed;
}

double ProgressModel::BusyFraction(const Job& job, const Workload& w, Micros done, double rate,
                                   double speed) const {
  return std::clamp(RecordedBusy(job, w, done) * rate / speed, 0.0, 1.0);
}

double WholeGpuProgress::Rate(const Job& job, const Placement& p,
                              const ClusterState& cluster) const {
  const double speed = PlacementSpeed(job, p, cluster);
  if (speed == 1.0) return 1.0;
  const double u = std::clamp(static_cast<double>(job.util), 0.0, 1.0);
  return 1.0 / ((1.0 - u) + u / speed);
}

}  // namespace utilsim
