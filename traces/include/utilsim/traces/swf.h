// Reader for the Standard Workload Format (SWF v2.2) of the Parallel
// Workloads Archive (cs.huji.ac.il/labs/parallel/workload/swf.html;
// domain.md §6): ';' header comments, then one job per line of 18
// whitespace-separated numbers, -1 for unknown.
// docs/formats/swf.md gives the full field mapping, options and warnings.
//
// Bad values are reported exactly as
//   <file>:<line>: field '<name>': expected <what>, got '<text>'
// with the field names of kSwfFields (header keys use the key's name).
// Thread-safety: thread-safe for distinct calls.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/status.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces {

// The 18 SWF fields in file order, as named in error messages.
inline constexpr std::array<std::string_view, 18> kSwfFields = {
    "job_number",
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_processors",
    "average_cpu_time",
    "used_memory",
    "requested_processors",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable_number",
    "queue_number",
    "partition_number",
    "preceding_job_number",
    "think_time",
};

// Warning kinds of ReadSwf.
inline constexpr char kSwfWarnUnknownRuntime[] = "run time -1 (job skipped)";
inline constexpr char kSwfWarnZeroRuntime[] = "run time 0 (job skipped)";
inline constexpr char kSwfWarnZeroRuntimeKept[] = "run time 0 (set to 1 s)";
inline constexpr char kSwfWarnNoProcessors[] = "no processor count (job skipped)";
inline constexpr char kSwfWarnRequestedProcs[] =
    "allocated processors unknown (requested processors used)";
inline constexpr char kSwfWarnUnevenGang[] =
    "processors not a multiple of the node size (rounded up to whole nodes)";
inline constexpr char kSwfWarnTooLarge[] = "job needs more nodes than the cluster has";

// GPU model name of SwfCluster in kGpu mode.
inline constexpr char kSwfGpuModel[] = "SWF-PROC";

// What one SWF processor stands for.
enum class SwfUnit : uint8_t {
  // One GPU on a node of SwfOptions::gpus_per_node GPUs (no CPU or memory
  // demand), so HPC logs can drive the GPU policies.
  kGpu,
  // One CPU core on a node of SwfOptions::cores_per_node cores; no GPUs.
  kCpu,
};

struct SwfOptions {
  SwfUnit unit = SwfUnit::kGpu;
  // kGpu: GPUs per node, 1..64. A job of p > gpus_per_node processors is a
  // gang of ceil(p / gpus_per_node) tasks of gpus_per_node GPUs each.
  int32_t gpus_per_node = 8;
  // kCpu: cores per node, 0..1000000; 0 = MaxProcs / MaxNodes from the
  // header when both are given and divide, else 1. A job of p > cores per
  // node is a gang of ceil(p / cores) tasks of `cores` cores each.
  int32_t cores_per_node = 0;
  // Run time 0 means "< 0.5 s" in SWF. false: such jobs are skipped (counted
  // kSwfWarnZeroRuntime); true: kept with a run time of 1 s (counted
  // kSwfWarnZeroRuntimeKept).
  bool keep_zero_runtime = false;
};

// One header comment: "; Key: value". Lines indented by more than three
// blanks after the ';' continue the entry above (joined with one space); a
// comment that is not "Key: ..." has an empty key.
struct SwfHeaderEntry {
  int64_t line = 0;
  std::string key;
  std::string value;
};

// The comments before the first job line.
struct SwfHeader {
  std::vector<SwfHeaderEntry> entries;  // in file order
  // From MaxNodes, MaxProcs (1..10000000) and UnixStartTime (>= 0); their
  // value must start with an integer (text after it is ignored).
  std::optional<int64_t> max_nodes, max_procs, unix_start_time;
  // Values of Version, Computer, TimeZoneString ("" when absent).
  std::string version, computer, time_zone_string;
};

// Reads the header comments of an SWF file (plain or gzip), stopping at the
// first job line. Errors: unreadable file, gzip errors, a bad MaxNodes /
// MaxProcs / UnixStartTime ("<file>:<line>: field 'MaxProcs': expected an
// integer 1..10000000, got '<value>'").
Result<SwfHeader> ReadSwfHeader(const std::string& path);

// Processors per node under `opt`: gpus_per_node (kGpu); for kCpu
// cores_per_node, or when that is 0 MaxProcs / MaxNodes if both are given
// and divide, else 1.
int64_t SwfNodeSize(const SwfHeader& header, const SwfOptions& opt);

// The cluster a header describes under `opt`: ceil(P / SwfNodeSize) nodes
// (group "swf") of SwfNodeSize GPUs of model "SWF-PROC" (memory 0 =
// unknown) or, for kCpu, SwfNodeSize cores and no GPUs; P = MaxProcs, else
// MaxNodes (one processor per node). Node CPU (kGpu: 1 core per GPU) and
// memory (1 GiB per processor) are placeholders: SWF jobs get no memory
// demand. Named after the Computer header ("swf" when absent). nullopt when
// the header gives neither MaxProcs nor MaxNodes.
std::optional<ClusterSpec> SwfCluster(const SwfHeader& header, const SwfOptions& opt);

// Reads one SWF file (plain or gzip). Per job line (docs/formats/swf.md):
//  - name = job_number (unique in the file, else an error);
//  - submit = submit_time (seconds, floats allowed); wait_time >= 0 gives
//    recorded_start = submit + wait, -1 none;
//  - runtime = run_time; -1 or 0 skips the job with a counted warning
//    (0 kept as 1 s with keep_zero_runtime);
//  - processors = allocated_processors, or requested_processors when that
//    is -1 or 0 (counted); neither: skipped, counted; shaped per opt.unit;
//  - walltime_limit = requested_time when > 0;
//  - tenant "u<user_id>" ("default" for -1), priority = queue_number (-1 ->
//    0); status, queues and header lines are kept in notes.
// Header comments ("; Key: value", continuation lines indented) are kept in
// notes; MaxProcs / MaxNodes give TraceData::cluster (absent when neither is
// given). Errors: options out of range, unreadable file, a line without 18
// fields, a non-numeric field, a negative value other than -1 where the
// field is used, a repeated job_number, a header MaxNodes / MaxProcs /
// UnixStartTime that does not start with an integer. Fills rows_read and
// bytes_read; the workload is Finalize()d (sorted by submit).
Result<TraceData> ReadSwf(const std::string& path, const SwfOptions& opt = {});

// True when `first_line` (the first non-blank line of a file) starts with
// ';' or holds exactly 18 whitespace-separated numbers.
bool LooksLikeSwf(std::string_view first_line);

}  // namespace utilsim::traces
