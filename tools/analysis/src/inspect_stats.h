// Distributions and demand-vs-capacity figures for `utilsim inspect`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "utilsim/analysis/inspect.h"
#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"

namespace utilsim {

// Human duration: "42 s", "3.5 min", "2.1 h", "4.0 d".
std::string HumanSeconds(double s);
// A time since the trace's origin as days and clock: "3d 04:05:06".
std::string DayClock(double s);
// The (time, +/- milli-GPU) changes of the recorded GPU demand: each job
// with a recorded start adds its GPUs (tasks x share) there and frees them
// at start + runtime. Sorted by time, frees before takes at one instant.
std::vector<std::pair<Micros, int64_t>> RecordedChanges(const Workload& w);
// Counts, sizes, run times, submit span, utilization, recorded waits.
std::string JobStatsText(const Workload& w);
// Offered load and, where starts were recorded, recorded GPU demand over time
// against the capacity.
std::string DemandText(const Workload& w, int64_t capacity_gpus);
// "recorded demand above capacity" findings (needs recorded starts).
std::vector<Finding> DemandFindings(const Workload& w, const std::optional<ClusterSpec>& cluster);

// Recorded busy GPUs (sum of GPU shares of jobs between recorded start and
// start + runtime) at time t; exposed for tests.
double RecordedBusyGpus(const Workload& w, Micros t);

}  // namespace utilsim
