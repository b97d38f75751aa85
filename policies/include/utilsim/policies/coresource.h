// Co-resource (CPU and host memory) allocation for GPU jobs; docs/policies.md
// "Co-resource allocation".
//
// Two decorators that combine with every queue and placement policy:
//
//  * MakeCoResource(scheduler, options): how much CPU and memory a job gets.
//    The inner scheduler sees a shaped copy of the workload (each job's
//    task.cpu_milli / mem_bytes replaced by the mode's amount) and its
//    Start(j, p) becomes the engine's StartWith(j, p, shaped task).
//      request       as the trace asked (identity: the inner scheduler is
//                    returned unchanged)
//      proportional  GPU-proportional share: per task, node CPU (memory) x
//                    task GPUs / node GPUs of the node with the most GPUs
//                    among the models the job may use (ties: the least CPU,
//                    the least memory of those nodes, so the share fits on
//                    each of them); fractional tasks count gpu_milli/1000;
//                    CPU-only jobs keep their request
//      measured      measured shape, Synergy-TUNE-like: the CPU the job's
//                    profile shows it needs (MeasuredDemand) when that fits
//                    at the job's turn, else the proportional share in the
//                    same pass (below)
//  * MakeGpuReservation(placement, cpu, mem): per-node co-resource
//    reservation for GPU work. CPU-only tasks are placed as if cpu/mem per
//    whole-free GPU were held on every GPU node (capped at what is free), so
//    they cannot take the cores and memory idle GPUs would need; GPU tasks
//    place unchanged and may use the reserved amount.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/scheduler.h"
#include "utilsim/engine/status.h"
#include "utilsim/policies/placement_policy.h"
#include "utilsim/policies/registry.h"

