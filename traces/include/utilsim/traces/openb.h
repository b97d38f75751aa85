// Reader for the Alibaba cluster-trace-gpu-v2023 "openb" files (Weng et al.,
// "Beware of Fragmentation", USENIX ATC'23): the node lists
// (openb_node_list_*.csv) and every pod list variant (openb_pod_list_*.csv:
// default, cpuNNN, gpushareNN, gpuspecNN with 11 columns, multigpuNN with 5).
// docs/formats/openb.md gives the full field mapping, units and warnings.
//
// Both readers stream the file through CsvReader (plain or gzip), find
// columns by header name (any order; unknown columns are ignored) and report
// bad values exactly as
//   <file>:<line>: field '<col>': expected <what>, got '<text>'
// and a missing column as "<file>:<line>: missing required column '<col>'".
//
// Thread-safety: all functions are thread-safe for distinct calls.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces {

// What to do with pods that were never scheduled (empty scheduled_time,
// pod_phase "Pending").
enum class OpenbPending {
  // Keep them as demand that was there: submit = creation_time, runtime =
  // deletion_time - creation_time, no recorded_start.
  kRunFromCreation,
  // Drop them; each one is a counted warning "pending pod skipped".
  kSkip,
};

struct OpenbOptions {
  OpenbPending pending = OpenbPending::kRunFromCreation;
  // Runtime given to every pod of a file without times (multigpuNN), in
  // seconds (> 0). Those pods all submit at 0, in file order.
  int64_t assumed_runtime_s = 3600;
};

// Reads a node list (columns sn, cpu_milli, memory_mib, gpu, model) into a
// ClusterSpec named after the file's stem. Nodes of identical shape (model,
// gpu, cpu_milli, memory_mib) form one NodeGroup; groups and models are in
// order of first appearance. Group names describe the shape:
// "<model>x<gpus>-<cores>c-<GiB>g" (e.g. "G2x8-96c-384g") for GPU nodes,
// "cpu-<cores>c-<GiB>g" for CPU-only nodes (empty model, gpu 0); cores and
// GiB fall back to "<milli>mc" / "<MiB>m" when not whole. The node ids (sn)
// are checked for uniqueness but not kept: node k of a group is named
// "<group>-<k>" by the engine. GPU models get OpenbGpuMemoryBytes and speed
// 1.0. Errors: unreadable file, missing column, bad field counts, empty or
// duplicate sn, cpu_milli not an integer > 0, memory_mib not a number > 0,
// gpu not an integer 0..64, a model without GPUs or GPUs without a model, a
// model name holding '|', no nodes at all.
Result<ClusterSpec> ReadOpenbNodes(const std::string& node_csv);

// Reads a pod list into a Workload (source = path, Finalize()d: sorted by
// submit, file order among equals). Required columns: name, cpu_milli,
// memory_mib, num_gpu, gpu_milli. creation_time, deletion_time and
// scheduled_time come together or not at all; gpu_spec, qos and pod_phase
// are optional. Mapping (docs/formats/openb.md):
//  - submit = creation_time; recorded_start = scheduled_time (empty: never
//    scheduled, see OpenbPending); runtime = deletion_time - scheduled_time,
//    a non-positive runtime is clamped to 1 s with a counted warning.
//  - tasks 1; gpus = num_gpu; gpu_milli used for num_gpu == 1 (1..1000),
//    set to 1000 for num_gpu > 1 (a value != 1000 is a counted warning) and
//    ignored for num_gpu == 0 (CPU-only); values above 1000 are errors.
//  - cpu_milli; mem_bytes = memory_mib * 2^20; gpu_models = gpu_spec split
//    on '|' (duplicates dropped with a warning; ignored for CPU-only pods).
//  - tenant = qos (LS, BE, Burstable, Guaranteed), priority by
//    OpenbQosPriority; without a qos column every pod is tenant "default",
//    priority 0.
//  - Without time columns: submit 0, runtime opt.assumed_runtime_s, and a
//    note saying so.
// Fills rows_read, bytes_read (uncompressed), warnings and notes (pod counts,
// phase and QoS counts, time span, recorded scheduling delays).
// Errors: unreadable file, missing column, bad field counts, empty or
// duplicate name, a negative or non-numeric number, gpu_milli > 1000 (or 0
// with num_gpu 1), scheduled_time < creation_time, deletion_time missing,
// unknown qos, empty names in gpu_spec, assumed_runtime_s <= 0.
Result<TraceData> ReadOpenbPods(const std::string& pod_csv, const OpenbOptions& opt = {});

// True when the header names every column ReadOpenbPods requires (name,
// cpu_milli, memory_mib, num_gpu, gpu_milli), respectively every column of
// a node list (sn, cpu_milli, memory_mib, gpu, model). Names compare exactly
// after trimming blanks.
bool LooksLikeOpenbPods(const std::vector<std::string>& header);
bool LooksLikeOpenbNodes(const std::vector<std::string>& header);

// Priority of a qos class: LS 3, Guaranteed 2, Burstable 1, BE 0; -1 for any
// other text. Larger is more important.
int32_t OpenbQosPriority(std::string_view qos);

// GPU memory per GPU from public specs: T4, P100, V100M16 16 GiB, V100M32
// 32 GiB, A10 24 GiB; 0 (unknown) for the undisclosed G1/G2/G3 and any other
// name.
int64_t OpenbGpuMemoryBytes(std::string_view model);

// Recorded scheduling delays (recorded_start - submit) of the jobs that have
// a recorded start, ascending. For a workload read by ReadOpenbPods this is
// scheduled_time - creation_time of every scheduled pod.
std::vector<Micros> OpenbScheduleDelays(const Workload& workload);

// Summary of a delay list in seconds; all zero for an empty list. The
// median of an even count is the mean of the two middle values.
struct OpenbDelayStats {
  int64_t count = 0;
  double mean_s = 0;
  double median_s = 0;
  double max_s = 0;
};
OpenbDelayStats SummarizeDelays(const std::vector<Micros>& sorted_delays);

}  // namespace utilsim::traces
