// Distributions and demand-vs-capacity figures for `utilsim inspect`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "utilsim/analysis/inspect.h"
#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"

namespace utilsim {

// Human duration: "42 s", "3.5 min", "2.1 h", "4.0 d".
std::string HumanSeconds(double s);
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