namespace utilsim {

// ---------------------------------------------------------------------------
// CPU / memory allocation modes

enum class CpuAlloc : uint8_t { kRequest, kProportional, kMeasured };
const char* CpuAllocName(CpuAlloc m);  // "request", "proportional", "measured"
// Parses a mode name; the error lists the known names.
Result<CpuAlloc> ParseCpuAlloc(const std::string& name);

struct CoResourceOptions {
  CpuAlloc mode = CpuAlloc::kRequest;
  // measured: a job with measured CPU use and no CPU input stall gets
  // ceil(use x headroom) milli-CPU. Finite, >= 1.
  double headroom = 1.1;
  // measured: at most this many inner passes per engine pass (>= 1); see
  // MakeCoResource.
  int max_rounds = 16;
};
// Error (naming the field and value) for headroom < 1 or not finite,
// max_rounds < 1, or a mode outside the enum.
Status ValidateCoResourceOptions(const CoResourceOptions& o);

// GPU-proportional per-task demand (the `proportional` mode and `measured`'s
// fair share). CPU-only jobs, and jobs no GPU node of the cluster allows,
// keep their request. GPUs and GPU memory are the job's.
TaskDemand ProportionalDemand(const Job& job, ModelMask mask, const ClusterState& c);

// The measured-shape ideal per-task demand of `measured`, memory = request:
//  * a GPU job with a recorded CPU input stall share i > 0 and busy share u
//    (both as ResolveParts resolves them; u = 0 gives cpu_cap):
//      ceil(request x (u + i) / u) milli-CPU — the CPU at which the
//      overlapped model's input stage (u + i) x request / granted shrinks to
//      the compute time u, i.e. the stall disappears (stall_model.h);
//  * else, a job with host_cpu_used_milli >= 0: ceil(use x headroom);
//  * else the request.
// The result is at most cpu_cap when cpu_cap > 0 (the largest CPU of a node
// the job may use: more never fits), and at least 1 milli-CPU when the
// request is > 0 (a grant of 0 reads as "as recorded" to the progress model).
// Memory stays at the request: the job model records no host-memory use
// (gpu_mem_used_bytes is GPU memory and stays with the GPUs).
TaskDemand MeasuredDemand(const Job& job, double headroom, int64_t cpu_cap);

// Per-job shapes of a mode: `first` is what the job is offered first,
// `second` its fallback (== first except in `measured`, where first is the
// ideal, capped at the largest CPU of a node the job may use, and second
// the proportional share).
struct ShapedDemands {
  std::vector<TaskDemand> first, second;
};
ShapedDemands ShapeDemands(const Workload& w, const ClusterState& c, const CoResourceOptions& o);

// The scheduler decorator. Invalid options make Init fail (naming them).
// Labels and policy ids are the inner scheduler's.
//
// measured, in each engine pass: every queued job whose two shapes differ is
// shown with its ideal when the ideal fits the cluster now (whole gang,
// ignoring order), else with its fair share; the inner scheduler runs; then
// every job still queued and shown with an ideal that no longer fits now is
// switched to its fair share and, if any was, the inner scheduler runs again
// at the same instant (at most max_rounds runs; each run switches at least
// one job, so jobs whose ideal was taken by an earlier start in the pass
// still start in it with the fair share). A job keeps the shape it started
// with (ctx.granted); a preempted job is decided again when it next waits.
std::unique_ptr<Scheduler> MakeCoResource(std::unique_ptr<Scheduler> inner,
                                          CoResourceOptions options);

// ---------------------------------------------------------------------------
// Per-node co-resource reservation for GPU work

struct GpuReservation {
  int64_t cpu_milli_per_gpu = 0;
  int64_t mem_bytes_per_gpu = 0;
  bool active() const { return cpu_milli_per_gpu > 0 || mem_bytes_per_gpu > 0; }
};
// "CORES[,GIB]" (cores and GiB per GPU, decimals allowed; memory 0 when
// omitted), e.g. "4" or "4,16". Errors name the text.
Result<GpuReservation> ParseGpuReservation(const std::string& text);
// Error for negative amounts, or where amount x GPUs exceeds a node group's
// CPU or memory: "reservation 16000 milli-CPU per GPU x 8 GPUs exceeds node
// group 'a' (96000 milli-CPU)" (memory in bytes, likewise).
Status ValidateGpuReservation(const ClusterSpec& spec, const GpuReservation& r);

class GpuReservationPlacement final : public PlacementPolicy {
 public:
  GpuReservationPlacement(std::unique_ptr<PlacementPolicy> inner, GpuReservation r);
  // {"<inner>+gpu-reserve(<cpu>m,<mem>B)", inner version}.
  PolicyId id() const override;
  void Init(const Workload& w) override { inner_->Init(w); }
  void BeginPass(PassContext& ctx) override { inner_->BeginPass(ctx); }
  Micros NextWakeup(Micros now) const override { return inner_->NextWakeup(now); }
  // CPU-only jobs: on every GPU node with w > 0 whole-free GPUs, holds
  // min(free CPU, w x cpu) and min(free memory, w x mem) on the live state,
  // asks the inner policy, releases (the state is left as found). GPU jobs:
  // the inner policy alone.
  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override;
  Status Validate(const ClusterSpec& spec) const { return ValidateGpuReservation(spec, r_); }
  const GpuReservation& reservation() const { return r_; }

 private:
  std::unique_ptr<PlacementPolicy> inner_;
  GpuReservation r_;
  std::vector<std::pair<NodeIndex, TaskDemand>> held_;  // scratch
};

std::unique_ptr<PlacementPolicy> MakeGpuReservation(std::unique_ptr<PlacementPolicy> inner,
                                                    int64_t cpu_milli_per_gpu,
                                                    int64_t mem_bytes_per_gpu);

// ---------------------------------------------------------------------------
// Applying a placement decorator to every policy name of a registry

using PlacementDecorator =
    std::function<std::unique_ptr<PlacementPolicy>(std::unique_ptr<PlacementPolicy>)>;
// A copy of `reg` in which every placement and profile entry builds its
// placement through `decorate` (names, kinds, versions and descriptions
// unchanged), so reg-copy.Make(name) gives the decorated scheduler for every
// name form (PLACEMENT, QUEUE+PLACEMENT, as-recorded, profiles, batch queues).
// A profile's queue is read back from the scheduler it makes; an error when
// that is not a registered queue. The copy keeps its own copy of `reg`.
Result<PolicyRegistry> DecoratePlacements(const PolicyRegistry& reg, PlacementDecorator decorate);

}  // namespace utilsim
