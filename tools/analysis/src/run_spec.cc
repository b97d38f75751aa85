#include "utilsim/analysis/run_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "utilsim/analysis/mig_run.h"
#include "utilsim/engine/mig_progress.h"
#include "utilsim/engine/sharing_progress.h"
#include "utilsim/engine/stall_model.h"
#include "utilsim/engine/units.h"
#include "utilsim/policies/fgd.h"
#include "utilsim/traces/cluster_events_yaml.h"

namespace utilsim {

const char* ProgressModelName(ProgressModelKind k) {
  switch (k) {
    case ProgressModelKind::kWholeGpu:
      return "whole-gpu";
    case ProgressModelKind::kStallSerial:
      return "stall-serial";
    case ProgressModelKind::kStallOverlapped:
      return "stall-overlapped";
  }
  return "?";
}

Result<ProgressModelKind> ParseProgressModel(const std::string& name) {
  for (auto k : {ProgressModelKind::kWholeGpu, ProgressModelKind::kStallSerial,
                 ProgressModelKind::kStallOverlapped})
    if (name == ProgressModelName(k)) return k;
  return Status::Error(
      StatusCode::kInvalidArgument,
      "model: expected whole-gpu, stall-serial or stall-overlapped, got '" + name + "'");
}

const char* SharingModeName(SharingMode m) {
  switch (m) {
    case SharingMode::kFractional:
      return "fractional";
    case SharingMode::kExclusive:
      return "exclusive";
    case SharingMode::kTimeSlice:
      return "timeslice";
    case SharingMode::kMps:
      return "mps";
  }
  return "?";
}

const char* WindowName(Window w) { return w == Window::kFull ? "full" : "arrivals"; }

Result<Window> ParseWindow(const std::string& name) {
  if (name == "arrivals") return Window::kArrivals;
  if (name == "full") return Window::kFull;
  return Status::Error(StatusCode::kInvalidArgument,
                       "window: expected arrivals or full, got '" + name + "'");
}

Result<SeriesForm> ParseSeriesForm(const std::string& name) {
  for (SeriesForm f : {SeriesForm::kAuto, SeriesForm::kChanges, SeriesForm::kSamples})
    if (name == SeriesFormName(f)) return f;
  return Status::Error(StatusCode::kInvalidArgument,
                       "series: expected auto, changes or samples, got '" + name + "'");
}

Result<MigSpec> ParseMigSpec(const std::string& text) {
  auto m = ParseMigMode(text);
  if (!m.ok()) return m.status();
  MigSpec s;
  s.mode = m.value().dynamic ? MigSpec::Mode::kDynamic : MigSpec::Mode::kRightSize;
  s.size = m.value().size;
  return s;
}

Status ValidateRunSpec(const RunSpec& s) {
  auto bad = [](const std::string& m) { return Status::Error(StatusCode::kInvalidArgument, m); };
  if (!(s.comm_fraction >= 0 && s.comm_fraction <= 1))
    return bad("comm_fraction: expected a fraction 0..1");
  if (!(s.mps_thread_pct > 0 && s.mps_thread_pct <= 100))
    return bad("mps_thread_pct: expected a percentage in (0, 100]");
  if (s.sample_interval.us <= 0) return bad("sample_interval: expected seconds > 0");
  if (s.horizon && s.horizon->us < 0) return bad("horizon: expected seconds >= 0");
  if (s.warmup.us < 0) return bad("warmup: expected seconds >= 0");
  if (s.restart_cost.us < 0) return bad("restart_cost: expected seconds >= 0");
  if (s.checkpoint_interval && s.checkpoint_interval->us <= 0)
    return bad("checkpoint_interval: expected seconds > 0");
  if (s.pass_interval.us < 0) return bad("pass_interval: expected seconds >= 0");
  if (!(s.price_per_gpu_h >= 0 && std::isfinite(s.price_per_gpu_h)))
    return bad("price_per_gpu_h: expected a finite number >= 0");
  if (s.threads < 0) return bad("threads: expected >= 0");
  if (std::string e = CheckPowerModel(s.power); !e.empty()) return bad("power: " + e);
  if (!(s.energy_price_per_kwh >= 0 && std::isfinite(s.energy_price_per_kwh)))
    return bad("energy_price_per_kwh: expected a finite number >= 0");
  if (s.power_off_after && s.power_off_after->us < 0)
    return bad("power_off_after: expected seconds >= 0");
  if (s.wake_delay.us < 0) return bad("wake_delay: expected seconds >= 0");
  if (!(s.power_budget_w >= 0 && std::isfinite(s.power_budget_w)))
    return bad("power_budget_w: expected watts >= 0 (0 = none)");
  if (!(s.rack_power_budget_w >= 0 && std::isfinite(s.rack_power_budget_w)))
    return bad("rack_power_budget_w: expected watts >= 0 (0 = none)");
  if (s.host_scale && !(s.host_scale->cpu > 0 && s.host_scale->mem > 0 &&
                        std::isfinite(s.host_scale->cpu) && std::isfinite(s.host_scale->mem)))
    return bad("host_scale: expected CPU and memory factors > 0");
  if (s.mig.mode != MigSpec::Mode::kOff) {
    if (!(s.mig.size.tolerance > 0 && s.mig.size.tolerance <= 1))
      return bad("mig: tolerance must be a number in (0, 1]");
    if (s.sharing != SharingMode::kFractional && s.mig.mode == MigSpec::Mode::kDynamic)
      return bad(std::string("mig: dynamic needs sharing fractional (the default; MIG instances "
                             "are isolated, not shared), got '") +
                 SharingModeName(s.sharing) + "'");
    if (s.mig.times.create.us < 0 || s.mig.times.destroy.us < 0 || s.mig.times.fixed.us < 0)
      return bad("mig reconfiguration times: expected seconds >= 0");
  }
  return Status::Ok();
}

namespace {

// "CORES[,GIB]" as ParseGpuReservation reads it (shortest decimal forms).
std::string FormatReservation(const GpuReservation& r) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", static_cast<double>(r.cpu_milli_per_gpu) / kMilliPerUnit);
  std::string s = buf;
  if (r.mem_bytes_per_gpu != 0) {
    std::snprintf(buf, sizeof buf, ",%.10g",
                  static_cast<double>(r.mem_bytes_per_gpu) / static_cast<double>(kBytesPerGiB));
    s += buf;
  }
  return s;
}

}  // namespace

