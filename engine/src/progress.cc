#include "utilsim/engine/progress.h"

#include <algorithm>
#include <cstdio>

#include "utilsim/engine/units.h"

namespace utilsim {

double RecordedBusy(const Job& job, const Workload& w, Micros done) {
  if (job.series < 0) return job.util;
  const UtilSeries& s = w.series[job.series];
  auto it = std::upper_bound(s.offset.begin(), s.offset.end(), done);
  if (it == s.offset.begin()) return s.busy.empty() ? job.util : s.busy.front();
  return s.busy[static_cast<size_t>(it - s.offset.begin()) - 1];
}

double RecordedBusyIntegral(const Job& job, const Workload& w, Micros done) {
  if (job.series < 0)
    return static_cast<double>(job.util) * static_cast<double>(done.us) / kMicrosPerSecond;
  return SeriesMean(w.series[job.series], done) * static_cast<double>(done.us) / kMicrosPerSecond;
}

double PlacementSpeed(const Job& job, const Placement& p, const ClusterState& cluster) {
  if (p.empty() || job.task.gpus == 0) return 1.0;
  double speed = cluster.node(p.front().node).speed;
  for (const auto& t : p) speed = std::min(speed, cluster.node(t.node).speed);
  return speed;
}

double RunView::speed(JobIndex j) const {
  return PlacementSpeed(workload().jobs[j], placement_of(j), state());
}

double RunView::comm_slowdown(JobIndex j) const {
  return CommSlowdown(workload().jobs[j], placement_of(j), state());
}

void ProgressModel::EvaluateMany(const std::vector<JobIndex>& jobs, const RunView& v,
                                 std::vector<Progress>* out) const {
  out->resize(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) (*out)[i] = Evaluate(jobs[i], v);
}

double ProgressModel::BusyFraction(const Job& job, const Workload& w, Micros done, double rate,
                                   double speed) const {
  return std::clamp(RecordedBusy(job, w, done) * rate / speed, 0.0, 1.0);
}

double CommSlowdown(const Job& job, const Placement& p, const ClusterState& cluster) {
  const int64_t gpus = int64_t{job.tasks} * job.task.gpus;
  if (gpus <= 1) return 1.0;
  const Topology& topo = cluster.topology();
  const Reach now = topo.Assess(p);
  Reach recorded = topo.AssumedRecorded(job.tasks, job.task.gpus);
  bool assumed = true;
  if (!job.recorded_hosts.empty()) {
    std::vector<NodeIndex> nodes;
    std::vector<int32_t> per_node;
    bool known = true;
    for (const std::string& h : job.recorded_hosts) {
      const int64_t n = topo.FindNode(h);
      if (n < 0) {
        known = false;
        break;
      }
      nodes.push_back(static_cast<NodeIndex>(n));
      per_node.push_back(job.task.gpus);
    }
    // Hosts listed once per task; a shorter list spreads the tasks over them.
    if (known && nodes.size() == static_cast<size_t>(job.tasks)) {
      recorded = topo.AssessPacked(nodes, per_node);
      assumed = false;
    } else if (known && !nodes.empty() && static_cast<int64_t>(nodes.size()) <= gpus) {
      per_node.assign(nodes.size(), 0);
      for (int64_t k = 0; k < gpus; ++k) ++per_node[static_cast<size_t>(k) % nodes.size()];
      recorded = topo.AssessPacked(nodes, per_node);
      assumed = false;
    }
  }
  if (recorded.bytes_s == kUnlimitedBandwidth || now.bytes_s == kUnlimitedBandwidth ||
      recorded.bytes_s == now.bytes_s)
    return 1.0;
  // Against an assumed recording only slow-downs count: a placement tighter
  // than the assumption is not credited with a speed-up it may never have had.
  if (assumed && now.bytes_s > recorded.bytes_s) return 1.0;
  return recorded.bytes_s / now.bytes_s;
}

std::string WholeGpuProgress::name() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "whole-gpu comm=%g", comm_fraction_);
  return buf;
}

double WholeGpuProgress::Rate(const Job& job, const Placement& p,
                              const ClusterState& cluster) const {
  const double speed = PlacementSpeed(job, p, cluster);
  const double comm = comm_fraction_ > 0 ? CommSlowdown(job, p, cluster) : 1.0;
  if (speed == 1.0 && comm == 1.0) return 1.0;
  const double u = std::clamp(static_cast<double>(job.util), 0.0, 1.0);
  const double c = int64_t{job.tasks} * job.task.gpus > 1 ? std::min(comm_fraction_, 1.0 - u) : 0;
  return 1.0 / ((1.0 - u - c) + u / speed + c * comm);
}

Progress ProgressModel::Evaluate(JobIndex j, const RunView& v) const {
  const Job& job = v.workload().jobs[j];
  const Placement& p = v.placement_of(j);
  Progress out;
  out.rate = Rate(job, p, v.state());
  const double busy = std::clamp(
      static_cast<double>(job.util) * out.rate / PlacementSpeed(job, p, v.state()), 0.0, 1.0);
  out.idle[static_cast<size_t>(IdleCause::kUnattributed)] = 1.0 - busy;
  return out;
}

Progress WholeGpuProgress::Evaluate(JobIndex j, const RunView& v) const {
  const Job& job = v.workload().jobs[j];
  const Placement& p = v.placement_of(j);
  const double speed = PlacementSpeed(job, p, v.state());
  const double comm = comm_fraction_ > 0 ? CommSlowdown(job, p, v.state()) : 1.0;
  const double u = std::clamp(static_cast<double>(job.util), 0.0, 1.0);
  const double c = int64_t{job.tasks} * job.task.gpus > 1 ? std::min(comm_fraction_, 1.0 - u) : 0;
  const double time = (1.0 - u - c) + u / speed + c * comm;
  Progress out;
  out.rate = speed == 1.0 && comm == 1.0 ? 1.0 : 1.0 / time;
  out.idle[static_cast<size_t>(IdleCause::kCommunication)] = c * comm / time;
  out.idle[static_cast<size_t>(IdleCause::kUnattributed)] = std::max(0.0, 1.0 - u - c) / time;
  return out;
}

}  // namespace utilsim
