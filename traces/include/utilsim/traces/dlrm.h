// Reader for Alibaba cluster-trace-gpu-v2025 (GPU-disaggregated DLRM
// serving; Yang et al., NSDI'25): disaggregated_DLRM_trace.csv, one row per
// inference instance of a service (app_name), CPU-node (CN) or
// heterogeneous-GPU-node (HN) role, with requests and limits of CPU, GPU,
// RDMA bandwidth, memory and disk, a per-node spread limit and lifecycle
// times. docs/formats/dlrm.md gives the full mapping, units and warnings.
//
// Columns are found by header name (any order; others ignored). Bad values
// read exactly "<file>:<line>: field '<col>': expected <what>, got '<text>'".
// Thread-safety: thread-safe for distinct calls.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces {

// Warning kinds of ReadDlrm.
inline constexpr char kDlrmWarnZeroRuntime[] = "instance with zero lifetime (set to 1 s)";
inline constexpr char kDlrmWarnNeverScheduled[] = "instance never scheduled skipped";
inline constexpr char kDlrmWarnLimitBelowRequest[] = "limit below request";

struct DlrmOptions {
  // Demand from the *_limit columns instead of *_request.
  bool use_limits = false;
  // End of the trace in seconds, for instances still alive (no
  // deletion_time). nullopt: the latest time in the file.
  std::optional<double> end_s;
};

// What an instance needs that the Job model has no field for (yet).
struct DlrmInstance {
  std::string name;           // instance_sn (= Job::name)
  std::string role;           // "CN" or "HN"
  double rdma_pct = 0;        // rdma_request: % of one RDMA NIC's bandwidth
  int64_t disk_bytes = 0;     // disk_request, GiB -> bytes
  int32_t max_per_node = -1;  // max_instance_per_node; -1 = unlimited
};

// Reads the instances as jobs:
//  - name = instance_sn; tenant = app_name; tasks 1;
//  - gpus = gpu_request (0 for CN; a value in (0, 1) becomes gpu_milli);
//    cpu_milli = cpu_request x 1000 (vCPUs); mem_bytes = memory_request GiB;
//  - submit = creation_time, recorded_start = scheduled_time, runtime =
//    deletion_time - scheduled_time (s). Empty (or NaN) creation and
//    scheduled time: the instance existed before the trace -> submit and
//    start 0. Empty deletion_time: alive at the end -> runtime up to
//    opt.end_s (default: the latest time in the file). A zero lifetime
//    becomes 1 s (kDlrmWarnZeroRuntime); a created but never scheduled
//    instance is skipped (kDlrmWarnNeverScheduled);
//  - rdma_request, disk_request and max_instance_per_node go to `extra`
//    (when given; same order as the workload's jobs) and to the notes: the
//    spread limit and RDMA/disk capacity are not modelled by the engine.
// util unknown. Errors: unreadable file, missing column, field count, empty
// or repeated instance_sn, role not CN/HN, a non-numeric or negative value,
// rdma outside 0..100, max_instance_per_node not -1 or an integer >= 1,
// scheduled_time < creation_time, deletion_time < scheduled_time,
// opt.end_s before a recorded time.
Result<TraceData> ReadDlrm(const std::string& path, const DlrmOptions& opt = {},
                           std::vector<DlrmInstance>* extra = nullptr);

// True when the header holds instance_sn, role, app_name, cpu_request,
// gpu_request, rdma_request, memory_request and max_instance_per_node.
bool LooksLikeDlrm(const std::vector<std::string>& header);

}  // namespace utilsim::traces
