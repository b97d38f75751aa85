// Measured GPU utilization as the live modes consume it: a snapshot of the
// latest busy fraction per GPU of each node and per pod, with staleness
// already applied (docs/live-k8s.md, "Measured utilization"). Produced by
// MeasuredUtil (prometheus.h) from dcgm-exporter series in Prometheus;
// consumed by the extender's state (live_state.h). A plain value type.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace utilsim::live {

struct GpuReading {
  double busy = 0;              // 0..1 (GPU_UTIL / 100, or a PROF ratio)
  int64_t sample_unix_ms = 0;   // the sample's own time
};

struct MeasuredSnapshot {
  int64_t taken_unix_ms = 0;  // when the snapshot was taken (the query's time)
  std::string metric;         // the series read, e.g. "DCGM_FI_DEV_GPU_UTIL"
  // Fresh readings only: a sample older than the staleness limit (2 x the
  // scrape interval) is dropped and counted in `stale`, so "absent" means
  // unknown. node (the exporter's hostname/Hostname label) -> GPU index
  // (the gpu label) -> reading.
  std::map<std::string, std::map<int32_t, GpuReading>> gpus;
  // "namespace/pod" (the exporter's pod/namespace labels, or the old
  // pod_name/pod_namespace) -> mean busy over the pod's fresh GPU series.
  std::map<std::string, double> pods;
  size_t fresh = 0, stale = 0;  // series counted each way
  std::vector<std::string> warnings;  // e.g. a blank sentinel value, a series without host
};

}  // namespace utilsim::live