namespace {

// "power caps: A100-80GB 150 W (speed 0.8261, busy power 144.3 W)", the
// capped models of `spec` (their cap_w in `power`).
std::string PowerCapNote(const ClusterSpec& spec, const PowerModel& power) {
  std::string out = "power caps:";
  for (size_t i = 0; i < spec.models.size(); ++i) {
    const GpuPower& p = PowerOf(power, spec.models[i].name);
    if (p.cap_w <= 0) continue;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s %s %.0f W (speed %.4g, busy power %.1f W)",
                  out.size() > 11 ? "," : "", spec.models[i].name.c_str(), p.cap_w,
                  spec.models[i].speed, p.active_w);
    out += buf;
  }
  return out;
}

}  // namespace

struct PreparedRun::State {
  RunSpec spec;
  const PolicyRegistry* reg = nullptr;  // policies as registered (not owned)
  std::optional<PolicyRegistry> reserved;
  const PolicyRegistry* made_from = nullptr;  // reg, or the GPU-reservation copy
  CpuAlloc cpu_alloc = CpuAlloc::kRequest;
  ClusterSpec cluster;   // what the runs use
  ClusterSpec physical;  // as given (MIG usage is measured against it)
  // The workload the runs use: in's, until a step changes it; then a copy
  // (owned) that the steps transform.
  const Workload* workload = nullptr;
  std::optional<Workload> owned;
  Workload* Edit() {
    if (!owned) {
      owned = *workload;
      workload = &*owned;
    }
    return &*owned;
  }
  std::optional<MigRun> mig;  // step 2
  std::unique_ptr<ProgressModel> model;
  std::unique_ptr<WholeGpuProgress> whole;
  std::unique_ptr<ProgressModel> shared;
  std::unique_ptr<ProgressModel> mig_wrap;
  std::shared_ptr<const FragmentationMeter> meter;
  SimConfig cfg;
  std::vector<std::string> notes;  // input notes + transforms, each recorded as "<note>; "
  std::string co_note, sharing_note;
};

