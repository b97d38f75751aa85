#include "utilsim/engine/stall_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

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

double FairLevel(std::vector<double>& d, double capacity) {
  std::sort(d.begin(), d.end());
  double left = capacity;
  for (size_t k = 0; k < d.size(); ++k) {
    const double fair = left / static_cast<double>(d.size() - k);
    if (d[k] >= fair) return fair;  // everyone from here on gets `fair`
    left -= d[k];
  }
  return std::numeric_limits<double>::infinity();
}

double MaxMinShare(double mine, const std::vector<double>& demands, double capacity) {
  std::vector<double> d = demands;
  return std::min(mine, FairLevel(d, capacity));
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

// Scratch reused across calls (per thread: models are shared by runs that
// may go on in parallel); cleared at the start of each evaluation.
StallProgress::LevelCache& StallProgress::Scratch() {
  thread_local LevelCache cache;
  cache.entries.clear();
  return cache;
}

Progress StallProgress::Evaluate(JobIndex j, const RunView& v) const {
  return EvaluateWith(j, v, Scratch());
}

void StallProgress::EvaluateMany(const std::vector<JobIndex>& jobs, const RunView& v,
                                 std::vector<Progress>* out) const {
  LevelCache& cache = Scratch();
  out->resize(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) (*out)[i] = EvaluateWith(jobs[i], v, cache);
}

Progress StallProgress::EvaluateWith(JobIndex j, const RunView& v, LevelCache& cache) const {
  const Job& job = v.workload().jobs[j];
  const Placement& p = v.placement_of(j);
  const ClusterState& c = v.state();
  Scales s;
  s.gpu = 1.0 / v.speed(j);
  const TaskDemand& g = v.granted(j);
  if (job.task.cpu_milli > 0 && g.cpu_milli > 0)
    s.cpu = static_cast<double>(job.task.cpu_milli) / static_cast<double>(g.cpu_milli);
  s.net = v.comm_slowdown(j);
  const TopologySpec& topo = c.spec().topology;
  bool multi_node = false;
  for (const auto& tp : p) multi_node = multi_node || tp.node != p.front().node;
  // The fair level of node n's NIC (nic) or storage among the running jobs
  // that use it; nullopt-like NaN when none does (then only `mine` counts).
  auto level = [&](NodeIndex n, double capacity, bool nic) {
    for (const auto& e : cache.entries)
      if (e.node == n && e.nic == nic) return e.level;
    std::vector<double>& demands = cache.demands;
    demands.clear();
    for (JobIndex k : v.jobs_on(n)) {
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
    const double l =
        demands.empty() ? std::numeric_limits<double>::quiet_NaN() : FairLevel(demands, capacity);
    cache.entries.push_back({n, nic, l});
    return l;
  };
  // Shares of a node's NIC / storage: the worst node of the placement.
  auto worst = [&](double mine, double capacity, bool nic) {
    if (mine <= 0 || capacity <= 0) return 1.0;
    double factor = 1.0;
    NodeIndex prev = static_cast<NodeIndex>(-1);
    for (const auto& tp : p) {
      if (tp.node == prev) continue;  // tasks of one node share its level
      prev = tp.node;
      double l = level(tp.node, capacity, nic);
      if (std::isnan(l)) {  // no user listed: the job alone
        std::vector<double> alone{mine};
        l = FairLevel(alone, capacity);
      }
      factor = std::max(factor, mine / std::min(mine, l));
    }
    return factor;
  };
  if (multi_node) s.net *= worst(job.nic_bytes_s, topo.nic_bytes_s, true);
  s.storage = worst(job.storage_bytes_s, topo.storage_bytes_s, false);
  return Compose(job, s);
}

}  // namespace utilsim
