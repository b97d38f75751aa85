// Turning one Prometheus range-selector result into a MeasuredSnapshot
// (measured.h), apart from the transport so it can be tested on recorded
// JSON. `data` is the API's "data" object, resultType "matrix" (a range
// selector, the newest sample of each series is its last) or "vector" (one
// sample per series). Per series, its newest sample:
//  - older than stale_after_ms at now_unix_ms -> counted stale, dropped;
//  - not a number, a DCGM blank, non-finite or out of range -> a warning,
//    dropped (counted neither fresh nor stale);
//  - else fresh: busy = the value / 100 for DCGM_FI_DEV_GPU_UTIL, as is for
//    the PROF ratios (dcgm_series.h). node = hostname|Hostname, GPU = gpu;
//    several fresh series on one (node, GPU) (MIG instances, the same GPU
//    scraped by two jobs) are averaged, sample time their oldest, with a
//    warning; a series without host or gpu label gets a warning and no GPU
//    entry. pod|pod_name + namespace|pod_namespace -> "ns/pod", the mean of
//    the pod's fresh series (a pod without namespace: warning, skipped).
// At most 20 warnings are listed, then "... and N more". Errors (the result
// is not a matrix/vector of series): the JSON path at fault.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/live/measured.h"

namespace utilsim::live::internal {

Result<MeasuredSnapshot> SnapshotFromResult(const nlohmann::json& data, const std::string& metric,
                                            UtilSignal signal, int64_t now_unix_ms,
                                            int64_t stale_after_ms);

}  // namespace utilsim::live::internal
