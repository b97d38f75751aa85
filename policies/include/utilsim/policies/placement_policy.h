// Placement policies: where a job's tasks go. A placement policy is a pure
// decision over the current cluster state: it may tentatively claim
// resources while it searches (to place a gang task by task) but leaves the
// state exactly as it found it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <tuple>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/placement.h"
#include "utilsim/engine/scheduler.h"

namespace utilsim {

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual PolicyId id() const = 0;
  // Called once before a run with the whole workload (policies that need
  // workload statistics, such as FGD's task-class popularity). Default: none.
  virtual void Init(const Workload& /*w*/) {}
  // Called by the composed scheduler at the start of each pass, before any
  // Place, for policies that look at the running jobs (colocate). It must
  // not start, stop or allocate anything. Default: nothing.
  virtual void BeginPass(PassContext& /*ctx*/) {}
  // True when BeginPass reads the running jobs (colocate, least-loaded):
  // a Placer (placer.h) then builds a pass over the jobs it knows before
  // each Place. Default: false.
  virtual bool uses_running_jobs() const { return false; }
  // A placement for every task of `job`, or nullopt if it cannot start now.
  virtual std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) = 0;
  // True when Place keeps no state, draws no random numbers and gives a
  // result that depends on the job only through ShapeOf(job, mask): a
  // scheduler may then take one Place result for every job of that shape
  // while the cluster is unchanged, without calling Place again (and
  // without changing any decision). Default: false.
  virtual bool place_depends_on_shape_only() const { return false; }
  // Earliest time (> now) at which this policy could place something that it
  // cannot place now although nothing arrives or finishes (MIG instances
  // being created, mig_repartition.h), or kNever. Every scheduler that owns a
  // placement includes it in its own NextWakeup. Default: kNever.
  virtual Micros NextWakeup(Micros /*now*/) const { return kNever; }
};

// A job's equivalence class for placement (Borg §5.1): jobs of one shape fit
// or fail together on the same cluster state, so a scheduling pass tries a
// failed shape only once.
using JobShape =
    std::tuple<int32_t, int32_t, int32_t, int64_t, int64_t, int64_t, int32_t, ModelMask>;
inline JobShape ShapeOf(const Job& j, ModelMask mask) {
  return {j.tasks,          j.task.gpus,          j.task.gpu_milli,   j.task.cpu_milli,
          j.task.mem_bytes, j.task.gpu_mem_bytes, j.task.mig_profile, mask};
}

// Chooses a node for one task given the current state, or -1.
using NodeChooser = std::function<int64_t(const TaskDemand&, ModelMask, const ClusterState&)>;

// Places job.tasks tasks one at a time with `choose`, reserving each on `c`
// so the next task sees it (the reserve step), then releases them all
// (unreserve) and returns the placement; nullopt if any task finds no node.
// The GPUs of each task: ClusterState::PickGpus.
std::optional<Placement> PlaceTasks(const Job& job, ModelMask mask, ClusterState& c,
                                    const NodeChooser& choose);

// Chooses the node and the GPUs of one task given the current state, or
// nullopt.
using TaskChooser =
    std::function<std::optional<TaskPlacement>(const TaskDemand&, ModelMask, const ClusterState&)>;

// PlaceTasks' contract for policies that choose the GPUs too.
std::optional<Placement> PlaceTasksWithGpus(const Job& job, ModelMask mask, ClusterState& c,
                                            const TaskChooser& choose);

// Lowest-indexed node that fits (segment-tree search).
std::unique_ptr<PlacementPolicy> MakeFirstFit();
// Borg-style tightest fit on the task's primary resource: whole-GPU tasks go
// to the node left with the fewest whole-free GPUs (bucket index); fractional
// tasks to the GPU with the least free share that fits; CPU-only tasks to the
// node left with the least free CPU (permille of the node's CPU). Ties: lowest
// node index.
std::unique_ptr<PlacementPolicy> MakeBestFit();
// Spread (E-PVM-like worst fit): the node left with the most whole-free
// GPUs; CPU-only: most free CPU (permille); fractional: the node whose
// largest free share is largest. Ties: lowest node index.
std::unique_ptr<PlacementPolicy> MakeWorstFit();

}  // namespace utilsim
