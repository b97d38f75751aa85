#include "utilsim/engine/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "simulation.h"
#include "utilsim/engine/mig_cluster.h"
#include "utilsim/engine/units.h"

namespace utilsim {

#ifndef UTILSIM_VERSION
#define UTILSIM_VERSION "0.0.0"
#endif
const char* UtilsimVersion() { return UTILSIM_VERSION; }

const char* SeriesFormName(SeriesForm f) {
  switch (f) {
    case SeriesForm::kAuto:
      return "auto";
    case SeriesForm::kChanges:
      return "changes";
    case SeriesForm::kSamples:
      return "samples";
  }
  return "?";
}

namespace internal {

void SplitIdle(double idle, const std::array<double, kCauses>& share_us,
               std::array<double, kCauses>* out) {
  double total = 0;
  for (double v : share_us) total += v;
  for (size_t c = 0; c < kCauses; ++c)
    (*out)[c] = total > 0 ? idle * share_us[c] / total
                          : (c == static_cast<size_t>(IdleCause::kUnattributed) ? idle : 0.0);
}

std::string Simulation::Infeasible(const Job& job, ModelMask mask) {
  // How many tasks of this shape the empty cluster could host at once,
  // computed over distinct node shapes (few, however many nodes there are).
  int64_t capacity = 0;
  const TaskDemand& d = job.task;
  for (const NodeShape& shape : shapes_) {
    if (capacity >= job.tasks) break;
    if (!cluster_.CouldEverHost(shape.example, d, mask)) continue;
    const NodeInfo& info = cluster_.node(shape.example);
    int64_t k = INT64_MAX;
    if (d.cpu_milli > 0) k = std::min(k, info.cpu_milli / d.cpu_milli);
    if (d.mem_bytes > 0) k = std::min(k, info.mem_bytes / d.mem_bytes);
    if (d.gpus > 0)
      k = std::min<int64_t>(
          k, d.fractional() ? info.gpus * (kMilliPerUnit / d.gpu_milli) : info.gpus / d.gpus);
    capacity += std::min<int64_t>(k, job.tasks) * shape.count;
  }
  if (capacity == 0) {
    return "no node can host one task (" + std::to_string(d.gpus) + " GPU x " +
           std::to_string(d.gpu_milli) + " milli, " + std::to_string(d.cpu_milli) + " milli-CPU, " +
           std::to_string(d.mem_bytes >> 20) + " MiB" +
           (d.gpus > 0 && d.gpu_mem_bytes > 0
                ? ", " + std::to_string(d.gpu_mem_bytes >> 20) + " MiB GPU memory per GPU"
                : std::string()) +
           (job.gpu_models.empty() ? std::string() : ", allowed GPU models restricted") + ")";
  }
  if (capacity < job.tasks) {
    return "gang of " + std::to_string(job.tasks) + " tasks exceeds the " +
           std::to_string(capacity) + " such tasks the whole cluster can hold";
  }
  return cluster_.power_budget_on() ? OverBudget(job, mask) : std::string();
}

std::string Simulation::OverBudget(const Job& job, ModelMask mask) {
  // The least a task counts (its cheapest node) against the budget, over the
  // nodes that could host it, and whether some rack's headroom holds it.
  const ClusterState::PowerBudget& b = cluster_.power_budget();
  int64_t least = INT64_MAX;
  bool rack_ok = b.rack_mw.empty();
  for (const NodeShape& shape : shapes_) {
    if (!cluster_.CouldEverHost(shape.example, job.task, mask)) continue;
    least = std::min(least, cluster_.TaskPowerMw(shape.example, job.task));
  }
  if (least == INT64_MAX || least == 0) return {};
  for (NodeIndex n = 0; n < cluster_.num_nodes() && !rack_ok; ++n) {
    const uint32_t r = cluster_.topology().rack_of(n);
    rack_ok =
        cluster_.CouldEverHost(n, job.task, mask) &&
        (r == UINT32_MAX || b.rack_mw[r] < 0 || cluster_.TaskPowerMw(n, job.task) <= b.rack_mw[r]);
  }
  auto w = [](int64_t mw) { return std::to_string((mw + 500) / 1000); };
  if (!rack_ok)
    return "no rack's power budget holds one task (" + w(least) + " W above idle at least)";
  if (b.cluster_mw >= 0 && least * job.tasks > b.cluster_mw)
    return "needs " + w(least * job.tasks) + " W above idle, the power budget leaves " +
           w(b.cluster_mw) + " W";
  return {};
}

void Simulation::SchedulePass(Micros t) {
  if (const int64_t l = cfg_.pass_interval.us; l > 0 && t.us % l != 0)
    t = Micros((t.us / l + (t.us > 0 ? 1 : 0)) * l);  // the next cycle, rounding up
  if (pass_at_ == t) return;
  pass_at_ = t;
  events_.Push(Event{t, Phase::kPass, 0, 0});
}

void Simulation::DoArrival(JobIndex j) {
  const Job& job = w_.jobs[j];
  JobRun& r = Acquire(j);
  std::string reason = Infeasible(job, masks_[j]);
  if (!reason.empty()) {
    r.rejected = true;
    r.reason = std::move(reason);
    Deliver(RecordOf(j));
    Observe(EventKind::kReject, j);
    ReleaseRun(j);
    return;
  }
  r.queued = true;
  r.queued_since = now_;
  QueuedNow(j, false);
  Observe(EventKind::kArrival, j);
  sched_.OnArrival(j, now_);
  SchedulePass(now_);
}

Status Simulation::StartWith(JobIndex j, const Placement& p, const TaskDemand& granted) {
  const Job& job = w_.jobs[j];
  JobRun& r = Run(j);
  auto fail = [&](const std::string& why) {
    return Status::Error("policy '" + sched_.label() + "' returned an invalid placement for job " +
                         job.name + ": " + why);
  };
  if (!r.queued) return fail("the job is not queued");
  if (granted.gpus != job.task.gpus || granted.gpu_milli != job.task.gpu_milli ||
      granted.cpu_milli < 0 || granted.mem_bytes < 0 ||
      granted.gpu_mem_bytes != job.task.gpu_mem_bytes)
    return fail("granted demand must keep the job's GPUs and ask for CPU and memory >= 0");
  if (static_cast<int32_t>(p.size()) != job.tasks)
    return fail(std::to_string(p.size()) + " task placements for " + std::to_string(job.tasks) +
                " tasks");
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i].node < cluster_.num_nodes() && !node_state_.empty() && node_state_[p[i].node] != 0)
      return fail("node " + cluster_.node(p[i].node).name + " is powered off or waking up");
    if (p[i].node < cluster_.num_nodes() && Unavailable(p[i].node))
      return fail("node " + cluster_.node(p[i].node).name + " is down or drained");
    if (p[i].node < cluster_.num_nodes() && !cluster_.ModelAllowed(p[i].node, masks_[j]) &&
        job.task.gpus > 0)
      return fail("node " + cluster_.node(p[i].node).name + " has a GPU model the job excludes");
    Status s = cluster_.Allocate(p[i], granted);
    if (!s.ok()) {
      for (size_t k = 0; k < i; ++k) cluster_.Release(p[k], granted);
      return fail(s.message());
    }
  }
  // Always on: no start takes the cluster or a rack over its power budget.
  if (Status s = cluster_.CheckPowerBudget(p); !s.ok()) {
    for (const TaskPlacement& t : p) cluster_.Release(t, granted);
    return fail(s.message());
  }
  if (!(granted == job.task) && granted_.empty()) {
    granted_.reserve(w_.jobs.size());
    for (const Job& k : w_.jobs) granted_.push_back(k.task);
  }
  if (!granted_.empty()) granted_[j] = granted;
  Settle(j, pass_time_.empty() ? 0 : static_cast<uint32_t>(pass_time_.size() - 1));
  CloseWait(j, now_);
  r.queued = false;
  r.queued_us += (now_ - r.queued_since).us;
  r.running = true;
  r.placement = p;
  r.start = now_;
  if (r.first_start.us < 0) r.first_start = now_;
  r.last = now_;
  ++running_;
  Observe(EventKind::kStart, j);
  if (interacts_) {
    for (const auto& t : p) on_node_[t.node].push_back(j);
  }
  r.speed = PlacementSpeed(job, p, cluster_);
  r.comm = -1;
  SetJobPower(j);
  r.list_pos = static_cast<uint32_t>(running_list_.size());
  running_list_.push_back(j);
  AddRunning(j);
  UpdateStranded(p);
  SetProgress(j, progress_->Evaluate(j, *this));
  if (interacts_) UpdateRates(p, j);
  return Status::Ok();
}

