// Dynamic MIG (docs/mig.md, "Dynamic repartitioning"): a placement decorator
// that owns the MIG layouts of the cluster's MIG-managed GPUs (node groups
// that declare `mig`; the declared layouts are the initial state), places
// MIG tasks (TaskDemand::mig_profile >= 0, from RightSizeMigDynamic) on
// instances of their profile, and changes layouts when the queue needs it.
//
// For a job needing K = tasks x gpus instances of profile P, in this order:
//  1. Ready: every task on a node whose CPU and memory fit, with `gpus`
//     GPUs each holding an idle, ready instance of P that no drain is about
//     to destroy; nodes and GPUs with the most busy compute slices first
//     (packing), ties to the lowest index. -> the placement.
//     A 7g job that finds none there may go to non-MIG nodes: the inner
//     policy, asked with the models of non-managed groups only.
//  2. Coming: instances of P being created, or planned by a drain, not yet
//     claimed in this pass: the job claims K of them and waits.
//  3. Repartition now: for each task a node and `gpus` GPUs where P fits
//     after destroying only idle, ready instances (the fewest needed: the
//     other idle ones are kept when they still fit); per GPU the change ends
//     at max(now, the GPU's previous change) + MigGpu::Cost; the tasks take
//     the GPUs whose change ends first, then the most busy slices. All or
//     nothing; the job waits until the new instances are ready (a pass is
//     asked for then: NextWakeup).
//  4. Drain (single-task jobs): for each GPU and valid start of P, the
//     instances overlapping that slot must be destroyed; the busy ones drain,
//     each expected to end at its start + its recorded runtime (an estimate,
//     as backfilling uses). The GPU(s) whose drain plus change ends first is
//     chosen when that is sooner than the earliest expected end of a busy
//     instance of P (the wait without repartitioning): "the drain pays off".
//     The draining instances take no new job; the change is made in the
//     first pass after they are all idle.
// A GPU with a drain plan is not changed otherwise until it is carried out.
// Jobs without a profile go to the inner policy (a placement that would use
// a MIG-managed GPU is refused); CPU-only jobs go anywhere through it.
// On a cluster state other than the live one (a scheduler's what-if search)
// only step 1 is tried and nothing is claimed or changed.
//
// Busy instances are reconciled with the running jobs at every BeginPass
// (finishes and preemptions free their instances). Determinism: all choices
// scan GPUs in index order.
// Cost per Place: O(managed GPUs x instances); per pass O(running jobs +
// managed GPUs x instances).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "utilsim/engine/mig.h"
#include "utilsim/policies/placement_policy.h"

namespace utilsim {

struct MigRepartitionParams {
  mig::ReconfigTimes times;  // create / destroy / fixed per change
  bool drain = true;         // step 4
  // Per-pass indexes of the options by node and of the ready instances by
  // node (docs/mig.md, "Cost"); they change no decision, which tests check
  // by turning them off.
  bool memoize = true;
};

// What the planner did in one run (all zero without MIG-managed GPUs).
struct MigReconfigStats {
  int64_t reconfigurations = 0;  // layout changes made
  int64_t after_drain = 0;       // of them, carried out after a drain
  int64_t drains = 0;            // drain plans decided
  int64_t created = 0;           // instances created
  int64_t destroyed = 0;         // instances destroyed
  double change_s = 0;           // sum of change durations (s)
  // Compute-slice-seconds of created instances before they were ready.
  double creating_slice_s = 0;
  double drain_wait_s = 0;  // sum over carried-out drains of (change start - decision)
  // Compute-slice-seconds the destroyed instances of carried-out drains
  // spent idle between the decision (or their job's end) and the change:
  // capacity the drain cost.
  double drain_idle_slice_s = 0;
};
// "mig dynamic: 41 reconfigurations (3 after drains; 5 drains decided), 60
// instances created, 38 destroyed, change time 196 s, ..."
std::string FormatMigReconfigStats(const MigReconfigStats& s);

// `stats` (may be null): filled during the run, reset by Init.
std::unique_ptr<PlacementPolicy> MakeMigRepartition(std::unique_ptr<PlacementPolicy> inner,
                                                    MigRepartitionParams params,
                                                    std::shared_ptr<MigReconfigStats> stats);

}  // namespace utilsim
