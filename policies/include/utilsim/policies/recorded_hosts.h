// The `recorded-hosts` placement: each task on the host the trace recorded
// it on (Job::recorded_hosts, one per task), when the job's tasks all fit
// there now; otherwise the fallback placement (first fit) decides. With the
// `as-recorded` queue it replays a history as it happened: the recorded
// starts on the recorded nodes, so a later job finds its own recorded node
// free exactly when it was (docs/policies.md, "Replaying a history").
//
// Used only when the job lists exactly `tasks` hosts that all name nodes of
// the cluster; GPUs on a node are the lowest-indexed that fit
// (ClusterState::PickGpus), since traces record hosts, not GPU indices.
// Whether a job fits anywhere is still the fallback's answer when its
// recorded hosts are busy, so jobs of one shape keep fitting or failing
// together (the scheduler's shape classes stay valid).
// Thread-safety: one thread at a time (the name index is built lazily).
#pragma once

#include <memory>

#include "utilsim/policies/placement_policy.h"

namespace utilsim {

// `fallback` must not be null.
std::unique_ptr<PlacementPolicy> MakeRecordedHosts(std::unique_ptr<PlacementPolicy> fallback);

}  // namespace utilsim
