// Measured-load spreading for GPUs ("least-loaded"; docs/live-k8s.md,
// docs/packing.md): a task goes where the GPUs are measured least busy, the
// GPU analogue of Trimaran's TargetLoadPacking / Koordinator's LoadAware,
// which look at measured CPU and memory only.
//
// Load of a GPU = the summed solo utilization (SoloGpuUtil: util x share) of
// the running jobs on it, rebuilt from the running jobs at every pass
// (PlacementPolicy::BeginPass; in a simulation the jobs' recorded
// utilization, in the live extender each pod's measured busy fraction from
// dcgm-exporter) and raised by each placement returned within the pass.
// Load of a node = the mean load of its GPUs (every GPU, allocated or not).
//
//  - whole-GPU tasks (gangs task by task, PlaceTasks): the feasible node of
//    least load; ties: fewest whole-free GPUs (best fit), then lowest node;
//    GPUs by ClusterState::PickGpus;
//  - fractional tasks (one GPU, share < 1000): the fitting GPU (GpuFits) of
//    least load; ties: least free share, then lowest node, lowest GPU;
//  - CPU-only tasks: best fit (MakeBestFit).
// Loads are compared in fixed point (1e-6) so equal states tie exactly.
// Cost: O(nodes x GPUs) per task. PolicyId {"least-loaded", "1", ""}.
#pragma once

#include <memory>

#include "utilsim/policies/placement_policy.h"

namespace utilsim {

std::unique_ptr<PlacementPolicy> MakeLeastLoaded();

}  // namespace utilsim