PreparedRun::PreparedRun(std::unique_ptr<State> s) : s_(std::move(s)) {}
PreparedRun::~PreparedRun() = default;
const ClusterSpec& PreparedRun::cluster() const { return s_->cluster; }
const Workload& PreparedRun::workload() const { return *s_->workload; }
const SimConfig& PreparedRun::config() const { return s_->cfg; }
const std::vector<std::string>& PreparedRun::notes() const { return s_->notes; }

Result<std::unique_ptr<PreparedRun>> BuildRun(const RunSpec& spec, const Inputs& in,
                                              const ClusterSpec& cluster,
                                              const PolicyRegistry& reg) {
  if (Status st = ValidateRunSpec(spec); !st.ok()) return st;
  auto s = std::make_unique<PreparedRun::State>();
  s->spec = spec;
  s->reg = &reg;
  s->made_from = &reg;
  s->cluster = cluster;
  s->physical = cluster;
  s->workload = &in.workload;  // copied only if a step changes it
  s->notes = in.notes;
  // 1. Host-request scaling: everything below (MIG sizing included) sees
  // the scaled jobs.
  if (spec.host_scale) {
    const int64_t n = ScaleHostRequests(s->Edit(), *spec.host_scale);
    s->notes.push_back(HostScaleNote(*spec.host_scale, n));
  }
  // 1b. Power caps: slower busy work and lower busy power of capped models
  // (MIG instances below inherit them from their physical model).
  ClusterSpec capped = cluster;
  PowerModel power = spec.power;
  if (!spec.power_caps.empty()) {
    if (Status c = ApplyPowerCaps(spec.power_caps, &capped, &power); !c.ok())
      return Status::Error(StatusCode::kInvalidArgument, "power_caps: " + c.message());
    s->cluster = capped;
    s->notes.push_back(PowerCapNote(capped, power));
  }
  // 2. MIG: expanded cluster and right-sized jobs, or dynamic sizing.
  if (spec.mig.mode != MigSpec::Mode::kOff) {
    auto m = PrepareMig(spec.mig, capped, s->Edit());
    if (!m.ok()) return m.status();
    s->mig = std::move(m).value();
    s->cluster = s->mig->run_cluster;
    for (auto& n : s->mig->notes) s->notes.push_back(n);
  }
  // 3. GPU reservation, a decorator on every placement.
  if (spec.gpu_reserve) {
    if (Status v = ValidateGpuReservation(s->cluster, *spec.gpu_reserve); !v.ok())
      return Status::Error(StatusCode::kInvalidArgument, "gpu_reserve: " + v.message());
    auto d = DecoratePlacements(reg, [r = *spec.gpu_reserve](std::unique_ptr<PlacementPolicy> p) {
      return MakeGpuReservation(std::move(p), r.cpu_milli_per_gpu, r.mem_bytes_per_gpu);
    });
    if (!d.ok())
      return Status::Error(StatusCode::kInvalidArgument, "gpu_reserve: " + d.status().message());
    s->reserved = std::move(d).value();
    s->made_from = &*s->reserved;
  }
  // 4. Co-resource CPU allocation (every scheduler; noted with step 3).
  s->cpu_alloc = spec.cpu_alloc;
  if (spec.cpu_alloc != CpuAlloc::kRequest)
    s->co_note = std::string("cpu-alloc ") + CpuAllocName(spec.cpu_alloc);
  if (spec.gpu_reserve)
    s->co_note += (s->co_note.empty() ? "" : ", ") + std::string("gpu-reserve ") +
                  FormatReservation(*spec.gpu_reserve) +
                  " (cores[,GiB] per whole-free GPU, held from CPU-only jobs)";
  // 5. Progress model.
  SimConfig& cfg = s->cfg;
  cfg.sample_interval = spec.sample_interval;
  cfg.series = spec.series;
  if (spec.horizon)
    cfg.horizon =
        *spec.horizon + (in.workload.jobs.empty() ? Micros(0) : in.workload.jobs.front().submit);
  cfg.window = spec.window;
  cfg.warmup = spec.warmup;
  cfg.restart_cost = spec.restart_cost;
  cfg.comm_fraction = spec.comm_fraction;
  if (spec.model == ProgressModelKind::kStallSerial)
    s->model = std::make_unique<StallProgress>(Composition::kSerial, spec.comm_fraction);
  else if (spec.model == ProgressModelKind::kStallOverlapped)
    s->model = std::make_unique<StallProgress>(Composition::kOverlapped, spec.comm_fraction);
  cfg.progress = s->model.get();
  s->whole = std::make_unique<WholeGpuProgress>(spec.comm_fraction);
  // 6. GPU sharing: exclusive rounds fractional requests up (noted);
  // timeslice / mps wrap the model; fractional leaves everything as it was.
  if (spec.sharing == SharingMode::kExclusive) {
    const int64_t k = RoundUpFractional(s->Edit());
    s->sharing_note = "sharing exclusive: " + std::to_string(k) +
                      " fractional GPU requests rounded up to whole GPUs (busy share scaled by "
                      "milli/1000: same useful work)";
  } else if (spec.sharing == SharingMode::kTimeSlice || spec.sharing == SharingMode::kMps) {
    s->shared =
        std::make_unique<SharedGpuProgress>(s->model ? s->model.get() : s->whole.get(),
                                            SharingConfigOf(spec.sharing, spec.mps_thread_pct));
    cfg.progress = s->shared.get();
  }
  // 7. MIG instances run at their slice speed.
  if (s->mig) {
    s->mig_wrap =
        std::make_unique<MigProgress>(cfg.progress ? cfg.progress : s->whole.get(), s->cluster);
    cfg.progress = s->mig_wrap.get();
  }
  // 8. Fragmentation per sample (FGD measure over the input workload's task
  // shapes, the same for every sharing mode) when some request is fractional.
  if (std::any_of(in.workload.jobs.begin(), in.workload.jobs.end(),
                  [](const Job& j) { return j.task.fractional(); })) {
    if (auto st = ClusterState::Build(s->cluster); st.ok())
      s->meter = std::make_shared<const FragmentationMeter>(TaskClassesOf(in.workload), st.value());
  }
  cfg.seed = spec.seed;
  cfg.price_per_gpu_h = spec.price_per_gpu_h;
  cfg.power = power;
  cfg.power_budget_w = spec.power_budget_w;
  cfg.rack_power_budget_w = spec.rack_power_budget_w;
  cfg.energy_price_per_kwh = spec.energy_price_per_kwh;
  cfg.power_off_after = spec.power_off_after.value_or(kNever);
  cfg.wake_delay = spec.wake_delay;
  cfg.wait_detail = spec.wait_detail;
  cfg.cluster_events = spec.cluster_events;
  cfg.checkpoint_interval = spec.checkpoint_interval.value_or(kNever);
  cfg.pass_interval = spec.pass_interval;
  cfg.checkpoints_by_kind = spec.checkpoints_by_kind;
  {
    const char* const kinds[] = {"unknown", "train", "infer"};
    std::string by_kind;
    for (size_t k = 0; k < 3; ++k) {
      const auto& c = spec.checkpoints_by_kind[k];
      if (!c) continue;
      char buf[96];
      if (c->interval == kNever)
        std::snprintf(buf, sizeof buf, "%s no checkpoint, restart %.6g s", kinds[k],
                      c->restart.seconds());
      else
        std::snprintf(buf, sizeof buf, "%s every %.6g s, restart %.6g s", kinds[k],
                      c->interval.seconds(), c->restart.seconds());
      by_kind += (by_kind.empty() ? "" : ", ") + std::string(buf);
    }
    if (!by_kind.empty()) s->notes.push_back("checkpoints by job kind: " + by_kind);
  }
  if (!spec.failures.classes.empty() && !s->workload->jobs.empty()) {
    const std::vector<Job>& jobs = s->workload->jobs;
    Micros longest{0};
    for (const Job& j : jobs) longest = std::max(longest, j.runtime);
    const Micros from = jobs.front().submit;
    const Micros to = cfg.horizon != kNever ? cfg.horizon : jobs.back().submit + longest;
    auto drawn = DrawFailures(spec.failures, s->cluster, from, to, spec.seed);
    if (!drawn.ok()) return drawn.status();
    int64_t downs = 0, slows = 0;
    for (ClusterEvent& e : drawn.value()) {
      downs += e.change == NodeChange::kDown;
      slows += e.change == NodeChange::kSlow;
      cfg.cluster_events.push_back(std::move(e));
    }
    char span[200];
    std::snprintf(span, sizeof span, "%lld failures%s drawn from %s over %.0f..%.0f s (seed %llu)",
                  static_cast<long long>(downs),
                  slows > 0 ? (" and " + std::to_string(slows) + " stragglers").c_str() : "",
                  spec.failures.source.empty() ? "the failure model" : spec.failures.source.c_str(),
                  from.seconds(), to.seconds(), static_cast<unsigned long long>(spec.seed));
    s->notes.push_back(span);
  }
  if (!cfg.cluster_events.empty() && spec.checkpoint_interval)
    s->notes.push_back("checkpoint every " +
                       std::to_string(static_cast<int64_t>(spec.checkpoint_interval->seconds())) +
                       " s");
  cfg.input_digest = in.digest;
  cfg.workload_source = in.workload.source;
  return std::unique_ptr<PreparedRun>(new PreparedRun(std::move(s)));
}

