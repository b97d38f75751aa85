// Readers for the public pieces of the Microsoft Philly trace (Jeon et al.,
// ATC'19) in ../shared/traces/philly-derived (see its SOURCE.md):
//  - machine_list/cluster_machine_list.csv -> ClusterSpec;
//  - dre_job_windows/sampled_jobs.json (5,910 multi-GPU jobs) -> Workload;
//  - dre_job_windows/{gpu_util,cpu_util,mem_free_pct}_window.csv: per-job
//    samples at minutes -10..+3 around each job's start -> TelemetryData
//    (GPU) and host windows (CPU, memory free), joined into Job::util and
//    Job::host_cpu_used_milli;
//  - alibaba_analysis/philly_runtime.csv (run times only),
//    helios_artifact/philly_node_sequence.csv (busy nodes per minute) and
//    helios_artifact/philly_vc.csv (nodes per virtual cluster).
// docs/formats/philly.md gives the field mapping, units and warnings.
//
// CSV errors read exactly "<file>:<line>: field '<col>': expected <what>,
// got '<text>'"; JSON errors name the line of the job's key the same way,
// with fields of host entries as 'detail[<k>].<key>'.
// Thread-safety: thread-safe for distinct calls.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces {

// Warning kinds.
inline constexpr char kPhillyWarnZeroRuntime[] = "job with zero run time skipped";
inline constexpr char kPhillyWarnNoHosts[] = "job without hosts skipped";
inline constexpr char kPhillyWarnUnevenHosts[] = "uneven GPUs per host (max used)";
inline constexpr char kPhillyWarnRuntimeMismatch[] = "runtime_min disagrees with end - start";
inline constexpr char kPhillyWarnMissingSample[] = "missing window sample (empty or -1)";
inline constexpr char kPhillyWarnMultiSample[] = "window sample holding several values (averaged)";
inline constexpr char kPhillyWarnUnknownJob[] = "window row of a job not in the workload";
inline constexpr char kPhillyWarnNoJobSamples[] = "job without window samples after its start";

struct PhillyOptions {
  // Host resources per GPU, assumed (the machine list has GPUs only):
  // a node gets gpus x these (2-GPU: 16 cores, 128 GiB; 8-GPU: 64, 512).
  int64_t cpu_milli_per_gpu = 8000;
  int64_t mem_bytes_per_gpu = 64 * kBytesPerGiB;
  // true: one NodeGroup per machine shape ("<gpus>gpu-<GiB>g"); false: one
  // group of count 1 per machine, named by machineId, so that node names
  // match Job::recorded_hosts.
  bool group_machines = false;
  // Time origin as UNIX seconds (Philly's clock read as UTC), a multiple of
  // 60. nullopt: midnight before the earliest submitted_time.
  std::optional<int64_t> origin_unix;
  // Drop jobs whose status is "Failed" (they ran and held GPUs; kept by
  // default).
  bool skip_failed = false;
};

// "YYYY-MM-DD HH:MM:SS" as UNIX seconds (read as UTC); nullopt when the
// text is not such a date-time.
std::optional<int64_t> ParsePhillyTime(std::string_view text);

// Reads cluster_machine_list.csv (header "machineId, number of GPUs, single
// GPU mem"; values like " 12GB"). GPU models "GPU-<n>GB" with that memory
// (GiB) and speed 1.0. Errors: unreadable, missing column, field count,
// empty or repeated machineId, GPUs not an integer 0..64, memory not
// "<number>GB" > 0 when GPUs > 0, option values <= 0, no machines.
Result<ClusterSpec> ReadPhillyMachines(const std::string& path, const PhillyOptions& opt = {});

// Reads sampled_jobs.json (a JSON array; plain or gzip): per job
// name = jobid, tenant = vc, submit = submitted_time - origin,
// recorded_start = start_time - origin, runtime = end_time - start_time,
// tasks = number of detail entries, gpus = GPUs of an entry,
// recorded_hosts = the entries' ip. util unknown until ApplyPhillyWindows.
// Errors: unreadable, JSON syntax ("<file>:<line>: JSON error: ..."), a
// job that is not an object, a missing or mistyped key, a bad time,
// start_time < submitted_time, end_time < start_time, repeated jobid,
// an origin that is not a multiple of 60.
Result<TraceData> ReadPhillyJobs(const std::string& path, const PhillyOptions& opt = {});

// One row of cpu_util_window.csv / mem_free_pct_window.csv: percent of the
// machine (CPU busy, resp. memory FREE) at minutes -10..+3 around the job's
// start; NaN where the sample is missing.
struct PhillyHostWindow {
  std::string job, host;
  std::array<float, 14> pct{};
};
inline constexpr int kPhillyWindowFirstMinute = -10;

