// Reader for the AIST AI Cloud (AAIC) GPU workload (Takizawa, Ogawa, Takano,
// "AAIC Workload", github.com/aistairc/aaic-workload, 2019): quarter files
// aaicwl-YYYYQn.csv[.gz] with the ", "-separated header
//   id, user, group, queue, nodes, gpus, walltime_req, termcode,
//   time_submit, time_start, time_end, waittime, walltime
// (all integers; times in UNIX seconds, durations in seconds).
// docs/formats/aaic.md gives the full field mapping, options and warnings.
//
// Columns are found by header name (any order; other columns are ignored).
// Bad values are reported exactly as
//   <file>:<line>: field '<col>': expected <what>, got '<text>'
// Thread-safety: thread-safe for distinct calls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces {

// Warning kinds of ReadAaic.
inline constexpr char kAaicWarnWalltimeDiffers[] =
    "walltime column differs from time_end - time_start (time_end - time_start used)";
inline constexpr char kAaicWarnWaittimeDiffers[] =
    "waittime column differs from time_start - time_submit (times used)";
inline constexpr char kAaicWarnZeroRuntime[] = "zero run time (set to 1 s)";
inline constexpr char kAaicWarnMultiNodeGpus[] = "multi-node job with gpus < 8 (set to 8)";
inline constexpr char kAaicWarnNoWalltimeReq[] = "walltime_req 0 (no limit set)";
inline constexpr char kAaicWarnTooLarge[] = "job needs more nodes than the cluster has";
inline constexpr char kAaicWarnUnknownTermcode[] = "termcode outside 0..4";

// The node of the AAIC cluster (the AAIC README): 8 GPUs, 20 CPU cores,
// 256 GiB memory. The GPU model is not stated anywhere in the published
// repository, so it is called "AAIC-GPU" with memory 0 (unknown).
inline constexpr int32_t kAaicGpusPerNode = 8;
inline constexpr int64_t kAaicCoresPerNode = 20;
inline constexpr int64_t kAaicNodeMemBytes = 256 * kBytesPerGiB;
inline constexpr char kAaicGpuModel[] = "AAIC-GPU";
// Installed GPU nodes (the scheduler managed 32 to 40 of them over time).
inline constexpr int32_t kAaicInstalledNodes = 50;
// Default per-GPU share of a node given to every job, since the trace has
// no CPU or memory demand: 20 cores / 8 and 256 GiB / 8.
inline constexpr int64_t kAaicCpuMilliPerGpu = kAaicCoresPerNode * kMilliPerUnit / kAaicGpusPerNode;
inline constexpr int64_t kAaicMemBytesPerGpu = kAaicNodeMemBytes / kAaicGpusPerNode;

struct AaicOptions {
  // Nodes of TraceData::cluster, 1..1000000. 50 are installed; sweep 32..40
  // to match what the recorded scheduler actually managed.
  int32_t nodes = kAaicInstalledNodes;
};

// `nodes` identical nodes (group "aaic", named aaic-<k>) of kAaicGpusPerNode
// GPUs of model kAaicGpuModel (memory 0 = unknown, speed 1), 20 cores and
// 256 GiB each; the spec is named "aist-aaic". `nodes` must be >= 1.
ClusterSpec AaicCluster(int32_t nodes = kAaicInstalledNodes);

// Reads one or several quarter files (plain or gzip) as one workload, in the
// given file order. Per row (docs/formats/aaic.md):
//  - name "<stem>:<id>", <stem> the file name without .csv / .csv.gz;
//  - one time origin for all files: the earliest time_submit (a note gives
//    it as UNIX seconds and UTC date); submit = time_submit - origin,
//    recorded_start = time_start - origin;
//  - runtime = time_end - time_start (0 -> 1 s, counted); a different
//    walltime column is a counted warning;
//  - tasks = nodes, task.gpus = gpus (multi-node jobs with gpus < 8 are set
//    to 8, counted), cpu_milli = gpus x 2500, mem = gpus x 32 GiB;
//  - walltime_limit = walltime_req (0: none, counted);
//  - tenant "<stem>:g<group>", priority = queue (0..3; see the doc);
//  - util unknown (1.0, util_known false), signal unknown.
// Sets TraceData::cluster = AaicCluster(opt.nodes) with a note that it is
// documented, not read; notes also count termcodes, queues, nodes and gpus.
// Errors: empty path list, opt.nodes outside 1..1000000, two files with the
// same stem, unreadable file, missing column, wrong field count, a
// non-integer field, negative times, ids, users, groups or queues, nodes
// < 1, gpus outside 1..8, a repeated id in a file, time_start <
// time_submit, time_end < time_start. Fills rows_read and bytes_read; the
// workload is Finalize()d (sorted by submit, file order among ties).
Result<TraceData> ReadAaic(const std::vector<std::string>& paths, const AaicOptions& opt = {});

// True when the header (names trimmed) holds all 13 AAIC columns.
bool LooksLikeAaic(const std::vector<std::string>& header);

}  // namespace utilsim::traces
