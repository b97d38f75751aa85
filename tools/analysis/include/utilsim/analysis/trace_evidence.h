// What a trace's recorded schedule says about its scheduler and cluster,
// beyond the jobs themselves (docs/validation.md, "Evidence in the record"):
// the scheduler-cycle latency under every recorded wait, stretches with no
// recorded start while jobs waited (possible outages), and the most GPUs
// in use at once per window (a lower bound on the capacity in service).
//
// Only jobs with a recorded start count; a recorded wait is
// recorded_start - submit. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_events.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/time.h"

namespace utilsim {

// The latency floor: twice the 10th percentile of the recorded waits
// (nearest rank). The 10th percentile is the least cycle latency every job
// pays (4 s on AIST AAIC); waits up to twice it are taken as latency and
// jitter alone (AAIC: 63-88 % of the jobs, whose recorded waits are 4-8 s).
// 0 when no job has a recorded start.
double LatencyFloorSeconds(const Workload& w);

struct StartGap {
  Micros from{0}, to{0};  // no recorded start strictly between them
  int64_t waiting = 0;    // jobs submitted by `from` that started at or after `to`
  // GPUs of the jobs recorded running through the whole gap (started by
  // `from`, recorded start + runtime at or after `to`; shares summed, then
  // rounded up): far below the
  // cluster's capacity while jobs wait, the gap is an outage or a hold.
  int64_t running_gpus = 0;
};
// The gaps between consecutive recorded starts of at least `min_gap` through
// which at least one job waited (submitted at or before the gap's start,
// started at or after its end), longest first (ties: earlier first). A gap
// with jobs waiting through it is evidence of an outage or of capacity held
// back; a quiet period with nothing queued is not listed.
std::vector<StartGap> FindStartGaps(const Workload& w, Micros min_gap);
// The most GPUs the record shows in use at once (jobs from recorded start
// for their runtime, tasks x GPU share each, rounded up to whole GPUs) in
// each window of length `window`,
// from the window holding the first recorded start to the one holding the
// last end; a lower bound on the capacity in service then. Empty when no job
// has a recorded start.
std::vector<int64_t> PeakGpusInUse(const Workload& w, Micros window);

// The window the first entry of PeakGpusInUse(w, window) covers starts
// here (windows are aligned to multiples of `window` on the trace's clock);
// 0 when no job has a recorded start.
Micros PeakWindowStart(const Workload& w, Micros window);

// The record's evidence as the cluster events of a replay (`validate
// --infer`, docs/validation.md, "Replaying the evidence"), for a cluster of
// one node group `group` of `base` nodes of `gpus_per_node` GPUs:
//  - capacity: in each window of `peaks` (PeakGpusInUse, from `start`), the
//    group has max(base, ceil(peak / gpus_per_node)) nodes: the nodes above
//    `base` are absent (DownCause::kAbsent) outside the windows that need
//    them, and leave with running: wait (their jobs finish first);
//  - outages: every node drained through each gap of `gaps` (FindStartGaps),
//    from 1 s after its `from` (the start recorded at `from` still happens) to
//    its `to`; the jobs running through it go on.
// *total_nodes: the group's size the events need (base, or the largest
// window's nodes). Events carry where = "inferred: capacity week k" or
// "inferred: outage from <day clock>".
std::vector<ClusterEvent> InferredEvents(const std::vector<int64_t>& peaks, Micros window,
                                         Micros start, const std::vector<StartGap>& gaps,
                                         const std::string& group, int64_t base,
                                         int32_t gpus_per_node, int64_t* total_nodes);

// The first `max` gaps, a line each: "  10.8 h from 12d 04:10:00 to
// 12d 15:00:00, 491 jobs waiting, 20 GPUs running through it" (times since
// the trace's origin).
std::string FormatStartGaps(const std::vector<StartGap>& gaps, size_t max);

}  // namespace utilsim