// Reads gpu_util_window.csv into one UtilTrack per row (job = jobid,
// host/gpu from name "m127_gpu3", signal kGpuUtil, busy = value / 100),
// time = the job's recorded_start rounded down to the minute + offset
// minutes, for the jobs of `jobs` (others: kPhillyWarnUnknownJob). Samples
// that are empty or -1 are left out (kPhillyWarnMissingSample).
// Errors: file/column/field count errors, a value that is not a number in
// 0..100 (or -1), a name not "<host>_gpu<k>", a column -10..3 missing.
Result<TelemetryData> ReadPhillyWindows(const std::string& gpu_path, const Workload& jobs);
// Reads cpu_util_window.csv or mem_free_pct_window.csv. A cell holding a
// pandas Series dump (several values for one minute) is averaged
// (kPhillyWarnMultiSample). Same errors as ReadPhillyWindows.
Result<std::vector<PhillyHostWindow>> ReadPhillyHostWindows(const std::string& path,
                                                            Warnings* warnings);

// Sets, for each job with samples at minutes 0..3 (its own first minutes):
// util = mean of those GPU samples (util_known = true) and, when `cluster`
// lists the host, host_cpu_used_milli = mean over its tasks of
// cpu% / 100 x node cpu_milli x task GPUs / node GPUs. Sets w->signal to
// kGpuUtil when any util was set. Jobs without samples count
// kPhillyWarnNoJobSamples.
void ApplyPhillyWindows(const TelemetryData& gpu, const std::vector<PhillyHostWindow>& cpu,
                        const ClusterSpec* cluster, Workload* w, Warnings* warnings);

// The job's own minutes 0..3 on one of its hosts, for calibration
// (docs/model.md "Calibration"): GPU utilization averaged over the job's
// GPUs on the host that have a sample at that minute, and the machine's CPU
// utilization (repeated rows averaged), both as fractions 0..1; NaN where
// missing.
struct PhillyStartWindow {
  std::string job, host;
  int32_t gpus_used = 0;  // the job's GPUs on the host (from its detail entries)
  int32_t host_gpus = 0;  // GPUs of the machine in `cluster`, 0 when not listed
  std::array<float, 4> gpu_busy{}, cpu_busy{};
};
// One row per (job, host) of `w` with a GPU or CPU window row, in workload
// job order, hosts in recorded order. GPU tracks are matched by job and host
// and placed at minute (time - job start rounded down to the minute) / 60 s;
// `cpu` rows by job and host. `cluster` (optional) gives host_gpus for
// machines listed as groups of count 1.
std::vector<PhillyStartWindow> PhillyStartWindows(const TelemetryData& gpu,
                                                  const std::vector<PhillyHostWindow>& cpu,
                                                  const Workload& w,
                                                  const ClusterSpec* cluster = nullptr);

// Paths of the pieces; empty = not read. `jobs` is required by ReadPhilly.
struct PhillyPaths {
  std::string machines, jobs, gpu_window, cpu_window, mem_free_window;
};
// Reads what is given and joins it: jobs, cluster (from machines), windows
// applied as above; the mean memory-free percentage at job start goes to the
// notes. Telemetry warnings are merged into TraceData::warnings; rows_read
// counts job records, bytes_read every file read.
Result<TraceData> ReadPhilly(const PhillyPaths& paths, const PhillyOptions& opt = {});

// philly_runtime.csv: column `runtime` (seconds >= 0, one per job).
Result<std::vector<double>> ReadPhillyRuntimes(const std::string& path);
// philly_node_sequence.csv: per-minute busy and total node counts.
struct PhillyNodeCount {
  int64_t unix_s = 0;  // "time" read as UTC
  int32_t active = 0, total = 0;
};
Result<std::vector<PhillyNodeCount>> ReadPhillyNodeSequence(const std::string& path);
// philly_vc.csv: nodes per virtual cluster (columns "vc", "node num").
struct PhillyVc {
  std::string vc;
  int32_t nodes = 0;
};
Result<std::vector<PhillyVc>> ReadPhillyVcs(const std::string& path);

// Header detection: the machine list, a window file (jobid, name,
// machine_type, trace, -10..3), or either.
bool LooksLikePhillyMachines(const std::vector<std::string>& header);
bool LooksLikePhillyWindow(const std::vector<std::string>& header);
bool LooksLikePhilly(const std::vector<std::string>& header);

}  // namespace utilsim::traces
