#include "utilsim/engine/wait.h"

#include <algorithm>

#include "utilsim/engine/units.h"

namespace utilsim {

namespace {
constexpr const char* kNames[kWaitCauses] = {
    "capacity",   "gpu-model",    "fragmentation", "co-resource",    "placement",
    "mig-layout", "reservation",  "queue-order",   "recorded-start", "preemption",
    "power-on",   "power-budget", "nodes-down"};

bool Allowed(ModelMask mask, int model) { return model < 64 && ((mask >> model) & 1) != 0; }

// Whole-free GPUs over the models `mask` allows, and the tasks of `per_task`
// GPUs the nodes' whole-free GPUs could hold (CPU and memory aside).
void CountWhole(const ClusterState& c, ModelMask mask, int per_task, int64_t* gpus,
                int64_t* tasks) {
  *gpus = 0;
  *tasks = 0;
  for (int m = 0; m < c.num_models(); ++m) {
    if (!Allowed(mask, m)) continue;
    for (int k = 1; k <= c.max_gpus_per_node(); ++k) {
      const int64_t nodes = static_cast<int64_t>(c.Bucket(m, k).size());
      *gpus += nodes * k;
      if (per_task > 0) *tasks += nodes * (k / per_task);
    }
  }
}

// Tasks of d the nodes can hold with CPU and memory, counting up to `want`.
int64_t CountFull(const ClusterState& c, const TaskDemand& d, ModelMask mask, int64_t want) {
  int64_t tasks = 0;
  for (int m = 0; m < c.num_models() && tasks < want; ++m) {
    if (!Allowed(mask, m)) continue;
    for (int k = std::max(1, d.gpus); k <= c.max_gpus_per_node() && tasks < want; ++k) {
      for (NodeIndex n : c.Bucket(m, k)) {
        int64_t fit = k / d.gpus;
        if (d.cpu_milli > 0) fit = std::min(fit, c.free_cpu(n) / d.cpu_milli);
        if (d.mem_bytes > 0) fit = std::min(fit, c.free_mem(n) / d.mem_bytes);
        tasks += fit;
        if (tasks >= want) break;
      }
    }
  }
  return tasks;
}
}  // namespace

const char* WaitCauseName(WaitCause c) {
  const size_t i = static_cast<size_t>(c);
  return i < kWaitCauses ? kNames[i] : "?";
}

bool ParseWaitCause(const std::string& name, WaitCause* out) {
  for (size_t i = 0; i < kWaitCauses; ++i)
    if (name == kNames[i]) {
      *out = static_cast<WaitCause>(i);
      return true;
    }
  return false;
}

NodeCounts CountNodes(const Job& job, ModelMask mask, const ClusterState& c) {
  NodeCounts k;
  k.known = true;
  const TaskDemand& d = job.task;
  for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
    if (c.cordoned(n)) {
      ++k.unavailable;
      continue;
    }
    if (d.gpus > 0 && !c.ModelAllowed(n, mask)) {
      ++k.model;
      continue;
    }
    bool gpus_ok = true;
    if (d.gpus > 0) {
      if (d.fractional()) {
        gpus_ok = false;
        for (int g = 0; g < c.node(n).gpus && !gpus_ok; ++g) gpus_ok = c.GpuFits(n, g, d);
      } else {
        gpus_ok = c.free_whole_gpus(n) >= d.gpus;
      }
    }
    if (!gpus_ok)
      ++k.gpus;
    else if (c.free_cpu(n) < d.cpu_milli)
      ++k.cpu;
    else if (c.free_mem(n) < d.mem_bytes)
      ++k.mem;
    else if (!c.PowerFits(n, d))
      ++k.power;
    else
      ++k.fits;
  }
  return k;
}

namespace {

// Whether the power budget holds the job: some node the resources allow has
// room for one task, and the whole job's least power fits the cluster's
// headroom (a gang's tasks are not placed together here: a stated
// approximation, like the fractional gangs above).
bool BudgetHolds(const Job& job, ModelMask mask, const ClusterState& c) {
  if (!c.power_budget_on() || job.task.gpus <= 0) return true;
  return c.PowerRoomAnywhere(job.task, mask, job.tasks) &&
         c.FindFirst(0, job.task, mask, /*budget=*/true) >= 0;
}

// The resource causes of ClassifyUnplaced, the power budget aside; `fits`
// when the resources hold the job.
WaitCause ClassifyResources(const Job& job, ModelMask mask, const ClusterState& c, WaitCause fits) {
  const TaskDemand& d = job.task;
  const int64_t tasks = job.tasks;
  if (d.gpus <= 0) {  // CPU-only: CPU and memory are its capacity
    int64_t cpu = c.total_cpu() - c.allocated_cpu(), mem = c.total_mem() - c.allocated_mem();
    if (cpu < d.cpu_milli * tasks || mem < d.mem_bytes * tasks) return WaitCause::kCapacity;
    return c.FindFirst(0, d, mask, false) < 0 ? WaitCause::kFragmentation : fits;
  }
  if (d.fractional()) {
    const int64_t free_share = c.total_gpus() * kMilliPerUnit - c.allocated_gpu_milli();
    if (free_share < static_cast<int64_t>(d.gpu_milli) * d.gpus * tasks)
      return WaitCause::kCapacity;
    TaskDemand gpu_only = d;
    gpu_only.cpu_milli = 0;
    gpu_only.mem_bytes = 0;
    if (c.FindFirst(0, gpu_only, mask, false) < 0)
      return c.FindFirst(0, gpu_only, kAnyModel, false) >= 0 ? WaitCause::kGpuModel
                                                             : WaitCause::kFragmentation;
    return c.FindFirst(0, d, mask, false) < 0 ? WaitCause::kCoResource : fits;
  }
  int64_t free_allowed = 0, placeable = 0, free_all = 0, unused = 0;
  CountWhole(c, mask, d.gpus, &free_allowed, &placeable);
  const int64_t need = static_cast<int64_t>(d.gpus) * tasks;
  if (free_allowed < need) {
    CountWhole(c, kAnyModel, 0, &free_all, &unused);
    return free_all >= need ? WaitCause::kGpuModel : WaitCause::kCapacity;
  }
  if (placeable < tasks) return WaitCause::kFragmentation;
  if (tasks == 1) return c.FindFirst(0, d, mask, false) < 0 ? WaitCause::kCoResource : fits;
  return CountFull(c, d, mask, tasks) < tasks ? WaitCause::kCoResource : fits;
}

}  // namespace

WaitCause ClassifyUnplaced(const Job& job, ModelMask mask, const ClusterState& c,
                           WaitCause if_fits) {
  const WaitCause fits = if_fits == WaitCause::kPlacement && job.task.mig_profile >= 0
                             ? WaitCause::kMigLayout
                             : if_fits;
  const WaitCause cause = ClassifyResources(job, mask, c, fits);
  if (cause != fits || BudgetHolds(job, mask, c)) return cause;
  return WaitCause::kPowerBudget;
}

}  // namespace utilsim
