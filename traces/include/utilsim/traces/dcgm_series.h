// The dcgm-exporter conventions of the telemetry readers (telemetry.h), one
// series and one sample at a time, for code that reads the same series
// elsewhere (tools/live reads them from a live Prometheus and serves them
// again in `utilsim exporter`). Same rules as the readers, so a series means
// the same thing recorded or live:
//  - labels: hostname or Hostname -> host; gpu -> gpu (an integer >= 0, else
//    an error); GPU_I_ID -> gpu_instance; UUID -> uuid; pod | pod_name |
//    hpc_job -> pod; namespace | pod_namespace -> namespace_name; container
//    | container_name -> container. Empty values count as absent.
//  - values: DCGM_FI_DEV_GPU_UTIL is a percent (divided by 100), the PROF
//    ratios are taken as they are; a DCGM blank (>= DCGM_INT32_BLANK, which
//    covers the INT64/FP64 blanks and 2^64-1), a non-finite value and a value
//    outside 0..100 % / 0..1 are not measurements and name their warning kind
//    (kWarnBlank, kWarnNonFinite, kWarnRange of telemetry.h).
// Computed in double precision (the readers store float). Thread-safe, no
// throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"

namespace utilsim::traces {

struct DcgmSeriesLabels {
  std::string pod, namespace_name, container, host;
  int32_t gpu = -1;  // -1: no gpu label
  std::string gpu_instance, uuid;
};

// `labels` as (name, value) pairs; other names are ignored. Error: a bad gpu
// label, "field 'gpu': expected a GPU index (integer >= 0), got 'x'".
Result<DcgmSeriesLabels> DcgmLabelsOf(
    const std::vector<std::pair<std::string, std::string>>& labels);

// The busy signal of a utilization metric: DCGM_FI_DEV_GPU_UTIL -> kGpuUtil,
// DCGM_FI_PROF_SM_ACTIVE -> kSmActive, DCGM_FI_PROF_GR_ENGINE_ACTIVE ->
// kGrEngineActive; nullopt for any other name (DCGM_FI_DEV_FB_USED too).
std::optional<UtilSignal> DcgmUtilSignal(std::string_view metric);
// The inverse: the metric name of a signal, "" for kUnknown and others.
std::string DcgmUtilMetric(UtilSignal signal);

struct DcgmBusy {
  double busy = 0;                // 0..1, when warning is null
  const char* warning = nullptr;  // kWarnBlank, kWarnNonFinite or kWarnRange
};
// One sample of `signal`'s metric as written (a decimal, NaN, +Inf, -Inf).
// nullopt: not a number at all (a syntax error for the caller to report).
std::optional<DcgmBusy> DcgmBusyFromText(UtilSignal signal, std::string_view text);

}  // namespace utilsim::traces