Status Simulation::Preempt(JobIndex j) {
  if (!IsLive(j) || !Run(j).running)
    return Status::Error("policy '" + sched_.label() + "' preempted a job that is not running");
  JobRun& r = Run(j);
  Account(j);
  ++r.preemptions;
  StopRunning(j, std::max(0.0, r.done - static_cast<double>(cfg_.restart_cost.us)));
  QueuedNow(j, true);
  Observe(EventKind::kPreempt, j);
  return Status::Ok();
}

void Simulation::StopRunning(JobIndex j, double keep_work) {
  JobRun& r = Run(j);
  // The work given back was done (or will be redone) at the rate it ran.
  if (r.done > keep_work && r.rate > 0) r.lost_us += (r.done - keep_work) / r.rate;
  r.done = keep_work;
  r.held_before_us += (now_ - r.start).us;
  finishes_.Remove(slot_[j]);
  r.running = false;
  r.queued = true;
  r.queued_since = now_;
  --running_;
  {
    const JobIndex last = running_list_.back();
    running_list_[r.list_pos] = last;
    Run(last).list_pos = r.list_pos;
    running_list_.pop_back();
  }
  RemoveRunning(j);
  for (const auto& t : r.placement) cluster_.Release(t, granted(j));
  UpdateStranded(r.placement);
  for (const auto& t : r.placement) NodeEmptied(t.node);
  if (interacts_) {
    for (const auto& t : r.placement) {
      auto& v = on_node_[t.node];
      v.erase(std::remove(v.begin(), v.end(), j), v.end());
    }
    UpdateRates(r.placement, j);
  }
}

void Simulation::Account(JobIndex j) {
  JobRun& r = Run(j);
  const Micros dt = now_ - r.last;
  if (dt.us > 0) {
    // Busy time counts work done for the first time: work redone after a
    // preemption's restart cost (below the high-water mark) is idle.
    const double from = std::max(r.done, r.hwm);
    const double to = r.done + static_cast<double>(dt.us) * r.rate;
    double busy_us = 0;
    if (to > from) {
      busy_us = w_.jobs[j].series < 0 ? r.busy_frac * MicroGpus(j) / 1e6 * (to - from) / r.rate
                                      : SeriesBusyUs(j, from, to);
      r.busy_gpu_us += busy_us;
      r.hwm = to;
    }
    // Power is linear in the busy signal: context power over the held GPU
    // time, plus the active step over the busy GPU time.
    r.energy_j += (r.context_w * MicroGpus(j) / 1e6 * static_cast<double>(dt.us) +
                   (r.active_w - r.context_w) * busy_us) /
                  1e6;
    r.busy_energy_j += r.active_w * busy_us / 1e6;
    r.done = to;
    for (size_t c = 0; c < kCauses; ++c) r.idle_us[c] += static_cast<double>(dt.us) * r.share[c];
    r.last = now_;
  }
}

