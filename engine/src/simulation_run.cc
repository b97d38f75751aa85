// The run loop of a Simulation and its results (design: docs/design.md,
// "Time, order and determinism"; the engine object: engine.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "simulation.h"
#include "utilsim/engine/huge_pages.h"
#include "utilsim/engine/units.h"

namespace utilsim {

const char* EventKindName(EventKind k) {
  switch (k) {
    case EventKind::kArrival:
      return "arrival";
    case EventKind::kReject:
      return "reject";
    case EventKind::kStart:
      return "start";
    case EventKind::kFinish:
      return "finish";
    case EventKind::kKill:
      return "kill";
    case EventKind::kPreempt:
      return "preempt";
    case EventKind::kPass:
      return "pass";
    case EventKind::kSample:
      return "sample";
    case EventKind::kInterrupt:
      return "interrupt";
  }
  return "?";
}

namespace internal {

Status Simulation::Init() {
  if (!(cfg_.comm_fraction >= 0 && cfg_.comm_fraction <= 1))
    return Status::Error("comm fraction must be 0..1, got " + std::to_string(cfg_.comm_fraction));
  const size_t n = w_.jobs.size();
  // Per-job arrays in huge pages (huge_pages.h): fewer page faults.
  AssignHuge(slot_, n, kNotArrived);
  // Room for every job at once, as address space: the slots in use are
  // touched (and resident) as jobs arrive, and the pool never moves.
  ReserveHuge(live_, n);
  AssignHuge(masks_, n, ModelMask{0});
  for (size_t j = 0; j < n; ++j) {
    masks_[j] = cluster_.ResolveModels(w_.jobs[j].gpu_models);
    if (j > 0 && w_.jobs[j].submit < w_.jobs[j - 1].submit)
      return Status::Error("workload is not sorted by submit time (call Workload::Finalize)");
  }
  if (cfg_.sample_interval.us <= 0) return Status::Error("sample interval must be > 0");
  if (cfg_.pass_interval.us < 0) return Status::Error("pass interval must be >= 0");
  interacts_ = progress_->Interacts(w_, cluster_);
  stranding_ = StrandingTest(w_);
  if (interacts_) on_node_.assign(cluster_.num_nodes(), {});
  {
    std::map<std::tuple<int32_t, int32_t, int64_t, int64_t>, size_t> seen;
    for (NodeIndex i = 0; i < cluster_.num_nodes(); ++i) {
      const NodeInfo& info = cluster_.node(i);
      auto [it, fresh] = seen.emplace(
          std::make_tuple(info.model, info.gpus, info.cpu_milli, info.mem_bytes), shapes_.size());
      if (fresh) shapes_.push_back({i, 0});
      ++shapes_[it->second].count;
    }
  }
  if (std::string e = CheckPowerModel(cfg_.power); !e.empty())
    return Status::Error("power model: " + e);
  if (!(cfg_.energy_price_per_kwh >= 0) || !std::isfinite(cfg_.energy_price_per_kwh))
    return Status::Error("energy price must be finite and >= 0");
  if (cfg_.power_off_after.us < 0 || cfg_.wake_delay.us < 0)
    return Status::Error("power-off idle time and wake-up delay must be >= 0");
  if (Status s = InitPower(); !s.ok()) return s;
  window_start_ = n > 0 ? w_.jobs[0].submit : Micros(0);
  now_ = window_start_;
  marks_[0].time = window_start_ + cfg_.warmup;
  marks_[1].time = n > 0 ? w_.jobs.back().submit : window_start_;
  switch (cfg_.series) {
    case SeriesForm::kChanges:
      changes_form_ = true;
      break;
    case SeriesForm::kSamples:
      changes_form_ = false;
      break;
    case SeriesForm::kAuto: {
      // Each job arrives, starts and ends, mostly at distinct instants.
      const int64_t points =
          2 * static_cast<int64_t>(n) + static_cast<int64_t>(cfg_.cluster_events.size());
      const int64_t ticks = (marks_[1].time - window_start_).us / cfg_.sample_interval.us + 1;
      changes_form_ = points <= ticks;
      break;
    }
  }
  meter_ = std::make_unique<ClusterMeter>(window_start_,
                                          std::vector<Micros>{marks_[0].time, marks_[1].time});
  node_state_.assign(cluster_.num_nodes(), 0);
  empty_since_.assign(cluster_.num_nodes(), Micros(0));
  wake_at_.assign(cluster_.num_nodes(), Micros(0));
  node_stranded_.assign(cluster_.num_nodes(), 0);
  for (NodeIndex i = 0; i < cluster_.num_nodes(); ++i) UpdateStranded({TaskPlacement{i, 0}});
  // Before the scheduler's Init: a policy may copy the cluster state, budget
  // and the nodes down at the start included.
  if (Status s = InitClusterEvents(); !s.ok()) return s;
  if (Status s = sched_.Init(cluster_, w_); !s.ok()) return s;
  finishes_.Reset();
  if (cfg_.keep_rows) {
    AssignHuge(jobs_, n, JobRecord{});
  } else {
    AssignHuge(figures_, n, JobFigures{});
    if (cfg_.fragmentation)
      frag_meter_ = std::make_unique<FragMeter>(std::vector<Micros>{window_start_, marks_[0].time},
                                                marks_[1].time, cluster_.total_gpus());
  }
  if (n == 0) {
    done_ = true;
    return Status::Ok();
  }
  events_.Push(Event{w_.jobs[0].submit, Phase::kArrival, 0, 0});
  next_arrival_ = 1;
  next_tick_ = window_start_;
  for (NodeIndex i = 0; i < cluster_.num_nodes(); ++i) NodeEmptied(i);
  for (size_t i = 0; i < cluster_events_.size(); ++i)
    if (cluster_events_[i].at > window_start_)
      events_.Push(Event{cluster_events_[i].at, Phase::kClusterChange, 0,
                         kNodeEventTag + static_cast<uint32_t>(i)});
  return Status::Ok();
}

Micros Simulation::NextTime() const {
  Micros t = kNever;
  if (!finishes_.empty()) t = finishes_.top_time();
  if (!events_.empty()) t = std::min(t, events_.Top().time);
  t = std::min(t, next_tick_);
  return t;
}

Result<bool> Simulation::Step() {
  if (done_) return false;
  if (stop_requested_.load(std::memory_order_relaxed)) {
    done_ = true;
    stopped_on_request_ = true;
    return false;
  }
  const Micros next = NextTime();
  if (next == kNever) {
    done_ = true;
    return false;
  }
  if (next > cfg_.horizon) {
    if (changes_form_ && cfg_.horizon > now_) EndInstant();
    AdvanceMeters(std::max(now_, cfg_.horizon));
    now_ = std::max(now_, cfg_.horizon);
    stopped_at_horizon_ = true;
    done_ = true;
    return false;
  }
  Status s = ProcessNext();
  if (s.ok() && !violation_.empty()) s = Status::Error(StatusCode::kInvariant, violation_);
  if (!s.ok()) {
    done_ = true;
    return s;
  }
  return true;
}

Status Simulation::RunUntil(Micros t) {
  for (;;) {
    if (done_) return Status::Ok();
    const Micros next = NextTime();
    if (next != kNever && next > t && t < cfg_.horizon) {
      if (t > now_) {
        if (changes_form_) EndInstant();
        AdvanceMeters(t);
        now_ = t;
      }
      return Status::Ok();
    }
    auto r = Step();
    if (!r.ok()) return r.status();
  }
}

Status Simulation::ProcessNext() {
  const size_t n = w_.jobs.size();
  // The sample tick runs after every other event of its instant (kSample is
  // the last phase, and there is one tick per instant); finishes run before
  // the other phases of theirs.
  const bool tick = next_tick_ != kNever &&
                    (finishes_.empty() || next_tick_ < finishes_.top_time()) &&
                    (events_.empty() || next_tick_ < events_.Top().time ||
                     (next_tick_ == events_.Top().time && events_.Top().phase > Phase::kSample));
  const bool finish =
      !tick && !finishes_.empty() &&
      (events_.empty() || finishes_.top_time() < events_.Top().time ||
       (finishes_.top_time() == events_.Top().time && events_.Top().phase > Phase::kFinish));
  const Event e = tick     ? Event{next_tick_, Phase::kSample, 0, 0}
                  : finish ? Event{finishes_.top_time(), Phase::kFinish, 0, finishes_.top_job()}
                           : events_.Pop();
  const bool new_instant = e.time > now_;
  if (changes_form_ && new_instant) EndInstant();
  // A tick not taken changes no level: the meters integrate across it at
  // the next event (exactly: integers), unless a window mark falls due.
  if (!(tick && TickIdle() && !MarkDue(e.time))) AdvanceMeters(e.time);
  now_ = e.time;
  instant_open_ = true;
  switch (e.phase) {
    case Phase::kArrival:
      ++events_processed_;
      ++arrivals_done_;
      DoArrival(e.job);
      if (next_arrival_ < n) {
        events_.Push(Event{w_.jobs[next_arrival_].submit, Phase::kArrival, 0,
                           static_cast<uint32_t>(next_arrival_)});
        ++next_arrival_;
      }
      break;
    case Phase::kFinish:
      finishes_.Remove(slot_[e.job]);
      ++events_processed_;
      DoFinish(e.job);
      break;
    case Phase::kPass: {
      if (pass_at_ != now_) break;
      pass_at_ = Micros(-1);
      ++events_processed_;
      Observe(EventKind::kPass, 0);
      pass_time_.push_back(now_);
      Status s = sched_.Pass(*this);
      ApplyWaitReports();
      if (!s.ok()) return s;
      const Micros wake = sched_.NextWakeup(now_);
      if (wake != kNever && wake > now_) {
        events_.Push(Event{wake, Phase::kPass, 0, 0});
        pass_at_ = wake;
      }
      break;
    }
    case Phase::kSample:
      ++events_processed_;
      // A tick not taken alone at its instant changed nothing: the state is
      // that of the point last delivered, so the instant needs no point.
      if (!DoSample() && new_instant) instant_open_ = false;
      Observe(EventKind::kSample, 0);
      // Deadlock guard: work is queued, nothing runs, nothing will arrive
      // and the scheduler expects no wake-up: nothing can ever start, so no
      // further sample is scheduled.
      next_tick_ = kNever;
      if (HasFutureWork()) {
        if (running_ == 0 && next_arrival_ >= n && events_.empty())
          deadlocked_ = true;
        else
          next_tick_ = now_ + cfg_.sample_interval;
      }
      break;
    case Phase::kClusterChange:
      // Powering nodes off once every job has ended changes nothing a run
      // reports, and would move the levels after the window's end.
      if (arrivals_done_ == n && running_ == 0 && sched_.queued() == 0) break;
      ++events_processed_;
      DoClusterChange(e.job);
      break;
  }
  return Status::Ok();
}

Result<RunResult> Simulation::Finish() {
  if (finished_) return Status::Error("Engine::Finish called twice");
  finished_ = true;
  if (!done_) {  // cut short by the caller: as if stopped on request
    done_ = true;
    stopped_on_request_ = true;
  }
  if (changes_form_) EndInstant();
  if (meter_) AdvanceMeters(now_);
  RunResult out;
  RunMeta& m = out.meta;
  m.utilsim_version = UtilsimVersion();
  m.label = sched_.label();
  const PolicyId queue = sched_.queue_policy(), placement = sched_.placement_policy();
  m.queue_policy = queue.name;
  m.queue_policy_version = queue.version;
  m.queue_policy_params = queue.params;
  m.placement_policy = placement.name;
  m.placement_policy_version = placement.version;
  m.placement_policy_params = placement.params;
  m.seed = cfg_.seed;
  m.input_digest = cfg_.input_digest;
  m.workload_source = cfg_.workload_source.empty() ? w_.source : cfg_.workload_source;
  m.cluster_name = cluster_.spec().name;
  m.series = changes_form_ ? "changes" : "samples";
  m.sample_interval = cfg_.sample_interval;
  m.sample_start = window_start_;
  m.sample_count = ticks_;
  m.progress_model = progress_->name();

  // The jobs not final yet (running, queued, or not submitted), in job order.
  const size_t n = w_.jobs.size();
  Micros window_end = last_finish_;
  int64_t unfinished = 0;
  for (JobIndex j = 0; j < n; ++j) {
    if (slot_[j] == kFinal) continue;
    if (slot_[j] == kNotArrived) Acquire(j);
    ++unfinished;
    Deliver(RecordOf(j));
    ReleaseRun(j);
  }
  if (unfinished > 0) window_end = std::max(window_end, now_);
  if (deadlocked_)
    m.notes += "stopped: " + std::to_string(sched_.queued()) +
               " queued jobs could not start (nothing running, nothing arriving); ";
  if (stopped_at_horizon_) m.notes += "stopped at horizon; ";
  if (stopped_on_request_) {
    char at[64];
    std::snprintf(at, sizeof at, "%.6g", now_.seconds());
    m.notes += std::string("stopped on request at ") + at + " s; ";
  }
  Micros ws = window_start_, we = window_end;
  if (cfg_.window == Window::kArrivals && n > 0) {
    const Micros a = window_start_ + cfg_.warmup;
    const Micros b = std::min(w_.jobs.back().submit, window_end);
    if (b > a) {
      ws = a;
      we = b;
    }
  }
  const WindowTotals totals = WindowFigures(ws, we);
  const double makespan_s = (window_end - window_start_).seconds();
  if (cfg_.keep_rows) {
    out.jobs = std::move(jobs_);
    if (changes_form_) {
      if (!SamplesFromChanges(changes_, window_start_, cfg_.sample_interval, ticks_, &out.samples))
        Violate("samples derive from the change points", kNoJob,
                std::to_string(ticks_) + " ticks, " + std::to_string(changes_.size()) +
                    " change points");
      out.changes = std::move(changes_);
    } else {
      out.samples = std::move(samples_);
    }
    out.summary = ComputeSummary(out.jobs, totals, cluster_.total_gpus(), ws, we, makespan_s,
                                 cfg_.price_per_gpu_h);
    AddSampleFigures(out.samples, &out.summary);
  } else {
    out.summary = SummaryOf(figures_, wait_us_, totals, cluster_.total_gpus(), ws, we, makespan_s,
                            cfg_.price_per_gpu_h);
    if (frag_meter_ && !frag_meter_->Fill(&out.summary))
      Violate("sampled figures kept for the window", kNoJob,
              "no fragmentation sums kept for a window ending at " + std::to_string(we.seconds()) +
                  " s");
  }
  out.summary.events = events_processed_;
  AddEnergyFigures(totals, cfg_.power.pue, cfg_.energy_price_per_kwh, &out.summary);
  out.summary.wakeups = wakeups_;
  CheckEnergy(out.summary);
  if (out.summary.allocation_pct > 100.0 * (1 + 1e-9) ||
      out.summary.effective_util_pct > out.summary.allocation_pct * (1 + 1e-9) + 1e-9)
    Violate("useful <= allocated <= capacity (per run)", kNoJob,
            "allocation " + std::to_string(out.summary.allocation_pct) +
                " %, effective utilization " + std::to_string(out.summary.effective_util_pct) +
                " %");
  if (!violation_.empty()) return Status::Error(StatusCode::kInvariant, violation_);
  if (cfg_.sink) cfg_.sink->OnEnd(out.meta, out.summary);
  return out;
}

JobRecord Simulation::RecordOf(JobIndex j) {
  const Job& job = w_.jobs[j];
  JobRun& r = Run(j);
  JobRecord rec;
  rec.job = j;
  rec.name = job.name;
  rec.tenant = job.tenant;
  rec.submit = job.submit;
  rec.recorded_runtime = job.runtime;
  rec.tasks = job.tasks;
  rec.gpu_milli = job.task.total_gpu_milli() * job.tasks;
  const double gpus = static_cast<double>(rec.gpu_milli) / kMilliPerUnit;
  if (r.rejected) {
    rec.outcome = JobOutcome::kRejected;
    rec.reason = std::move(r.reason);
    return rec;
  }
  if (r.killed) {
    rec.outcome = JobOutcome::kKilled;
    rec.reason = "walltime limit reached";
  }
  if (!r.finished) {
    rec.outcome = JobOutcome::kUnfinished;
    rec.reason = r.running ? "running at end of run" : "queued at end of run";
    if (r.running) Account(j);
  }
  rec.preemptions = r.preemptions;
  rec.interruptions = r.interruptions;
  const int64_t queued_us = r.queued_us + (r.queued ? (now_ - r.queued_since).us : 0);
  rec.queued_s = static_cast<double>(queued_us) / kMicrosPerSecond;
  if (r.queued) {
    Settle(j, static_cast<uint32_t>(pass_time_.size()));
    CloseWait(j, now_);
  }
  WaitTotals(j, queued_us, &rec);
  if (r.first_start.us >= 0) {
    rec.start = r.first_start;
    rec.placement = FormatPlacement(r.placement, cluster_);
    rec.finish = r.finished ? r.end : Micros(-1);
    const JobMeter meter = MeterOf(j);
    rec.alloc_gpu_s = gpus * meter.held_us / kMicrosPerSecond;
    rec.useful_gpu_s = meter.busy_gpu_us / kMicrosPerSecond;
    if (rec.useful_gpu_s > rec.alloc_gpu_s * (1 + 1e-9) + 1e-6)
      Violate("useful <= allocated (per job)", j,
              std::to_string(rec.useful_gpu_s) + " busy GPU-s > " +
                  std::to_string(rec.alloc_gpu_s) + " allocated GPU-s");
    rec.useful_gpu_s = std::min(rec.useful_gpu_s, rec.alloc_gpu_s);  // float noise only
    // Idle GPU time by cause, in proportion to the job's idle shares over
    // its run (all unattributed when the model gives none).
    SplitIdle(std::max(0.0, rec.alloc_gpu_s - rec.useful_gpu_s), meter.idle_us, &rec.idle_gpu_s);
    rec.lost_gpu_s = gpus * r.lost_us / kMicrosPerSecond;
    const Micros end = r.finished ? r.end : now_;
    const double in_system_us = static_cast<double>((end - r.first_start).us);
    rec.ettr =
        in_system_us > 0 ? std::clamp((meter.held_us - r.lost_us) / in_system_us, 0.0, 1.0) : 1.0;
    rec.energy_kwh = meter.energy_j / 3.6e6;
    rec.idle_energy_kwh = std::max(0.0, meter.energy_j - meter.busy_energy_j) / 3.6e6;
    AddToWindows(j);
  }
  return rec;
}

void Simulation::Deliver(JobRecord&& rec) {
  if (cfg_.sink) cfg_.sink->OnJob(rec);
  const JobIndex j = rec.job;
  if (cfg_.keep_rows)
    jobs_[j] = std::move(rec);
  else {
    figures_[j] = FiguresOf(rec);
    AddWaitMicros(rec, &wait_us_);
  }
}

void Simulation::Deliver(Sample&& s) {
  if (cfg_.sink) cfg_.sink->OnSample(s);
  if (cfg_.keep_rows)
    samples_.push_back(std::move(s));
  else if (frag_meter_)
    frag_meter_->Add(s);
}

}  // namespace internal

Result<std::unique_ptr<Engine>> Engine::Create(const ClusterSpec& cluster, const Workload& w,
                                               Scheduler& scheduler, const SimConfig& config) {
  Result<ClusterState> state = ClusterState::Build(cluster);
  if (!state.ok()) return state.status();
  auto sim = std::make_unique<internal::Simulation>(std::move(state).value(), w, scheduler, config);
  if (Status s = sim->Init(); !s.ok()) return s;
  return std::unique_ptr<Engine>(std::move(sim));
}

Result<RunResult> Simulate(const ClusterSpec& cluster, const Workload& w, Scheduler& scheduler,
                           const SimConfig& config) {
  auto engine = Engine::Create(cluster, w, scheduler, config);
  if (!engine.ok()) return engine.status();
  if (Status s = engine.value()->RunUntil(kNever); !s.ok()) return s;
  return engine.value()->Finish();
}

}  // namespace utilsim
