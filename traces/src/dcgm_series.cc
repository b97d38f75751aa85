// The readers' dcgm-exporter conventions one series at a time
// (dcgm_series.h), on the shared parts of telemetry_common.h.
#include "utilsim/traces/dcgm_series.h"

#include <algorithm>

#include "telemetry_common.h"

namespace utilsim::traces {

Result<DcgmSeriesLabels> DcgmLabelsOf(
    const std::vector<std::pair<std::string, std::string>>& labels) {
  auto key = internal::KeyFromLabels(labels, "");
  if (!key.ok()) return key.status();
  const internal::EntityKey& k = key.value();
  return DcgmSeriesLabels{k.job, k.namespace_name, k.container, k.host,
                          k.gpu, k.gpu_instance,   k.uuid};
}

std::optional<UtilSignal> DcgmUtilSignal(std::string_view metric) {
  const std::optional<internal::MetricInfo> info = internal::LookupDcgmMetric(metric);
  if (!info || !info->util()) return std::nullopt;
  return info->signal;
}

std::string DcgmUtilMetric(UtilSignal signal) {
  switch (signal) {
    case UtilSignal::kGpuUtil:
      return "DCGM_FI_DEV_GPU_UTIL";
    case UtilSignal::kSmActive:
      return "DCGM_FI_PROF_SM_ACTIVE";
    case UtilSignal::kGrEngineActive:
      return "DCGM_FI_PROF_GR_ENGINE_ACTIVE";
    default:
      return "";
  }
}

std::optional<DcgmBusy> DcgmBusyFromText(UtilSignal signal, std::string_view text) {
  const std::optional<double> v = internal::ParseSample(text);
  if (!v) return std::nullopt;
  const internal::ValueKind kind =
      signal == UtilSignal::kGpuUtil ? internal::ValueKind::kPercent : internal::ValueKind::kRatio;
  DcgmBusy out;
  out.warning = internal::BusyWarning(*v, kind);
  if (!out.warning) {
    const double max = kind == internal::ValueKind::kPercent ? 100.0 : 1.0;
    out.busy = std::min(*v, max) / max;
  }
  return out;
}

}  // namespace utilsim::traces