void Simulation::SetProgress(JobIndex j, const Progress& given) {
  // A job on a straggler runs at its pace: each share of its wall time
  // shrinks by it, and the rest its GPUs wait for the slowest member.
  Progress paced;
  const double pace = Pace(j);
  if (pace < 1.0) {
    paced = given;
    paced.rate *= pace;
    for (auto& v : paced.idle) v *= pace;
    paced.idle[static_cast<size_t>(IdleCause::kCommunication)] += 1.0 - pace;
  }
  const Progress& pr = pace < 1.0 ? paced : given;
  JobRun& r = Run(j);
  Account(j);
  const double rate = pr.rate;
  r.rate = rate;
  std::array<int64_t, kCauses> old_idle{};
  for (size_t c = 0; c < kCauses; ++c) {
    old_idle[c] = IdleMicro(j, c);  // 0 unless already counted (shares are zeroed on removal)
    r.share[c] = static_cast<float>(pr.idle[c]);
  }
  const double remaining = std::max(0.0, static_cast<double>(w_.jobs[j].runtime.us) - r.done);
  // Round up to whole microseconds, forgiving floating-point noise (relative
  // 1e-12) so that a hand-exact time such as 100 s x 3.3 is not one us late.
  const double exact = remaining / rate;
  const int64_t dt = rate == 1.0
                         ? static_cast<int64_t>(std::llround(remaining))
                         : static_cast<int64_t>(std::ceil(exact - std::max(1e-9, exact * 1e-12)));
  r.finish = now_ + Micros(std::max<int64_t>(dt, 0));
  if (const Job& job = w_.jobs[j]; job.kill_at_limit && job.walltime_limit) {
    // A recorded run that overran its limit (a scheduler's grace period) is
    // allowed its recorded length: identity replays are never killed.
    const Micros allowed = std::max(*job.walltime_limit, job.runtime);
    r.finish = std::min(r.finish, std::max(now_, r.start + allowed));
  }
  if (w_.jobs[j].series < 0) {
    busy_micro_const_ -= r.busy_micro;
    r.busy_frac = progress_->BusyFraction(w_.jobs[j], w_, Micros(0), r.rate, r.speed);
    r.busy_micro = ConstBusy(j);
    busy_micro_const_ += r.busy_micro;
    for (size_t c = 0; c < kCauses; ++c) idle_micro_const_[c] += IdleMicro(j, c) - old_idle[c];
    power_const_uw_ -= r.power_uw;
    r.power_uw = JobPowerUw(j, r.busy_frac);
    power_const_uw_ += r.power_uw;
  }
  finishes_.Set(slot_[j], j, r.finish);
}

void Simulation::UpdateRates(const Placement& p, JobIndex except) {
  std::vector<JobIndex>& touched = touched_;
  touched.clear();
  for (const auto& t : p)
    for (JobIndex k : on_node_[t.node])
      if (k != except) touched.push_back(k);
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  // The co-runners' records are scattered: start all their loads at once.
  for (JobIndex k : touched) {
    __builtin_prefetch(&Run(k));
    __builtin_prefetch(&w_.jobs[k]);
  }
  progress_->EvaluateMany(touched, *this, &rerated_);
  for (size_t i = 0; i < touched.size(); ++i) {
    const JobIndex k = touched[i];
    const Progress& pr = rerated_[i];
    bool same = pr.rate == Run(k).rate;
    for (size_t c = 0; c < kCauses && same; ++c)
      same = static_cast<float>(pr.idle[c]) == Run(k).share[c];
    if (!same) SetProgress(k, pr);
  }
}

void Simulation::DoFinish(JobIndex j) {
  JobRun& r = Run(j);
  const Job& job = w_.jobs[j];
  Account(j);
  // Killed at the limit when work is left (rates round finish times up, so
  // a job that completes has done >= runtime - 1 us).
  r.killed = r.done + 1.0 < static_cast<double>(job.runtime.us);
  if (!r.killed) r.done = static_cast<double>(job.runtime.us);
  r.running = false;
  r.finished = true;
  r.end = now_;
  last_finish_ = std::max(last_finish_, now_);
  --running_;
  {  // swap-remove: O(1)
    const JobIndex last = running_list_.back();
    running_list_[r.list_pos] = last;
    Run(last).list_pos = r.list_pos;
    running_list_.pop_back();
  }
  RemoveRunning(j);
  for (const auto& t : r.placement) cluster_.Release(t, granted(j));
  UpdateStranded(r.placement);
  for (const auto& t : r.placement) NodeEmptied(t.node);
  if (interacts_) {
    for (const auto& t : r.placement) {
      auto& v = on_node_[t.node];
      v.erase(std::remove(v.begin(), v.end(), j), v.end());
    }
    UpdateRates(r.placement, j);
  }
  if (frag_meter_) frag_meter_->Finished(now_);
  Deliver(RecordOf(j));
  Observe(r.killed ? EventKind::kKill : EventKind::kFinish, j);
  sched_.OnFinish(j, now_);
  ReleaseRun(j);
  // Freed resources matter only to queued jobs (arrivals schedule their own).
  if (sched_.queued() > 0) SchedulePass(now_);
}

bool Simulation::DoSample() {
  ++ticks_;
  if (TickIdle()) return false;
  Sample s = StateNow(true);
  if (!changes_form_) {
    Deliver(std::move(s));
    return true;
  }
  // The point of this instant is delivered when it is over; the sample
  // checks it then, and feeds the summary's sampled figures now.
  if (!cfg_.keep_rows && frag_meter_) frag_meter_->Add(s);
  tick_sample_ = std::move(s);
  return true;
}

Sample Simulation::StateNow(bool at_tick) {
  Sample s;
  s.time = now_;
  s.gpus_allocated = static_cast<double>(cluster_.allocated_gpu_milli()) / kMilliPerUnit;
  int64_t busy_micro = busy_micro_const_;
  std::array<int64_t, kCauses> idle_micro = idle_micro_const_;
  int64_t power_uw = power_const_uw_ + free_uw_total_ + node_uw_total_;
  for (JobIndex j : running_series_) {
    if (at_tick) Account(j);
    const JobRun& r = Run(j);
    // Account's progress now, without recording it.
    const Micros dt = now_ - r.last;
    const double done = dt.us > 0 ? r.done + static_cast<double>(dt.us) * r.rate : r.done;
    const double f =
        progress_->BusyFraction(w_.jobs[j], w_, Micros(std::llround(done)), r.rate, r.speed);
    const double gpus_micro = MicroGpus(j);
    busy_micro += std::llround(f * gpus_micro);
    power_uw += JobPowerUw(j, f);
    // The idle part now, divided like the job's idle shares.
    double total = 0;
    for (float v : r.share) total += v;
    for (size_t c = 0; c < kCauses; ++c) {
      const double part = total > 0 ? r.share[c] / total
                                    : (c == static_cast<size_t>(IdleCause::kUnattributed) ? 1 : 0);
      idle_micro[c] += std::llround((1.0 - f) * gpus_micro * part);
    }
  }
  s.gpus_busy = static_cast<double>(busy_micro) / 1e6;
  s.power_w = static_cast<double>(power_uw) / 1e6;
  for (size_t c = 0; c < kCauses; ++c) s.gpus_idle[c] = static_cast<double>(idle_micro[c]) / 1e6;
  s.queued = static_cast<int64_t>(sched_.queued());
  s.running = running_;
  s.cpu_allocated_frac = cluster_.total_cpu() ? static_cast<double>(cluster_.allocated_cpu()) /
                                                    static_cast<double>(cluster_.total_cpu())
                                              : 0;
  s.mem_allocated_frac = cluster_.total_mem() ? static_cast<double>(cluster_.allocated_mem()) /
                                                    static_cast<double>(cluster_.total_mem())
                                              : 0;
  for (int64_t g : down_gpus_) s.gpus_down += g;
  // Down nodes are empty: all their GPUs are whole-free, and not capacity.
  s.gpus_free_whole = cluster_.whole_free_gpus_total() - s.gpus_down;
  if (at_tick) scanned_version_ = cluster_.version();
  if (at_tick && !stranding_.empty()) {
    int64_t stranded = 0;
    for (NodeIndex n = 0; n < cluster_.num_nodes(); ++n) {
      const int32_t free = cluster_.free_whole_gpus(n);
      if (free > 0 && !IsDown(n) &&
          !stranding_.Hosts(free, cluster_.free_cpu(n), cluster_.free_mem(n)))
        stranded += free;
    }
    if (stranded != stranded_total_)
      Violate("samples show the tracked state", kNoJob,
              "stranded GPUs: " + std::to_string(stranded) + " sampled, " +
                  std::to_string(stranded_total_) + " tracked");
  }
  s.gpus_stranded = stranding_.empty() ? 0 : stranded_total_;
  if (cfg_.fragmentation) {
    // A function of the cluster's allocations alone: measured again only
    // once they changed (at every tick, as samples always were).
    if (at_tick || cluster_.version() != frag_version_) {
      frag_now_ = cfg_.fragmentation(cluster_);
      frag_version_ = cluster_.version();
    }
    s.frag_gpu_milli = frag_now_;
  }
  return s;
}

