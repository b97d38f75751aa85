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

#include <memory>
#include <string>

#include "utilsim/engine/scheduler.h"
#include "utilsim/policies/placement_policy.h"

namespace utilsim {

std::unique_ptr<Scheduler> MakeEasyBackfill(std::string label,
                                            std::unique_ptr<PlacementPolicy> placement);

// The estimate EASY uses for job j: walltime_limit if set and > 0, else runtime.
Micros BackfillEstimate(const Job& j);

}  // namespace utilsim
