#include "utilsim/analysis/runner.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <thread>

#include "utilsim/analysis/host_scale.h"
#include "utilsim/analysis/mig_run.h"
#include "utilsim/analysis/progress.h"
#include "utilsim/analysis/sharing.h"
#include "utilsim/engine/sharing_progress.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/engine/stall_model.h"
#include "utilsim/policies/coresource.h"
#include "utilsim/policies/fgd.h"

namespace utilsim {

Result<std::vector<RunResult>> RunPolicies(const Inputs& in, const PolicyRegistry& reg,
                                           const std::vector<std::string>& policies,
                                           const RunSettings& settings) {
  return RunPoliciesOn(in, in.cluster, reg, policies, settings);
}

Result<std::vector<RunResult>> RunPoliciesOn(const Inputs& in, const ClusterSpec& cluster,
                                             const PolicyRegistry& reg,
                                             const std::vector<std::string>& policies,
                                             const RunSettings& settings) {
  // Host-request scaling (host_scale.h): a copy of the workload, transformed
  // once; everything below (MIG right-sizing included) sees the scaled jobs.
  if (!settings.scale_host_requests.empty()) {
    auto f = ParseHostScale(settings.scale_host_requests);
    if (!f.ok()) return f.status();
    Inputs scaled = in;
    const int64_t n = ScaleHostRequests(&scaled.workload, f.value());
    scaled.notes.push_back(HostScaleNote(f.value(), n));
    RunSettings s = settings;
    s.scale_host_requests.clear();
    return RunPoliciesOn(scaled, cluster, reg, policies, s);
  }
  // MIG (docs/mig.md): expand, right-size, wrap; it comes back here.
  if (!settings.mig.empty()) return RunPoliciesMig(in, cluster, reg, policies, settings);
  // Co-resource allocation (docs/policies.md): every policy's placement
  // decorated with the GPU reservation, every scheduler with the CPU mode.
  auto cpu_alloc = ParseCpuAlloc(settings.cpu_alloc);
  if (!cpu_alloc.ok()) return Status::Error("--cpu-alloc: " + cpu_alloc.status().message());
  std::string co_note;
  if (cpu_alloc.value() != CpuAlloc::kRequest) co_note = "cpu-alloc " + settings.cpu_alloc;
  const PolicyRegistry* made_from = &reg;
  std::optional<PolicyRegistry> reserved;
  if (!settings.gpu_reserve.empty()) {
    auto g = ParseGpuReservation(settings.gpu_reserve);
    if (!g.ok()) return Status::Error("--gpu-reserve: " + g.status().message());
    if (Status s = ValidateGpuReservation(cluster, g.value()); !s.ok())
      return Status::Error("--gpu-reserve: " + s.message());
    auto d = DecoratePlacements(reg, [r = g.value()](std::unique_ptr<PlacementPolicy> p) {
      return MakeGpuReservation(std::move(p), r.cpu_milli_per_gpu, r.mem_bytes_per_gpu);
    });
    if (!d.ok()) return Status::Error("--gpu-reserve: " + d.status().message());
    reserved = std::move(d).value();
    made_from = &*reserved;
    co_note += (co_note.empty() ? "" : ", ") + std::string("gpu-reserve ") + settings.gpu_reserve +
               " (cores[,GiB] per whole-free GPU, held from CPU-only jobs)";
  }
  std::vector<std::unique_ptr<Scheduler>> scheds;
  for (const auto& name : policies) {
    auto s = made_from->Make(name, settings.seed);
    if (!s.ok()) return Status::Error("--policy: " + s.status().message());
    scheds.push_back(MakeCoResource(std::move(s).value(), {cpu_alloc.value()}));
  }
  SimConfig cfg;
  auto interval = FromSeconds(settings.sample_interval_s);
  if (!interval || interval->us <= 0)
    return Status::Error("--sample-interval: expected seconds > 0");
  cfg.sample_interval = *interval;
  if (settings.horizon_s >= 0) {
    auto h = FromSeconds(settings.horizon_s);
    if (!h) return Status::Error("--horizon: expected seconds >= 0");
    cfg.horizon = *h;
  }
  if (settings.window == "arrivals") {
    cfg.window = Window::kArrivals;
  } else if (settings.window == "full") {
    cfg.window = Window::kFull;
  } else {
    return Status::Error("--window: expected arrivals or full, got '" + settings.window + "'");
  }
  auto warmup = FromSeconds(settings.warmup_s);
  if (!warmup || warmup->us < 0) return Status::Error("--warmup: expected seconds >= 0");
  cfg.warmup = *warmup;
  auto restart = FromSeconds(settings.restart_cost_s);
  if (!restart || restart->us < 0) return Status::Error("--restart-cost: expected seconds >= 0");
  cfg.restart_cost = *restart;
  if (!(settings.comm_fraction >= 0 && settings.comm_fraction <= 1))
    return Status::Error("--comm-fraction: expected a fraction 0..1");
  cfg.comm_fraction = settings.comm_fraction;
  std::unique_ptr<ProgressModel> model;
  if (settings.model == "stall-serial") {
    model = std::make_unique<StallProgress>(Composition::kSerial, settings.comm_fraction);
  } else if (settings.model == "stall-overlapped") {
    model = std::make_unique<StallProgress>(Composition::kOverlapped, settings.comm_fraction);
  } else if (settings.model != "whole-gpu") {
    return Status::Error("--model: expected whole-gpu, stall-serial or stall-overlapped, got '" +
                         settings.model + "'");
  }
  cfg.progress = model.get();
  // GPU sharing (docs/sharing.md): exclusive rounds fractional requests up
  // (a workload transform, noted in the run); timeslice / mps wrap the
  // progress model; fractional leaves everything as it was.
  auto sharing = ParseSharingMode(settings.sharing, settings.mps_thread_pct);
  if (!sharing.ok()) return sharing.status();
  const Workload* workload = &in.workload;
  Workload rounded;
  std::string sharing_note;
  if (sharing.value() == SharingMode::kExclusive) {
    rounded = in.workload;
    const int64_t k = RoundUpFractional(&rounded);
    workload = &rounded;
    sharing_note = "sharing exclusive: " + std::to_string(k) +
                   " fractional GPU requests rounded up to whole GPUs (busy share scaled by "
                   "milli/1000: same useful work)";
  }
  const WholeGpuProgress whole(settings.comm_fraction);
  std::unique_ptr<ProgressModel> shared;
  if (sharing.value() == SharingMode::kTimeSlice || sharing.value() == SharingMode::kMps) {
    shared = std::make_unique<SharedGpuProgress>(
        model ? model.get() : &whole, SharingConfigOf(sharing.value(), settings.mps_thread_pct));
    cfg.progress = shared.get();
  }
  std::shared_ptr<ProgressModel> wrapped;  // RunSettings::wrap_progress (MIG)
  if (settings.wrap_progress) {
    wrapped = settings.wrap_progress(cfg.progress ? cfg.progress : &whole);
    cfg.progress = wrapped.get();
  }
  // Fragmentation per sample (FGD measure over the input workload's task
  // shapes, the same for every sharing mode), when some request is
  // fractional: otherwise NULL.
  std::shared_ptr<const FragmentationMeter> meter;
  if (std::any_of(in.workload.jobs.begin(), in.workload.jobs.end(),
                  [](const Job& j) { return j.task.fractional(); })) {
    if (auto st = ClusterState::Build(cluster); st.ok())
      meter = std::make_shared<const FragmentationMeter>(TaskClassesOf(in.workload), st.value());
  }
  cfg.seed = settings.seed;
  cfg.price_per_gpu_h = settings.price_per_gpu_h;
  cfg.input_digest = in.digest;
  cfg.workload_source = in.workload.source;

  std::vector<Result<RunResult>> out(policies.size(), Status::Error("not run"));
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const size_t threads =
      std::min<size_t>(policies.size(), settings.threads > 0 ? settings.threads : hw);
  std::atomic<size_t> next{0};
  // Progress and observer hooks (RunSettings): each run gets its own config
  // copy with its board slot; an exception from the observer ends that run.
  size_t slot0 = 0;
  if (settings.progress)
    slot0 = settings.progress->AddRuns(policies.size(), EstimateSpan(in.workload, cfg.horizon));
  const bool hooked = settings.progress != nullptr || static_cast<bool>(settings.observer);
  std::vector<std::exception_ptr> thrown(policies.size());
  auto worker = [&] {
    for (size_t i; (i = next++) < policies.size();) {
      SimConfig c = cfg;
      if (meter) c.fragmentation = MakeFragmentationSampler(meter);
      if (!hooked) {
        out[i] = Simulate(cluster, *workload, *scheds[i], c);
        continue;
      }
      c.observer = settings.observer;
      if (settings.progress) c.observer = settings.progress->Observer(slot0 + i, c.observer);
      try {
        out[i] = Simulate(cluster, *workload, *scheds[i], c);
      } catch (...) {
        thrown[i] = std::current_exception();
      }
      if (settings.progress) settings.progress->Done(slot0 + i);
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (const auto& e : thrown)
    if (e) std::rethrow_exception(e);

  std::vector<RunResult> results;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i].ok())
      return Status::Error("policy '" + policies[i] + "': " + out[i].status().message());
    results.push_back(std::move(out[i]).value());
    for (const auto& n : in.notes) results.back().meta.notes += n + "; ";
    if (!co_note.empty()) results.back().meta.notes += "co-resource: " + co_note + "; ";
    if (!sharing_note.empty()) results.back().meta.notes += sharing_note + "; ";
  }
  return results;
}

}  // namespace utilsim