void Simulation::EndInstant() {
  if (!instant_open_) return;
  instant_open_ = false;
  Sample s = StateNow(false);
  if (tick_sample_) {
    if (!SameState(s, *tick_sample_))
      Violate("change points show the sampled state", kNoJob,
              "at " + std::to_string(now_.seconds()) +
                  " s the change point differs from the sample taken then");
    tick_sample_.reset();
  }
  if (last_point_ && SameState(s, *last_point_)) return;
  last_point_ = s;
  if (cfg_.sink) cfg_.sink->OnChangePoint(s);
  if (cfg_.keep_rows) changes_.push_back(std::move(s));
}

// Busy contribution of a constant-util running job, in micro-GPUs.
// Precondition: Run(j).busy_frac is current.
int64_t Simulation::ConstBusy(JobIndex j) const {
  const Job& job = w_.jobs[j];
  return std::llround(Run(j).busy_frac * static_cast<double>(job.task.total_gpu_milli()) *
                      job.tasks * 1000.0);
}

// The series is a step function of recorded time, so under a constant rate
// the busy fraction is a step function of wall time: each step contributes
// (its recorded length / rate) x the progress model's busy fraction there.
double Simulation::SeriesBusyUs(JobIndex j, double d0, double d1) const {
  const Job& job = w_.jobs[j];
  const JobRun& r = Run(j);
  auto frac = [&](Micros at) { return progress_->BusyFraction(job, w_, at, r.rate, r.speed); };
  const std::vector<Micros>& off = w_.series[job.series].offset;
  // First step boundary after d0.
  size_t k = static_cast<size_t>(
      std::upper_bound(off.begin(), off.end(), Micros(static_cast<int64_t>(std::floor(d0)))) -
      off.begin());
  double acc = 0, d = d0;
  while (d < d1) {
    const double next = k < off.size() ? std::min(d1, static_cast<double>(off[k].us)) : d1;
    // The step holding d starts at off[k - 1] (before the first offset: the
    // first value, which RecordedBusy gives for time 0).
    const Micros at = k > 0 ? off[k - 1] : Micros(0);
    if (next > d) acc += (next - d) * frac(at);
    d = next;
    ++k;
  }
  return MicroGpus(j) / 1e6 * acc / r.rate;
}

void Simulation::UpdateStranded(const Placement& p) {
  UpdatePower(p);
  if (stranding_.empty()) return;
  for (const TaskPlacement& t : p) {
    const int32_t free = cluster_.free_whole_gpus(t.node);
    const int32_t now =
        free > 0 && !IsDown(t.node) &&
                !stranding_.Hosts(free, cluster_.free_cpu(t.node), cluster_.free_mem(t.node))
            ? free
            : 0;
    stranded_total_ += now - node_stranded_[t.node];
    if (const int32_t model = cluster_.node(t.node).model; model >= 0)
      stranded_uw_total_ += (now - node_stranded_[t.node]) * model_power_[model].idle_uw;
    node_stranded_[t.node] = now;
  }
}

Status Simulation::InitPower() {
  const ClusterSpec& spec = cluster_.spec();
  model_power_.clear();
  ClusterState::PowerBudget budget;
  for (const GpuModelSpec& m : spec.models) {
    const GpuPower& found = PowerOf(cfg_.power, m.name);
    GpuPower p = found;
    // A MIG instance model not named in the power model draws its compute
    // slices' share of the physical GPU (a derived figure, docs/energy.md).
    if (const auto inst = ParseMigInstanceModel(m.name); inst && &found == &cfg_.power.fallback) {
      const std::string phys = m.name.substr(0, m.name.rfind(kMigSeparator));
      const GpuPower& whole = PowerOf(cfg_.power, phys);
      const double f = inst->prof().compute_slices / 7.0;
      p = GpuPower{whole.idle_w * f, whole.context_w * f, whole.active_w * f,
                   whole.source,     whole.tdp_w * f,     whole.cap_w * f};
    }
    ModelPower mp;
    mp.idle_w = p.idle_w;
    mp.context_w = p.context_w;
    mp.active_w = p.active_w;
    mp.idle_uw = std::llround(p.idle_w * 1e6);
    mp.context_uw = std::llround(p.context_w * 1e6);
    model_power_.push_back(mp);
    budget.model_mw.push_back(std::llround(BudgetWatts(p) * 1e3));
  }
  node_free_uw_.assign(cluster_.num_nodes(), 0);
  node_uw_total_ = 0;
  for (NodeIndex n = 0; n < cluster_.num_nodes(); ++n) {
    const int32_t gpus = cluster_.node(n).gpus;
    node_uw_total_ += gpus > 0 ? std::llround(cfg_.power.node_w_per_gpu * 1e6) * gpus
                               : std::llround(cfg_.power.cpu_node_w * 1e6);
  }
  return InitBudget(std::move(budget));
}

