// Utilization-aware co-location (Gandiva / AntMan / Lucid style; issue 6,
// docs/sharing.md): a fractional task joins a GPU that other jobs already
// share when the summed solo utilization of its co-runners and its own stays
// at most a threshold and their GPU memory fits.
//
// Per GPU the policy keeps load = sum of SoloGpuUtil (engine/
// sharing_progress.h: util x milli / 1000) of the fractional jobs on it,
// rebuilt from the running jobs at every scheduling pass
// (PlacementPolicy::BeginPass) and raised by each placement it returns
// during the pass (the composed scheduler starts it at once). Free share and
// GPU memory come from the ClusterState (ClusterState::GpuFits).
//
// A fractional task (one GPU, gpu_milli < 1000) goes to the GPU, among those
// where it fits (free share and, when known, free GPU memory; GpuFits) and
// load + own <= threshold (always allowed on a whole-free GPU):
//  1. an already-shared GPU (free share < 1000) with the highest load
//     (ties: least free share, then lowest node, then lowest GPU index);
//  2. else best fit: a whole-free GPU on the node with the fewest
//     whole-free GPUs (ties: lowest node, lowest GPU);
// none: the job waits. Whole-GPU and CPU-only tasks and gangs: best fit
// (MakeBestFit). Cost: O(nodes x GPUs) per fractional task.
//
// Every built-in scheduler calls BeginPass at the start of its pass, and
// the preemptive ones (priority-preempt, tiresias) again after preempting
// inside a pass, before placing the job that preempted (rebuilding is
// idempotent). Their victim search still sees the loads of the jobs it
// tries releasing (ChooseVictims: conservative, may preempt nothing).
// PolicyId {"colocate", "1", "threshold=<threshold>"}; the registry's
// "colocate" has threshold 1.0, `colocate:threshold=X` another.
#pragma once

#include <memory>

#include "utilsim/policies/placement_policy.h"

namespace utilsim {

inline constexpr double kDefaultColocateThreshold = 1.0;

// threshold >= 0: the most summed solo GPU utilization of one shared GPU
// (0: a fractional job with any utilization never joins a shared GPU).
std::unique_ptr<PlacementPolicy> MakeColocate(double threshold = kDefaultColocateThreshold);

}  // namespace utilsim