Status LoadClusterEvents(const std::string& path, RunSpec* spec) {
  auto ev = ReadClusterEventsYaml(path);
  if (!ev.ok()) return ev.status();
  spec->cluster_events = std::move(ev.value().events);
  spec->failures = std::move(ev.value().failures);
  spec->checkpoints_by_kind = ev.value().checkpoints;
  return Status::Ok();
}

Result<RunResult> PreparedRun::Simulate(const std::string& policy, EventObserver observer) const {
  const State& s = *s_;
  // Dynamic MIG: this run's own repartitioning decorator and figures.
  std::shared_ptr<MigReconfigStats> reconfig;
  std::optional<PolicyRegistry> repartitioned;
  const PolicyRegistry* from = s.made_from;
  if (s.mig && s.mig->dynamic) {
    reconfig = std::make_shared<MigReconfigStats>();
    auto d = DecoratePlacements(
        *from, [reconfig, p = s.mig->repartition](std::unique_ptr<PlacementPolicy> inner) {
          return MakeMigRepartition(std::move(inner), p, reconfig);
        });
    if (!d.ok()) return Status::Error(StatusCode::kInvalidArgument, "mig: " + d.status().message());
    repartitioned = std::move(d).value();
    from = &*repartitioned;
  }
  auto made = from->Make(policy, s.spec.seed);
  if (!made.ok())
    return Status::Error(StatusCode::kInvalidArgument, "policy: " + made.status().message());
  std::unique_ptr<Scheduler> sched = MakeCoResource(std::move(made).value(), {s.cpu_alloc});
  SimConfig c = s.cfg;
  if (s.meter) c.fragmentation = MakeFragmentationSampler(s.meter);
  c.observer = std::move(observer);
  c.sink = s.spec.sink;
  c.keep_rows = s.spec.keep_rows || s.mig.has_value();  // MIG figures need the rows
  auto r = utilsim::Simulate(s.cluster, *s.workload, *sched, c);
  if (!r.ok()) return r.status();
  RunResult out = std::move(r).value();
  for (const auto& n : s.notes) out.meta.notes += n + "; ";
  // Parameters given with the name: every parameter of each side, as used
  // (RunMeta has them for every run; the database records them here, so a
  // run with default parameters is recorded as before).
  if (policy.find(':') != std::string::npos) {
    std::string p;
    auto side = [&p](const std::string& name, const std::string& params) {
      if (params.empty()) return;
      p += (p.empty() ? "" : ", ") + name + " " + params;
    };
    side(out.meta.queue_policy, out.meta.queue_policy_params);
    side(out.meta.placement_policy, out.meta.placement_policy_params);
    if (!p.empty()) out.meta.notes += "policy parameters: " + p + "; ";
  }
  if (!s.co_note.empty()) out.meta.notes += "co-resource: " + s.co_note + "; ";
  if (!s.sharing_note.empty()) out.meta.notes += s.sharing_note + "; ";
  if (s.mig) {
    if (reconfig) out.meta.notes += FormatMigReconfigStats(*reconfig) + "; ";
    if (Status u = NoteMigUsage(s.physical, s.mig->dynamic ? s.workload : nullptr, &out); !u.ok())
      return u;
  }
  return out;
}

}  // namespace utilsim