Status Simulation::InitBudget(ClusterState::PowerBudget budget) {
  const double cluster_w = cfg_.power_budget_w, rack_w = cfg_.rack_power_budget_w;
  if (!std::isfinite(cluster_w) || cluster_w < 0 || !std::isfinite(rack_w) || rack_w < 0)
    return Status::Error("power budget must be finite and >= 0 W (0 = none)");
  if (cluster_w == 0 && rack_w == 0) return Status::Ok();
  // The idle draw the budget's headroom is left after: every GPU at idle
  // power and every node's non-GPU power, whether on or off (docs/energy.md).
  const Topology& topo = cluster_.topology();
  std::vector<int64_t> rack_idle_mw(topo.num_racks(), 0);
  int64_t idle_mw = 0;
  for (NodeIndex n = 0; n < cluster_.num_nodes(); ++n) {
    const NodeInfo& info = cluster_.node(n);
    int64_t mw = info.gpus > 0 ? std::llround(cfg_.power.node_w_per_gpu * 1e3) * info.gpus
                               : std::llround(cfg_.power.cpu_node_w * 1e3);
    if (info.model >= 0) mw += model_power_[info.model].idle_uw / 1000 * info.gpus;
    idle_mw += mw;
    if (const uint32_t r = topo.rack_of(n); r != UINT32_MAX) rack_idle_mw[r] += mw;
  }
  auto w = [](int64_t mw) { return std::to_string((mw + 500) / 1000); };
  if (cluster_w > 0) {
    const int64_t mw = std::llround(cluster_w * 1e3);
    if (mw < idle_mw)
      return Status::Error("power budget " + w(mw) + " W is below the cluster's idle draw " +
                           w(idle_mw) + " W (GPUs at idle power and node power)");
    budget.cluster_mw = mw - idle_mw;
  }
  if (rack_w > 0) {
    // Every cluster has racks: without any listed or generated, all nodes
    // sit in "rack-0" (topology.h), so the rack budget is then the cluster's.
    const int64_t mw = std::llround(rack_w * 1e3);
    budget.rack_mw.assign(topo.num_racks(), -1);
    for (size_t r = 0; r < topo.num_racks(); ++r) {
      if (mw < rack_idle_mw[r])
        return Status::Error("rack power budget " + w(mw) + " W is below rack '" +
                             topo.rack_name(static_cast<uint32_t>(r)) + "'s idle draw " +
                             w(rack_idle_mw[r]) + " W");
      budget.rack_mw[r] = mw - rack_idle_mw[r];
    }
  }
  return cluster_.SetPowerBudget(std::move(budget));
}

void Simulation::UpdatePower(const Placement& p) {
  for (const TaskPlacement& t : p) {
    const NodeInfo& info = cluster_.node(t.node);
    if (info.model < 0 || (!node_state_.empty() && node_state_[t.node] == 1) || IsDown(t.node))
      continue;
    const ModelPower& mp = model_power_[info.model];
    // Whole-free GPUs at idle power; the free share of a partly allocated
    // GPU at context power (its context is up for its other jobs).
    int64_t uw = 0;
    for (int g = 0; g < info.gpus; ++g) {
      const int64_t free = cluster_.gpu_free_milli(t.node, g);
      uw += free >= kMilliPerUnit ? mp.idle_uw : mp.context_uw * free / kMilliPerUnit;
    }
    free_uw_total_ += uw - node_free_uw_[t.node];
    node_free_uw_[t.node] = uw;
  }
}

void Simulation::QueuedNow(JobIndex j, bool preempted) {
  WaitTrack& w = Run(j).wait;
  w.since = now_;
  w.last_pass = kNoPass;
  w.preempted = preempted;
  w.cause = preempted ? WaitCause::kPreemption : sched_.unexamined_cause();
  w.blocker = kNoBlocker;
  w.nodes = NodeCounts{};
  w.estimate = kNever;
}

void Simulation::Settle(JobIndex j, uint32_t pass) {
  WaitTrack& w = Run(j).wait;
  if (w.preempted || w.last_pass == kNoPass || w.last_pass + 1 >= pass) return;
  CloseWait(j, pass_time_[w.last_pass + 1]);
  w.cause = sched_.unexamined_cause();
  w.blocker = kNoBlocker;
  w.nodes = NodeCounts{};
  w.estimate = kNever;
  w.last_pass = kNoPass;
}

void Simulation::CloseWait(JobIndex j, Micros t) {
  WaitTrack& w = Run(j).wait;
  if (t <= w.since) return;
  std::vector<WaitInterval>& v = Run(j).waits;
  if (!v.empty() && v.back().to == w.since && v.back().cause == w.cause &&
      v.back().blocker == w.blocker)
    v.back().to = t;
  else
    v.push_back(WaitInterval{w.since, t, w.cause, w.blocker, w.nodes, w.estimate});
  w.since = t;
}

