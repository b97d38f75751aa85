// Readers for Alibaba cluster-trace-gpu-v2020 (PAI; Weng et al., "MLaaS in
// the Wild", NSDI'22). The tables are header-less CSVs whose columns are
// given by the *.header files (kPai*Columns below, identical to them):
// pai_job_table, pai_task_table, pai_instance_table, pai_sensor_table,
// pai_group_tag_table, pai_machine_spec (pai_machine_metric is recognised
// but not read). A first row equal to the column names is skipped, so files
// with the header prepended read the same. Plain or gzip.
// docs/formats/pai.md gives the full mapping, units, options and warnings.
//
// Bad values read exactly "<file>:<line>: field '<col>': expected <what>,
// got '<text>'", with <col> from the column lists; a row with another number
// of fields is "<file>:<line>: expected N fields, got M".
// Thread-safety: thread-safe for distinct calls.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/status.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces {

enum class PaiTable { kJob, kTask, kInstance, kSensor, kGroupTag, kMachineSpec, kMachineMetric };

// Column names of a table, in file order (from its .header file).
const std::vector<std::string>& PaiColumns(PaiTable table);
const char* PaiTableName(PaiTable table);  // "pai_task_table", ...

// Warning kinds of ReadPai.
inline constexpr char kPaiWarnNoTimes[] = "task without start or end time skipped";
inline constexpr char kPaiWarnBadSpan[] = "task with end <= start skipped";
inline constexpr char kPaiWarnNoInstances[] = "task with inst_num 0 skipped";
inline constexpr char kPaiWarnUnknownJob[] = "task of a job not in the job table";
inline constexpr char kPaiWarnStartBeforeSubmit[] = "task started before its job's submission";
inline constexpr char kPaiWarnGpuRoundedUp[] = "plan_gpu above 100 not a multiple of 100";
inline constexpr char kPaiWarnUnknownTask[] = "instance/sensor row of an unknown task";
inline constexpr char kPaiWarnInstanceCount[] = "instance rows differ from inst_num";
inline constexpr char kPaiWarnUtilAbovePlan[] = "gpu_wrk_util above plan_gpu (util capped at 1)";
inline constexpr char kPaiWarnNoMachine[] = "instance without machine";

struct PaiOptions {
  // Pin each GPU task to the GPU type it ran on (task gpu_type) as its only
  // allowed model. Off by default: that type is the assignment, not the
  // user's request (which is gpu_type_spec of the group tag table).
  bool constrain_gpu_type = false;
  // Use pai_group_tag_table's gpu_type_spec (the user's requested type,
  // joined by inst_id through the job table) as the allowed model.
  bool use_group_tag_spec = true;
  // Machine spec: one NodeGroup per machine (false; group name = machine id,
  // so node names match recorded hosts) or per identical shape (true).
  bool group_machines = false;
};

// Paths of the tables; empty = not read. `task` is required for jobs; with
// only `machine_spec` the result has a cluster and no jobs.
struct PaiPaths {
  std::string job, task, instance, sensor, group_tag, machine_spec;
};

// One Job per task row (a PAI job's tasks have different roles and shapes):
//  - name "<job_name>/<task_name>"; tenant = the job's user (job table),
//    else "default";
//  - submit = job start_time (the submission) when the job table has the
//    job, else the task start_time; recorded_start = task start_time;
//    runtime = task end_time - start_time (s, exact to 1 us);
//  - tasks = inst_num; plan_gpu (percent of one GPU): 0 or empty -> CPU-only,
//    below 100 -> 1 GPU with gpu_milli = plan_gpu x 10, k x 100 -> k GPUs,
//    otherwise ceil(plan_gpu / 100) GPUs (kPaiWarnGpuRoundedUp);
//    cpu_milli = plan_cpu x 10 (percent of a core); mem_bytes = plan_mem GiB;
//  - recorded_hosts = machine of each instance row of the task;
//  - sensor rows of the task (one per instance): util = mean over rows of
//    gpu_wrk_util / plan_gpu (the busy fraction of the allocated GPU share;
//    capped at 1 with kPaiWarnUtilAbovePlan), util_known = true, signal
//    kGpuUtil; host_cpu_used_milli = mean cpu_usage x 10; gpu_mem_used_bytes
//    = mean avg_gpu_wrk_mem GiB (per instance).
// Errors: a missing task path when any other job-side table is given,
// unreadable files, wrong field counts, empty job_name, a non-numeric or
// negative number, a non-integral inst_num, a repeated (job_name,
// task_name) task or job_name, and the machine spec errors below.
Result<TraceData> ReadPai(const PaiPaths& paths, const PaiOptions& opt = {});

// pai_machine_spec -> ClusterSpec: cap_cpu cores, cap_mem GiB, cap_gpu GPUs
// of type gpu_type (CPU-only when cap_gpu is 0). Models get
// PaiGpuMemoryBytes and speed 1.0. Errors: empty or repeated machine,
// cap_cpu / cap_mem not a number > 0, cap_gpu not an integer 0..64, GPUs
// without a type, no machines.
Result<ClusterSpec> ReadPaiMachineSpec(const std::string& path, const PaiOptions& opt = {});

// GPU memory per GPU from public specs: P100, T4, V100 16 GiB, V100M32
// 32 GiB, MISC 12 GiB (K40m/K80 dies; the M60 has 8 GiB); 0 = unknown.
int64_t PaiGpuMemoryBytes(std::string_view gpu_type);

// Which PAI table a first row (or header) belongs to: equal to a column
// list, or else by its field count and which fields are numeric. nullopt
// when it matches none.
std::optional<PaiTable> DetectPaiTable(const std::vector<std::string>& first_row);
bool LooksLikePai(const std::vector<std::string>& first_row);

}  // namespace utilsim::traces
