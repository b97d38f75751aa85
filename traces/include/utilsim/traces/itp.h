// Reader for the Microsoft ITP job traces published with ElasticFlow
// (ASPLOS'23; github.com/microsoft/elasticflow-traces, raw-traces/
// clusterNN.csv): one CSV per cluster with columns job_id, submission_time
// (s since the start of collection), duration (s) and num_gpu.
// docs/formats/itp.md gives the full field mapping, options and warnings.
//
// Columns are found by header name (any order; other columns, such as the
// synthetic num_iteration/model_name/deadline/batch_size of the ElasticFlow
// variant, are ignored). Bad values are reported exactly as
//   <file>:<line>: field '<col>': expected <what>, got '<text>'
// Thread-safety: thread-safe for distinct calls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces {

// Warning kinds of ReadItp.
inline constexpr char kItpWarnZeroDuration[] = "job with zero duration skipped";
inline constexpr char kItpWarnNoGpus[] = "job without GPUs skipped";
inline constexpr char kItpWarnUnevenGang[] = "GPU count not divisible into whole-node tasks";

struct ItpOptions {
  // GPUs per node of the (unpublished) ITP clusters, 1..64. A job with more
  // GPUs than this becomes a gang of ceil(num_gpu / gpus_per_node) tasks.
  // Default 8: ITP jobs are 1..64 GPUs in powers of two, and the ITP/Philly
  // servers are 8-GPU machines (Jeon et al., ATC'19; ElasticFlow §6).
  int32_t gpus_per_node = 8;
};

// Reads one or more clusterNN.csv files (plain or gzip) into one workload.
// Per row:
//  - name "<cluster>:<job_id>", <cluster> = the file name without extension
//    (e.g. "cluster04"); unique across all files (a repeat is an error);
//  - submit = submission_time, runtime = duration (seconds, exact to 1 us);
//  - tenant = <cluster>, or "<cluster>/<vc>" when the file has a `vc` column;
//  - num_gpu <= gpus_per_node: one task of num_gpu GPUs; more: tasks =
//    ceil(num_gpu / gpus_per_node), each num_gpu / tasks GPUs (rounded up
//    with a kItpWarnUnevenGang warning when it does not divide);
//  - no CPU/memory demand, util unknown (1.0, util_known false), signal
//    unknown; no cluster (the ITP machine list is not published).
// Skipped with counted warnings: duration 0, num_gpu 0.
// Errors: empty path list, gpus_per_node outside 1..64, unreadable file,
// missing column, wrong field count, empty or repeated job_id, a
// non-numeric or negative submission_time / duration / num_gpu.
// Fills rows_read, bytes_read, notes (jobs and GPU-hours per cluster, gang
// counts, time span); the workload is Finalize()d (sorted by submit).
Result<TraceData> ReadItp(const std::vector<std::string>& paths, const ItpOptions& opt = {});

// True when the header holds job_id, submission_time, duration and num_gpu.
bool LooksLikeItp(const std::vector<std::string>& header);

}  // namespace utilsim::traces