void Simulation::ApplyWaitReports() {
  const uint32_t pass = static_cast<uint32_t>(pass_time_.size() - 1);
  // Jobs of one shape and mask wait for the same reason on one state.
  std::map<std::tuple<int32_t, int32_t, int64_t, int64_t, int64_t, int32_t, int32_t, ModelMask,
                      WaitCause>,
           WaitCause>
      classified;
  for (const WaitReport& rep : reports_) {
    const JobIndex j = rep.job;
    if (!IsLive(j) || !Run(j).queued || Run(j).wait.preempted) continue;
    WaitCause c = rep.cause;
    if (c == WaitCause::kResources) {
      const Job& job = w_.jobs[j];
      const TaskDemand& d = job.task;
      const auto key =
          std::make_tuple(d.gpus, d.gpu_milli, d.cpu_milli, d.mem_bytes, d.gpu_mem_bytes,
                          d.mig_profile, job.tasks, masks_[j], rep.if_fits);
      auto it = classified.find(key);
      if (it == classified.end()) {
        WaitCause k = ClassifyUnplaced(job, masks_[j], cluster_, rep.if_fits);
        // Resources short only because nodes sleep: waiting for power-on.
        if (sleeping_nodes_ > 0 && k != rep.if_fits && k != WaitCause::kMigLayout &&
            k != WaitCause::kPowerBudget && FitsOnSleepingNode(j))
          k = WaitCause::kPowerOn;
        // Or because nodes are down, drained or absent.
        if (unavailable_nodes_ > 0 && k != rep.if_fits && k != WaitCause::kMigLayout &&
            k != WaitCause::kPowerBudget && k != WaitCause::kPowerOn && FitsOnUnavailableNode(j))
          k = WaitCause::kNodesDown;
        it = classified.emplace(key, k).first;
      }
      c = it->second;
      // Waking nodes does not help a job the power budget holds back.
      // (Once per pass: EASY reports its head twice, the second time with
      // its reservation.)
      if (c != WaitCause::kPowerBudget && Run(j).wait.last_pass != pass) unplaced_.push_back(j);
    } else if (static_cast<size_t>(c) >= kWaitCauses) {
      continue;
    }
    Settle(j, pass);
    WaitTrack& w = Run(j).wait;
    if (c != w.cause || rep.blocker != w.blocker) {
      CloseWait(j, now_);
      w.cause = c;
      w.blocker = rep.blocker;
      w.nodes = cfg_.wait_detail && rep.cause == WaitCause::kResources
                    ? CountNodes(w_.jobs[j], masks_[j], cluster_)
                    : NodeCounts{};
      w.estimate = rep.estimate;
    } else if (w.estimate == kNever) {
      w.estimate = rep.estimate;
    }
    w.last_pass = pass;
  }
  reports_.clear();
  if (cfg_.power_off_after != kNever && !unplaced_.empty()) WakeFor(unplaced_);
  unplaced_.clear();
}

void Simulation::WaitTotals(JobIndex j, int64_t queued_us, JobRecord* rec) {
  std::array<int64_t, kWaitCauses> us{};
  int64_t sum = 0;
  for (const WaitInterval& v : Run(j).waits) {
    us[static_cast<size_t>(v.cause)] += (v.to - v.from).us;
    sum += (v.to - v.from).us;
  }
  if (sum != queued_us)
    Violate("wait causes sum to the queued time", j,
            std::to_string(sum) + " us attributed, " + std::to_string(queued_us) + " us queued");
  for (size_t c = 0; c < kWaitCauses; ++c)
    rec->wait_cause_s[c] = static_cast<double>(us[c]) / kMicrosPerSecond;
  rec->waits = std::move(Run(j).waits);
  Run(j).waits.clear();
}

void Simulation::SetNodePower(NodeIndex n, uint8_t state) {
  const NodeInfo& info = cluster_.node(n);
  const bool was_off = node_state_[n] == 1, off = state == 1;
  const bool was_asleep = node_state_[n] != 0, asleep = state != 0;
  node_state_[n] = state;
  if (was_asleep != asleep) {
    RefreshCordon(n);
    sleeping_nodes_ += asleep ? 1 : -1;
  }
  if (was_off == off) return;
  const int64_t node_uw = NodeUw(n);
  node_uw_total_ += off ? -node_uw : node_uw;
  off_gpus_ += off ? info.gpus : -info.gpus;
  // An off node's GPUs draw nothing; back on, they are free at idle power
  // (and stranded again if they were: a node whose CPU or memory can host
  // no GPU task of the workload is stranded even when empty).
  const int64_t stranded_uw =
      info.model >= 0 ? node_stranded_[n] * model_power_[info.model].idle_uw : 0;
  if (off) {
    free_uw_total_ -= node_free_uw_[n];
    node_free_uw_[n] = 0;
    stranded_uw_total_ -= stranded_uw;
  } else {
    UpdatePower({TaskPlacement{n, 0}});
    stranded_uw_total_ += stranded_uw;
  }
}

int64_t Simulation::NodeUw(NodeIndex n) const {
  const NodeInfo& info = cluster_.node(n);
  return info.gpus > 0 ? std::llround(cfg_.power.node_w_per_gpu * 1e6) * info.gpus
                       : std::llround(cfg_.power.cpu_node_w * 1e6);
}

void Simulation::NodeEmptied(NodeIndex n) {
  if (cluster_.tasks_on(n) != 0) return;
  if (!pending_down_.empty() && pending_down_[n] != 0) {  // a down waiting for its jobs
    SetDown(n, static_cast<DownCause>(pending_down_[n] - 1));
    return;
  }
  if (cfg_.power_off_after == kNever || node_state_[n] != 0 || IsDown(n)) return;
  empty_since_[n] = now_;
  events_.Push(Event{now_ + cfg_.power_off_after, Phase::kClusterChange, 0, n});
}

void Simulation::DoClusterChange(uint32_t what) {
  if (what >= kNodeEventTag) {
    DoNodeEvent(what - kNodeEventTag);
    return;
  }
  const NodeIndex n = what;
  if (node_state_[n] == 2 && wake_at_[n] == now_) {  // woken up
    SetNodePower(n, 0);
    NodeEmptied(n);
    if (sched_.queued() > 0) SchedulePass(now_);
    return;
  }
  if (node_state_[n] == 0 && cluster_.tasks_on(n) == 0 && !IsDown(n) &&
      empty_since_[n] + cfg_.power_off_after == now_)
    SetNodePower(n, 1);
}

bool Simulation::FitsOnSleepingNode(JobIndex j) const {
  for (NodeIndex n = 0; n < cluster_.num_nodes(); ++n)
    if (node_state_[n] != 0 && !Unavailable(n) &&
        cluster_.CouldEverHost(n, w_.jobs[j].task, masks_[j]))
      return true;
  return false;
}

