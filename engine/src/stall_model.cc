#include "utilsim/engine/stall_model.h"

#include <algorithm>
#include <cstdio>

namespace utilsim {

StallParts ResolveParts(const Job& job, double comm_fraction) {
  StallParts p;
  p.busy = std::clamp(static_cast<double>(job.util), 0.0, 1.0);
  const bool gang = int64_t{job.tasks} * job.task.gpus > 1;
  double left = 1.0 - p.busy;
  auto take = [&](float known, double fallback) {
    const double v = std::min(left, known >= 0 ? static_cast<double>(known) : fallback);
    left -= v;
    return v;
  };
  p.input_cpu = take(job.stalls.input_cpu, 0.0);
  p.input_storage = take(job.stalls.input_storage, 0.0);
  p.comm = take(job.stalls.comm, gang ? comm_fraction : 0.0);
  p.fixed = left;
  return p;
}

double MaxMinShare(double mine, const std::vector<double>& demands, double capacity) {
  std::vector<double> d = demands;
  std::sort(d.begin(), d.end());
  double left = capacity;
  for (size_t k = 0; k < d.size(); ++k) {
    const double fair = left / static_cast<double>(d.size() - k);
    if (d[k] >= fair) return std::min(mine, fair);  // everyone from here on gets `fair`
    left -= d[k];
  }
  return mine;
}

std::string StallProgress::name() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "stall-%s comm=%g",
                composition_ == Composition::kSerial ? "serial" : "overlapped", comm_fraction_);
  return buf;
}

Progress StallProgress::Compose(const Job& job, const Scales& s) const {
  const StallParts p = ResolveParts(job, comm_fraction_);
  const double gpu = p.busy * s.gpu, cpu = p.input_cpu * s.cpu, sto = p.input_storage * s.storage;
  const double net = p.comm * s.net;
  double input = 0, storage = 0, time = 0;
  if (composition_ == Composition::kSerial) {
    input = cpu;
    storage = sto;
    time = p.fixed + gpu + cpu + sto + net;
  } else {
    double stage = 0;
    const double in = p.input_cpu + p.input_storage;
    if (in > 0) {
      stage = (p.busy + in) * (cpu + sto) / in;
    } else if (job.host_cpu_used_milli >= 0 && job.task.cpu_milli > 0) {
      stage = p.busy * static_cast<double>(job.host_cpu_used_milli) /
              static_cast<double>(job.task.cpu_milli) * s.cpu;
    }
    const double stall = std::max(0.0, stage - gpu);
    // The visible stall divides like the input stage's own time.
    const double weight = cpu + sto;
    input = weight > 0 ? stall * cpu / weight : stall;
    storage = weight > 0 ? stall * sto / weight : 0;
    time = p.fixed + net + std::max(gpu, stage);
  }
  Progress out;
  const bool unchanged = s.gpu == 1 && s.cpu == 1 && s.storage == 1 && s.net == 1;
  out.rate = unchanged ? 1.0 : 1.0 / time;
  auto share = [&](IdleCause c, double v) { out.idle[static_cast<size_t>(c)] = v / time; };
  share(IdleCause::kInput, input);
  share(IdleCause::kStorage, storage);
  share(IdleCause::kCommunication, net);
  share(IdleCause::kFixed, p.fixed);
  return out;
}

bool StallProgress::Interacts(const Workload& w, const ClusterState& c) const {
  const TopologySpec& t = c.spec().topology;
  for (const Job& j : w.jobs) {
    if (j.nic_bytes_s > 0 && j.tasks > 1) return true;
    if (j.storage_bytes_s > 0 && t.storage_bytes_s > 0) return true;
  }
  return false;
}

double StallProgress::Rate(const Job& job, const Placement& p, const ClusterState& cluster) const {
  Scales s;
  s.gpu = 1.0 / PlacementSpeed(job, p, cluster);
  s.net = comm_fraction_ > 0 || job.stalls.comm > 0 ? CommSlowdown(job, p, cluster) : 1.0;
  return Compose(job, s).rate;
}

Progress StallProgress::Evaluate(JobIndex j, const RunView& v) const {
  const Job& job = v.workload().jobs[j];
  const Placement& p = v.placement_of(j);
  const ClusterState& c = v.state();
  Scales s;
  s.gpu = 1.0 / PlacementSpeed(job, p, c);
  const TaskDemand& g = v.granted(j);
  if (job.task.cpu_milli > 0 && g.cpu_milli > 0)
    s.cpu = static_cast<double>(job.task.cpu_milli) / static_cast<double>(g.cpu_milli);
  s.net = CommSlowdown(job, p, c);
  const TopologySpec& topo = c.spec().topology;
  bool multi_node = false;
  for (const auto& tp : p) multi_node = multi_node || tp.node != p.front().node;
  // Shares of a node's NIC / storage among the running jobs that use it.
  auto worst = [&](double mine, double capacity, bool nic) {
    if (mine <= 0 || capacity <= 0) return 1.0;
    double factor = 1.0;
    std::vector<double> demands;
    for (const auto& tp : p) {
      demands.clear();
      for (JobIndex k : v.jobs_on(tp.node)) {
        const Job& other = v.workload().jobs[k];
        const double d = nic ? other.nic_bytes_s : other.storage_bytes_s;
        if (d <= 0) continue;
        if (nic) {  // only jobs that leave their node use its NIC
          const Placement& op = v.placement_of(k);
          bool spans = false;
          for (const auto& t : op) spans = spans || t.node != op.front().node;
          if (!spans) continue;
        }
        demands.push_back(d);
      }
      if (demands.empty()) demands.push_back(mine);
      factor = std::max(factor, mine / MaxMinShare(mine, demands, capacity));
    }
    return factor;
  };
  if (multi_node) s.net *= worst(job.nic_bytes_s, topo.nic_bytes_s, true);
  s.storage = worst(job.storage_bytes_s, topo.storage_bytes_s, false);
  return Compose(job, s);
}

}  // namespace utilsim
