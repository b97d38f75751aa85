// EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001; domain.md §5.8)
// over any placement policy.
//
// Each pass starts queued jobs in submit order while they fit. The first job
// that does not fit (the head) gets a reservation: running jobs are released
// on a scratch copy of the cluster in order of their estimated end (start +
// estimate, or now when that is already past) until the head fits; that end
// is the shadow time and the head's placement there is reserved. A later job
// may start now (backfill) only if it fits now and either its estimate ends
// by the shadow time or its placement still fits beside the head's
// reservation at the shadow time. Estimates: the job's walltime_limit (the
// user's request) when it has one, else its recorded runtime (an oracle;
// docs/policies.md says so).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "utilsim/engine/scheduler.h"
#include "utilsim/policies/placement_policy.h"

namespace utilsim {

std::unique_ptr<Scheduler> MakeEasyBackfill(std::string label,
                                            std::unique_ptr<PlacementPolicy> placement);

// The estimate EASY uses for job j: walltime_limit if set and > 0, else runtime.
Micros BackfillEstimate(const Job& j);

// Conservative backfilling (Mu'alem & Feitelson 2001; domain.md §5.8) over any
// placement policy.
//
// Each pass recomputes, from scratch, a reservation for every queued job in
// submit order, so the schedule is a deterministic function of the pass state
// and reservations compress when jobs end before their estimates. A job's
// reservation is the earliest time t at which its placement (chosen by the
// placement policy) fits for its whole estimated run [t, t + estimate) given
//  * the running jobs, each holding its placement until its estimated end:
//    start + estimate, or just after now (now + 1 us) when that is already
//    past (the job is still running, so its resources free only after now);
//  * the reservations already made in this pass for the jobs ahead of it,
//    each holding its placement over [reserved start, reserved start +
//    estimate).
// Candidate times are now, then every time a running job's estimated end or
// an earlier reservation's end frees resources (the earliest fit is always
// one of these). At a candidate t the placement policy is asked on a scratch
// cluster: the live cluster minus the running jobs whose estimated end is
// <= t, plus every earlier reservation overlapping [t, t + estimate). Holders
// that overlap the interval at different times are all subtracted at once
// (capped at what the node has), which can only make the check stricter than
// an exact time profile, never let a job overlap a reservation. A job whose
// reservation is at now starts now with that placement (it fits the live
// cluster and keeps out of every earlier reservation over its whole
// estimated run), and then holds its placement as a running job. So no job
// ever delays the reserved start of any job ahead of it in the queue (EASY
// protects only the head). Estimates: BackfillEstimate (a zero estimate
// counts as 1 us).
//
// Cost bound: at most `max_reservations` future reservations are made per
// pass (jobs ahead of the cap that start now do not count). Jobs behind the
// cap get none; such a job may still start now if it fits the live cluster
// without touching any reservation over its estimated run (EASY's backfill
// rule generalised to all reservations). Within a pass a job shape (ShapeOf)
// that failed at a candidate time with some estimate is not tried again there
// with an estimate at least as long: the resources held over the interval
// only grow during a pass. The registry's `conservative-backfill:depth=N`
// sets max_reservations (0: none, so nothing is reserved ahead). PolicyId
// {"conservative-backfill", "1", "depth=<max_reservations>"}.
//
// Two shortcuts change no decision and no placement-policy call. Within a
// pass, a job of a shape already seen starts its search past the candidates
// that an earlier job of that shape, with an estimate no longer than its own,
// proved cannot fit (they were there then, and what is held over an interval
// only grows during a pass); candidate times added since are still tried.
// And a node whose adjustments are all whole and exact changes by the
// holders that changed alone instead of being rebuilt (its content is the
// same either way). `shortcuts = false` turns both off (for tests that show
// so).
struct ConservativeBackfillOptions {
  size_t max_reservations = 256;
  bool shortcuts = true;
};

std::unique_ptr<Scheduler> MakeConservativeBackfill(std::string label,
                                                    std::unique_ptr<PlacementPolicy> placement);
std::unique_ptr<Scheduler> MakeConservativeBackfillWith(std::string label,
                                                        std::unique_ptr<PlacementPolicy> placement,
                                                        ConservativeBackfillOptions options);

}  // namespace utilsim