void Simulation::WakeFor(const std::vector<JobIndex>& unplaced) {
  if (sleeping_nodes_ == 0) return;
  // Tasks the waking nodes will host, claimed job by job in report order;
  // off nodes are woken, lowest index first, for what is still missing.
  // A shape that found no unclaimed sleeping node finds none for a later
  // job either: each shape scans the nodes at most once after that.
  std::vector<uint8_t> claimed(cluster_.num_nodes(), 0);
  std::set<std::tuple<int32_t, int32_t, int64_t, int64_t, int64_t, ModelMask>> exhausted;
  int64_t left = sleeping_nodes_;
  for (JobIndex j : unplaced) {
    if (left == 0) break;
    const Job& job = w_.jobs[j];
    const TaskDemand& d = job.task;
    const auto shape =
        std::make_tuple(d.gpus, d.gpu_milli, d.cpu_milli, d.mem_bytes, d.gpu_mem_bytes, masks_[j]);
    if (exhausted.count(shape)) continue;
    int64_t need = job.tasks;
    for (NodeIndex n = 0; n < cluster_.num_nodes() && need > 0; ++n) {
      if (node_state_[n] == 0 || claimed[n] || Unavailable(n) ||
          !cluster_.CouldEverHost(n, job.task, masks_[j]))
        continue;
      claimed[n] = 1;
      --left;
      --need;
      if (node_state_[n] == 1) {
        SetNodePower(n, 2);
        wake_at_[n] = now_ + cfg_.wake_delay;
        ++wakeups_;
        events_.Push(Event{wake_at_[n], Phase::kClusterChange, 0, n});
      }
    }
    if (need > 0) exhausted.insert(shape);
  }
}

void Simulation::CheckEnergy(const Summary& s) {
  const double span_s = (s.window_end - s.window_start).seconds();
  if (span_s <= 0) return;
  double lo = 0, hi = 0;  // kWh
  for (NodeIndex n = 0; n < cluster_.num_nodes(); ++n) {
    const NodeInfo& info = cluster_.node(n);
    if (info.model < 0) continue;
    lo += info.gpus * model_power_[info.model].idle_w * span_s / 3.6e6;
    hi += info.gpus * model_power_[info.model].active_w * span_s / 3.6e6;
  }
  // Powered-off and down GPUs draw nothing.
  if (s.off_gpu_h > 0 || s.down_absent_gpu_h + s.down_maintenance_gpu_h + s.down_failure_gpu_h > 0)
    lo = 0;
  const double gpu = s.energy_busy_kwh + s.energy_alloc_idle_kwh + s.energy_free_kwh;
  const double tol = 1e-9 * std::max(1.0, hi) + 1e-9;
  if (gpu < lo - tol || gpu > hi + tol || s.energy_stranded_kwh > s.energy_free_kwh + tol)
    Violate("idle <= GPU power <= active", kNoJob,
            "GPU energy " + std::to_string(gpu) + " kWh in the window, bounds " +
                std::to_string(lo) + ".." + std::to_string(hi) + " kWh; stranded " +
                std::to_string(s.energy_stranded_kwh) + " of free " +
                std::to_string(s.energy_free_kwh) + " kWh");
}

void Simulation::SetJobPower(JobIndex j) {
  JobRun& r = Run(j);
  double ctx = 0, act = 0;
  int n = 0;
  for (const TaskPlacement& t : r.placement) {
    const int32_t model = cluster_.node(t.node).model;
    if (model < 0) continue;
    ctx += model_power_[model].context_w;
    act += model_power_[model].active_w;
    ++n;
  }
  r.context_w = n > 0 ? ctx / n : 0;
  r.active_w = n > 0 ? act / n : 0;
}

void Simulation::Violate(const std::string& name, JobIndex j, const std::string& detail) {
  if (!violation_.empty()) return;
  violation_ = InvariantError(name, now_, j < w_.jobs.size() ? w_.jobs[j].name : "", detail);
}

void Simulation::AdvanceMeters(Micros t) {
  const Levels v = LevelsNow();
  int64_t down = 0;
  for (int64_t g : down_gpus_) down += g;
  const int64_t cap_milli = (cluster_.total_gpus() - down) * kMilliPerUnit;
  if (v.gpu_milli < 0 || v.gpu_milli > cap_milli || v.cpu_milli < 0 ||
      v.cpu_milli > cluster_.total_cpu() || v.mem_bytes < 0 || v.mem_bytes > cluster_.total_mem())
    Violate("allocated <= capacity", kNoJob,
            "GPU " + std::to_string(v.gpu_milli) + "/" + std::to_string(cap_milli) +
                " milli, CPU " + std::to_string(v.cpu_milli) + "/" +
                std::to_string(cluster_.total_cpu()) + " milli, memory " +
                std::to_string(v.mem_bytes) + "/" + std::to_string(cluster_.total_mem()) + " B");
  meter_->Advance(t, v);
  for (JobMarks& m : marks_) {
    if (m.taken || m.time > t) continue;
    const Micros keep = now_;
    now_ = std::max(now_, m.time);  // no event lies between keep and m.time
    TakeMark(&m);
    now_ = keep;
  }
}

JobMeter Simulation::MeterOf(JobIndex j) const {
  const JobRun& r = Run(j);
  JobMeter m;
  const Micros end = r.finished ? r.end : (r.running ? now_ : r.start);
  m.held_us = static_cast<double>(r.held_before_us + (end - r.start).us);
  m.busy_gpu_us = r.busy_gpu_us;
  m.energy_j = r.energy_j;
  m.busy_energy_j = r.busy_energy_j;
  m.idle_us = r.idle_us;
  return m;
}

const JobMeter* Simulation::MeterAt(const JobMarks& m, JobIndex j, const JobMeter& total,
                                    const JobMeter& zero) const {
  auto it = std::lower_bound(m.jobs.begin(), m.jobs.end(), j,
                             [](const auto& e, JobIndex k) { return e.first < k; });
  if (it != m.jobs.end() && it->first == j) return &it->second;
  const JobRun& r = Run(j);
  return r.first_start.us >= 0 && r.first_start < m.time ? &total : &zero;
}

