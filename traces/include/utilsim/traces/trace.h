// What every trace reader returns: the jobs in the canonical model, the
// cluster when the trace describes one, and counted warnings for rows a
// reader could sensibly skip or repair. `utilsim inspect` and the run's
// metadata both show the warnings.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"

namespace utilsim::traces {

// Counted, non-fatal findings of a reader, by kind (a short stable phrase,
// e.g. "pod never scheduled"); the first few occurrences keep their
// "<file>:<line>: <detail>" text.
class Warnings {
 public:
  static constexpr size_t kExamplesPerKind = 5;
  void Add(const std::string& kind, const std::string& where_and_detail);
  int64_t count(const std::string& kind) const;
  int64_t total() const;
  const std::map<std::string, int64_t>& counts() const { return counts_; }
  const std::map<std::string, std::vector<std::string>>& examples() const { return examples_; }
  // One line per kind: "<count> x <kind> (first: <example>)".
  std::vector<std::string> Lines() const;

 private:
  std::map<std::string, int64_t> counts_;
  std::map<std::string, std::vector<std::string>> examples_;
};

struct TraceData {
  Workload workload;
  std::optional<ClusterSpec> cluster;  // set when the trace lists its machines
  Warnings warnings;
  int64_t rows_read = 0;   // data rows read from the job file(s)
  int64_t bytes_read = 0;  // bytes of input consumed (uncompressed)
  // Free-form facts the reader wants `inspect` to show ("time origin: UNIX
  // 1499996961 = 2017-07-14 01:49:21 UTC", "cluster: 50 nodes x 8 GPUs
  // (documented, not in the file)").
  std::vector<std::string> notes;
};

// A measured utilization time series of one entity (a pod, a job, or one GPU
// of a host), in absolute trace time.
struct UtilTrack {
  std::string job;           // pod / job id when the source labels it, else ""
  std::string host;          // host name when known, else ""
  int32_t gpu = -1;          // GPU index on the host, -1 unknown
  std::string gpu_instance;  // MIG instance id when the series is per MIG device
  std::string namespace_name, container;
  UtilSignal signal = UtilSignal::kUnknown;
  std::vector<Micros> time;        // strictly increasing
  std::vector<float> busy;         // 0..1, same length as time
  std::vector<int64_t> mem_bytes;  // GPU memory used, same length, or empty
  // Board power in watts, same length as time, or empty when the source gave
  // no power for the track; -1 for a sample without a power value.
  std::vector<float> power_w;
  std::string model;  // GPU model name as the source writes it, "" when absent
};

struct TelemetryData {
  std::vector<UtilTrack> tracks;
  Warnings warnings;
  int64_t rows_read = 0;
  int64_t bytes_read = 0;
  std::vector<std::string> notes;
};

}  // namespace utilsim::traces
