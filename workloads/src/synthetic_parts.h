// Internal pieces of the synthetic generator (synthetic.cc), split out to keep
// files small and to be testable through the public generator only.
#pragma once

#include <cstdint>
#include <string>

#include "utilsim/engine/job.h"
#include "utilsim/engine/rng.h"

namespace utilsim::synthetic_internal {

// "j" followed by k zero-padded to 7 digits ("j0000001"); more digits past
// 9,999,999. At most 21 characters; up to 15 fit std::string's inline buffer.
std::string JobName(int64_t k);

// A user's walltime request for a job that ran runtime_s seconds (AAIC
// model): the maximum max_s, or 86,400 s (when runtime_s fits), or runtime_s
// times a drawn over-estimate factor rounded up to a round value (capped at
// max_s). Result in [runtime_s, max_s]. Precondition: 1 <= runtime_s <= max_s,
// max_s >= 86400.
int64_t DrawWalltimeSeconds(Rng& rng, int64_t runtime_s, int64_t max_s);

// A two-phase series for a job of `runtime` whose mean busy fraction is
// `util`: a start-up phase at 0 busy of min(600 s, runtime / 5) (shortened so
// the steady level stays <= 1), then a steady level. Returns false (series
// untouched) when no such series exists: util <= 0 or >= 1, or the start-up
// phase would be shorter than 1 s.
bool MakeStartupSeries(Micros runtime, double util, UtilSeries* series);

}  // namespace utilsim::synthetic_internal
