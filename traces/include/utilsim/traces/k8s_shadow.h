// The live extender's shadow log as a trace (`--format k8s-shadow`;
// docs/live-k8s.md "Shadow mode", the line format in
// tools/live/include/utilsim/live/shadow_log.h): every pod the scheduler
// bound and that ended within the log becomes a job, so the cluster's real
// pod stream replays offline under any policy.
//
// Per pod (by UID, else namespace/name):
//  - submit = its first filter/prioritize request (else its binding);
//    recorded_start = the binding's time; runtime = the end ("finished")
//    minus the binding; recorded_hosts = the bound node;
//  - demand = the binding's gpus, gpu_milli, cpu_milli, mem_bytes,
//    gpu_mem_bytes; util = the pod's measured utilization from its last
//    request (pod_util), when known (else unknown: 1.0, util_known false).
// Time origin: the first line's time (t, ms since the UNIX epoch), in notes.
// The cluster: the last "cluster" line (one node group per node), if any.
// Pods bound but not finished by the end of the log are left out (warning
// kStillRunning); a pod finished without a binding line likewise
// (kNoBinding). A last line cut short (a killed extender) is skipped with a
// warning; any other line that is not a JSON object with "v": 1 and an
// "event" is an error "<file>:<line>: ...". Never throws.
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces {

inline constexpr char kWarnStillRunning[] = "pod still running at the end of the log";
inline constexpr char kWarnNoBinding[] = "pod ended without a binding in the log";
inline constexpr char kWarnTruncatedLine[] = "last line cut short";

// True when `first_line` looks like a shadow log line ({"v":1,...,"event":...}).
bool LooksLikeK8sShadow(const std::string& first_line);

Result<TraceData> ReadK8sShadow(const std::string& path);

}  // namespace utilsim::traces
