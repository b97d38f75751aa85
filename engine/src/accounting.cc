#include "accounting.h"

#include <algorithm>
#include <cstdio>

namespace utilsim {

void LevelIntegral::Add(const Levels& v, int64_t dt_us) {
  gpu_milli_us += static_cast<WideInt>(v.gpu_milli) * dt_us;
  cpu_milli_us += static_cast<WideInt>(v.cpu_milli) * dt_us;
  mem_bytes_us += static_cast<WideInt>(v.mem_bytes) * dt_us;
  stranded_us += static_cast<WideInt>(v.stranded) * dt_us;
  free_uw_us += static_cast<WideInt>(v.free_uw) * dt_us;
  stranded_uw_us += static_cast<WideInt>(v.stranded_uw) * dt_us;
  node_uw_us += static_cast<WideInt>(v.node_uw) * dt_us;
  off_gpus_us += static_cast<WideInt>(v.off_gpus) * dt_us;
  for (size_t c = 0; c < down_gpus_us.size(); ++c)
    down_gpus_us[c] += static_cast<WideInt>(v.down_gpus[c]) * dt_us;
}

LevelIntegral LevelIntegral::operator-(const LevelIntegral& o) const {
  LevelIntegral d;
  d.gpu_milli_us = gpu_milli_us - o.gpu_milli_us;
  d.cpu_milli_us = cpu_milli_us - o.cpu_milli_us;
  d.mem_bytes_us = mem_bytes_us - o.mem_bytes_us;
  d.stranded_us = stranded_us - o.stranded_us;
  d.free_uw_us = free_uw_us - o.free_uw_us;
  d.stranded_uw_us = stranded_uw_us - o.stranded_uw_us;
  d.node_uw_us = node_uw_us - o.node_uw_us;
  d.off_gpus_us = off_gpus_us - o.off_gpus_us;
  for (size_t c = 0; c < down_gpus_us.size(); ++c)
    d.down_gpus_us[c] = down_gpus_us[c] - o.down_gpus_us[c];
  return d;
}

ClusterMeter::ClusterMeter(Micros t0, std::vector<Micros> boundaries)
    : last_(t0), t0_(t0), boundary_(std::move(boundaries)) {
  snapped_.assign(boundary_.size(), false);
  at_.assign(boundary_.size(), LevelIntegral{});
  for (size_t i = 0; i < boundary_.size(); ++i) snapped_[i] = boundary_[i] <= t0;
}

void ClusterMeter::Advance(Micros t, const Levels& over) {
  t = std::max(t, last_);
  for (size_t i = 0; i < boundary_.size(); ++i) {
    if (snapped_[i] || boundary_[i] > t) continue;
    at_[i] = total_;
    at_[i].Add(over, (boundary_[i] - last_).us);
    snapped_[i] = true;
  }
  total_.Add(over, (t - last_).us);
  last_ = t;
  levels_ = over;
}

LevelIntegral ClusterMeter::TotalAt(Micros t) const {
  if (t <= t0_) return {};
  for (size_t i = 0; i < boundary_.size(); ++i)
    if (snapped_[i] && boundary_[i] == t) return at_[i];
  // The levels have been constant since before t: extrapolate from last_.
  LevelIntegral out = total_;
  out.Add(levels_, (t - last_).us);
  return out;
}

JobMeter JobMeter::operator-(const JobMeter& o) const {
  JobMeter d;
  d.held_us = held_us - o.held_us;
  d.busy_gpu_us = busy_gpu_us - o.busy_gpu_us;
  d.energy_j = energy_j - o.energy_j;
  d.busy_energy_j = busy_energy_j - o.busy_energy_j;
  for (size_t c = 0; c < idle_us.size(); ++c) d.idle_us[c] = idle_us[c] - o.idle_us[c];
  return d;
}

std::string InvariantError(const std::string& name, Micros t, const std::string& job,
                           const std::string& detail) {
  char when[64];
  std::snprintf(when, sizeof when, "%.6f", t.seconds());
  return "invariant '" + name + "' violated at t=" + when + " s" +
         (job.empty() ? std::string() : ", job " + job) + ": " + detail +
         ". This is a utilsim bug: no result was written; please report it with the command";
}

}  // namespace utilsim
