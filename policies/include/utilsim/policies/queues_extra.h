// More queue-order policies and preemptive schedulers: shortest job first,
// priority, Dominant Resource Fairness, Tiresias 2D-LAS and priority with
// preemption. All are deterministic: ties go to the lower job index.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "utilsim/engine/scheduler.h"
#include "utilsim/policies/placement_policy.h"
#include "utilsim/policies/queue_policy.h"

namespace utilsim {

// `sjf`: shortest job first by the user's estimate (BackfillEstimate:
// walltime_limit if set, else the recorded runtime). Ties: submit time, then
// job index. Non-blocking: a job that cannot start is skipped.
std::unique_ptr<QueuePolicy> MakeSjfQueue();
// `sjf-oracle`: the same by the recorded runtime (an oracle: a real scheduler
// does not know it).
std::unique_ptr<QueuePolicy> MakeSjfOracleQueue();

// `priority`: larger Job::priority first, then submit time, then job index.
// Non-blocking.
std::unique_ptr<QueuePolicy> MakePriorityQueue();

// `drf`: Dominant Resource Fairness (Ghodsi et al., NSDI'11) across tenants.
// Queued jobs are visited by their tenant's dominant share ascending (ties:
// submit time, then job index), where a tenant's dominant share is the max
// over GPU, CPU and memory of what its running jobs hold / the cluster total
// given here (a total <= 0 leaves that resource out). Allocations are tracked
// through OnStart/OnFinish, so the order is refreshed between passes, not
// within one. Non-blocking.
std::unique_ptr<QueuePolicy> MakeDrfQueue(int64_t total_gpu_milli, int64_t total_cpu_milli,
                                          int64_t total_mem_bytes);
// The drf queue with `placement`, taking the totals from the cluster given to
// Init (a BatchFactory for the registry). Precondition: Init before any other
// call.
std::unique_ptr<Scheduler> MakeDrf(std::string label, std::unique_ptr<PlacementPolicy> placement);

// `tiresias`: discretised 2D-LAS (Gu et al., NSDI'19; domain.md §5.9).
// A job's attained service is its GPUs (tasks x GPU share) x seconds it has
// run so far, over all its runs. Queue k holds jobs whose attained service is
// in [thresholds[k-1], thresholds[k]) (thresholds in GPU-seconds, strictly
// increasing; queue 0 is the highest). Within a queue: submit time, then job
// index. Each pass visits waiting jobs from queue 0 down and starts those that
// fit (non-blocking). A waiting job that does not fit preempts running jobs of
// strictly lower queues (lowest queue first, then most recently started, then
// higher index) if, on a scratch copy of the cluster, releasing them lets it
// fit; otherwise nothing is preempted. Preempted jobs keep their attained
// service and wait again. NextWakeup is the next time a running job crosses a
// threshold, so demotions (and the preemptions they allow) happen on time.
// No starvation guard (the paper's promotion after long waits) is applied.
// The registry's `tiresias:thresholds=T1/T2/...` sets the thresholds
// (default DefaultTiresiasThresholds()). PolicyId {"tiresias", "1",
// "thresholds=3600/36000"}.
inline std::vector<double> DefaultTiresiasThresholds() { return {3600.0, 36000.0}; }
std::unique_ptr<Scheduler> MakeTiresias(std::string label,
                                        std::unique_ptr<PlacementPolicy> placement,
                                        std::vector<double> thresholds_gpu_s);

// `priority-preempt`: the priority order (larger priority, then submit, then
// index), non-blocking; a waiting job that does not fit preempts running jobs
// of strictly lower priority (lowest priority first, then most recently
// started, then higher index) if, on a scratch copy of the cluster, releasing
// them lets it fit; otherwise nothing is preempted. Preempted jobs wait again
// and pay SimConfig::restart_cost.
std::unique_ptr<Scheduler> MakePriorityPreempt(std::string label,
                                               std::unique_ptr<PlacementPolicy> placement);

// Shared by the preemptive schedulers: with `candidates` in preemption order
// (all running), the shortest prefix whose release lets job j fit, found on a
// scratch copy of ctx.cluster() with `placement`; nullopt if even all of them
// do not suffice. Leaves ctx.cluster() unchanged. The placement's pass state
// (colocate's loads, BeginPass) is not told of the scratch releases, so for
// colocate the search is conservative; after preempting, the caller calls
// placement.BeginPass(ctx) again before placing j (the probe's Place may
// also have raised that state).
std::optional<std::vector<JobIndex>> ChooseVictims(PassContext& ctx, PlacementPolicy& placement,
                                                   JobIndex j,
                                                   const std::vector<JobIndex>& candidates);

}  // namespace utilsim