void Simulation::AddToWindows(JobIndex j) {
  const JobRun& r = Run(j);
  if (r.first_start.us < 0) return;
  const JobMeter total = MeterOf(j);
  const JobMeter zero;
  const JobMeter* from[2] = {&zero, MeterAt(marks_[0], j, total, zero)};
  const JobMeter* to[2] = {MeterAt(marks_[1], j, total, zero), &total};
  const Job& job = w_.jobs[j];
  const int64_t milli = job.task.total_gpu_milli() * job.tasks;
  const double gpus = static_cast<double>(milli) / kMilliPerUnit;
  // The job's share of a window between two of its meters. Most jobs lie
  // wholly inside every window (the same two meters for all four): each
  // distinct pair is worked out once.
  struct Part {
    const JobMeter *a = nullptr, *b = nullptr;
    WideInt milli_us = 0;
    double useful = 0, busy_energy = 0;
    std::array<double, kCauses> idle{}, idle_energy{};
  };
  std::array<Part, 4> parts;
  size_t used = 0;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      const Part* p = nullptr;
      for (size_t k = 0; k < used && !p; ++k)
        if (parts[k].a == from[a] && parts[k].b == to[b]) p = &parts[k];
      if (!p) {
        Part& n = parts[used++];
        n.a = from[a];
        n.b = to[b];
        const JobMeter in = *to[b] - *from[a];
        // Held microseconds are integers (exact in a double below 2^53).
        n.milli_us = static_cast<WideInt>(milli) * std::llround(in.held_us);
        const double alloc = gpus * in.held_us / kMicrosPerSecond;
        n.useful = std::min(alloc, in.busy_gpu_us / kMicrosPerSecond);
        SplitIdle(std::max(0.0, alloc - n.useful), in.idle_us, &n.idle);
        // The job's idle energy is divided as its idle GPU time is.
        n.busy_energy = in.busy_energy_j;
        SplitIdle(std::max(0.0, in.energy_j - in.busy_energy_j), in.idle_us, &n.idle_energy);
        p = &n;
      }
      WindowTotals& t = windows_[a][b];
      window_alloc_[a][b] += p->milli_us;
      t.useful_gpu_s += p->useful;
      for (size_t c = 0; c < kCauses; ++c) t.idle_gpu_s[c] += p->idle[c];
      t.energy_busy_j += p->busy_energy;
      for (size_t c = 0; c < kCauses; ++c) t.energy_idle_j[c] += p->idle_energy[c];
    }
}

WindowTotals Simulation::WindowFigures(Micros ws, Micros we) {
  // Which instant each end of the window is. Start: the run's start (nothing
  // held yet) or the arrivals window's first mark. End: its second mark, or
  // the end of the run (the totals).
  const int a = ws <= window_start_ ? 0 : 1;
  const int b = we == marks_[1].time && marks_[1].taken ? 0 : 1;
  WindowTotals t = windows_[a][b];
  t.alloc_gpu_s = static_cast<double>(window_alloc_[a][b]) / (kMilliPerUnit * kMicrosPerSecond);
  const LevelIntegral c = meter_->TotalAt(we) - meter_->TotalAt(ws);
  const double cluster_alloc =
      static_cast<double>(c.gpu_milli_us) / (kMilliPerUnit * kMicrosPerSecond);
  // Both sides are integers (milli-GPU-us): they must agree exactly.
  if (window_alloc_[a][b] != c.gpu_milli_us)
    Violate("job allocations = integral of the cluster's allocation", kNoJob,
            "jobs hold " + std::to_string(t.alloc_gpu_s) +
                " GPU-s in the window, the cluster's allocated share integrates to " +
                std::to_string(cluster_alloc) + " GPU-s");
  t.stranded_gpu_s = static_cast<double>(c.stranded_us) / kMicrosPerSecond;
  t.energy_free_j = static_cast<double>(c.free_uw_us) / 1e12;
  t.energy_stranded_j = static_cast<double>(c.stranded_uw_us) / 1e12;
  t.energy_node_j = static_cast<double>(c.node_uw_us) / 1e12;
  t.off_gpu_s = static_cast<double>(c.off_gpus_us) / kMicrosPerSecond;
  for (size_t k = 0; k < t.down_gpu_s.size(); ++k)
    t.down_gpu_s[k] = static_cast<double>(c.down_gpus_us[k]) / kMicrosPerSecond;
  if (cluster_.total_cpu() > 0)
    t.cpu_alloc_frac_s = static_cast<double>(c.cpu_milli_us) / kMicrosPerSecond /
                         static_cast<double>(cluster_.total_cpu());
  if (cluster_.total_mem() > 0)
    t.mem_alloc_frac_s = static_cast<double>(c.mem_bytes_us) / kMicrosPerSecond /
                         static_cast<double>(cluster_.total_mem());
  return t;
}

void Simulation::TakeMark(JobMarks* m) {
  m->taken = true;
  for (JobIndex j : running_list_) Account(j);
  // The live jobs that started and are not finished, in job order.
  for (const JobRun& r : live_)
    if (r.job != kNoJob && r.first_start.us >= 0 && !r.finished)
      m->jobs.emplace_back(r.job, MeterOf(r.job));
  std::sort(m->jobs.begin(), m->jobs.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
}

JobRun& Simulation::Acquire(JobIndex j) {
  uint32_t s;
  if (!free_slots_.empty()) {
    s = free_slots_.back();
    free_slots_.pop_back();
  } else {
    s = static_cast<uint32_t>(live_.size());
    live_.emplace_back();
  }
  slot_[j] = s;
  JobRun& r = live_[s];
  r.job = j;
  return r;
}

void Simulation::ReleaseRun(JobIndex j) {
  const uint32_t s = slot_[j];
  slot_[j] = kFinal;
  finishes_.Remove(s);  // a job still running at the end of the run
  // Back to a fresh state, keeping the buffers of its placement and waits.
  JobRun& r = live_[s];
  Placement placement = std::move(r.placement);
  std::vector<WaitInterval> waits = std::move(r.waits);
  placement.clear();
  waits.clear();
  r = JobRun{};
  r.placement = std::move(placement);
  r.waits = std::move(waits);
  free_slots_.push_back(s);
}

void Simulation::AddRunning(JobIndex j) {
  JobRun& r = Run(j);
  if (w_.jobs[j].series >= 0) {
    r.running_pos = static_cast<uint32_t>(running_series_.size());
    running_series_.push_back(j);
  }
}

void Simulation::RemoveRunning(JobIndex j) {
  JobRun& r = Run(j);
  if (w_.jobs[j].series >= 0) {
    const JobIndex last = running_series_.back();
    running_series_[r.running_pos] = last;
    Run(last).running_pos = r.running_pos;
    running_series_.pop_back();
  } else {
    busy_micro_const_ -= r.busy_micro;
    r.busy_micro = 0;
    r.busy_frac = 0;
    power_const_uw_ -= r.power_uw;
    r.power_uw = 0;
    for (size_t c = 0; c < kCauses; ++c) idle_micro_const_[c] -= IdleMicro(j, c);
  }
  r.share.fill(0.0f);
}

bool Simulation::HasFutureWork() const {
  return next_arrival_ < w_.jobs.size() || running_ > 0 || sched_.queued() > 0;
}

}  // namespace internal
}  // namespace utilsim
