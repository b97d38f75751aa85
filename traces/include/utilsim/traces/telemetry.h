// Readers of measured GPU telemetry (docs/formats/telemetry.md): each turns
// one source into traces::TelemetryData, a list of UtilTrack series (one per
// entity and signal) in absolute time of the source.
//
// Common contract of every reader:
//  - busy is a 0..1 fraction. Percent fields (DCGM_FI_DEV_GPU_UTIL,
//    utilization.gpu, duty cycle) are divided by 100; ratio fields
//    (PROF_SM_ACTIVE, PROF_GR_ENGINE_ACTIVE) are taken as they are.
//  - time is Micros since the source's own origin, stated per reader and in
//    TelemetryData::notes; no time zone or offset is applied.
//  - a track's times are strictly increasing: a sample at or before the
//    previous sample of the same track is dropped and counted
//    (kWarnOutOfOrder).
//  - GPU memory (mem_bytes) and board power (power_w, W) are joined to a
//    track by equal time of the same entity, by one rule: -1 marks a sample
//    without a memory / power value; mem_bytes / power_w is empty when the
//    source gave no memory / power for the entity at all. Every utilization
//    track of the entity (one per signal) gets the same values.
//  - power is a board-power reading in W: blank (DCGM sentinel), non-finite,
//    negative or above 100 kW is counted (kWarnBlank, kWarnNonFinite,
//    kWarnRange) and the sample has no power value.
//  - model is the GPU model name the source writes for the entity
//    (dcgm-exporter's modelName label, nvidia-smi's name column; the first
//    non-empty one of the entity's series), "" when it gives none.
//  - values a reader can skip are counted in TelemetryData::warnings under
//    the kinds below, with "<file>:<line>: <detail>" examples; malformed
//    input is an error naming the file and line, and a bad value reads
//    "<file>:<line>: field '<name>': expected <what>, got '<text>'".
//  - tracks come out sorted by (job, namespace, container, host, gpu,
//    gpu_instance, uuid, signal).
// Readers never throw; all are thread-safe for distinct inputs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces {

// Warning kinds (Warnings::count keys) of the telemetry readers.
// A DCGM "blank" sentinel (value >= DCGM_INT32_BLANK = 0x7ffffff0, which also
// covers the INT64 and FP64 blanks and 2^64-1): no measurement.
inline constexpr char kWarnBlank[] = "DCGM blank value";
// "[N/A]", "[Not Supported]", "N/A" and other bracketed nvidia-smi/dcgmi texts.
inline constexpr char kWarnNotAvailable[] = "value not available";
// NaN / +Inf / -Inf in Prometheus text or JSON.
inline constexpr char kWarnNonFinite[] = "non-finite value";
// Utilization outside 0..100 % / 0..1, negative memory, power < 0 or > 100 kW.
inline constexpr char kWarnRange[] = "value out of range";
// A sample at or before the previous one of its track (dropped).
inline constexpr char kWarnOutOfOrder[] = "duplicate or out-of-order sample";
// A series with neither a pod/job label nor a host: nothing to join it by
// (kept, counted once per series).
inline constexpr char kWarnNoJoinLabel[] = "series without pod or host";
// Memory samples of an entity that has no utilization series (once per
// entity), and memory samples at a time with no utilization sample.
inline constexpr char kWarnMemoryOnly[] = "memory series without utilization series";
inline constexpr char kWarnMemoryUnmatched[] = "memory sample without utilization sample";
// The same for power samples.
inline constexpr char kWarnPowerOnly[] = "power series without utilization series";
inline constexpr char kWarnPowerUnmatched[] = "power sample without utilization sample";

// Options shared by the readers; each reader documents which it uses.
struct TelemetryOptions {
  // Host of series that carry no host label (nvidia-smi and DCGM CSV: the
  // host of every row). Empty: unknown.
  std::string host;
  // Prometheus text: time of samples written without a timestamp.
  std::optional<Micros> scrape_time;
  // Prometheus query_range JSON: metric of series without "__name__" (e.g.
  // results of avg_over_time(...)); one of the five metric names below.
  std::string metric;
  // DCGM field CSV: EntityId is a GPU index (true) or a GPU-instance id
  // (false, as in the MIGProfiler recorder, which keeps "GPU-I" rows).
  bool dcgm_entity_is_gpu = false;
};

// 1. dcgm-exporter Prometheus text exposition (domain.md §3.2), plain or gzip.
// Read metrics: DCGM_FI_DEV_GPU_UTIL (%, kGpuUtil), DCGM_FI_PROF_SM_ACTIVE
// (ratio, kSmActive), DCGM_FI_PROF_GR_ENGINE_ACTIVE (ratio, kGrEngineActive),
// DCGM_FI_DEV_FB_USED (MiB, memory), DCGM_FI_DEV_POWER_USAGE (field 155, W,
// power). Other metrics are checked for syntax and skipped (counted in a
// note). Labels: modelName -> model; hostname or Hostname -> host
// (else options.host); gpu -> gpu; GPU_I_ID -> gpu_instance; UUID
// (parent GPU) keeps series apart; pod | pod_name | hpc_job -> job;
// namespace | pod_namespace -> namespace_name; container | container_name ->
// container. Empty label values count as absent. Label values may hold the
// escapes \" \\ \n; any other escape is an error. A sample's time is its
// own timestamp (ms since the UNIX epoch), else options.scrape_time, else an
// error. So a file may hold several scrapes, told apart by timestamps.
// Time origin: UNIX epoch.
Result<TelemetryData> ReadDcgmExposition(const std::string& path,
                                         const TelemetryOptions& options = {});

// One scrape file and the time it was scraped (Micros since the UNIX epoch).
struct ScrapeFile {
  std::string path;
  Micros time;
};
// Reads several scrape files into one TelemetryData, in order of time
// (stable), each with scrape_time = its time (own timestamps still win).
Result<TelemetryData> ReadDcgmScrapes(std::vector<ScrapeFile> files,
                                      const TelemetryOptions& options = {});
// Lists the regular files of `dir` named "<unix seconds>" or
// "<unix seconds>.<ext>[.gz]" (e.g. "1700000000.prom", "1700000000.5.txt"),
// with that time; names starting with '.' are ignored, any other name is an
// error. Sorted by time.
Result<std::vector<ScrapeFile>> ListScrapeFiles(const std::string& dir);

// 2. Prometheus HTTP API query_range (or instant query) JSON (domain.md
// §4.4): {"status":"success","data":{"resultType":"matrix","result":[
// {"metric":{...},"values":[[<unix s>,"<v>"],...]}]}}. "vector" results
// ("value":[t,"v"]) are read as one sample per series. The metric is
// "__name__", else the file's `metric`, else options.metric; the same five
// metrics and label conventions as the text format. status "error" is an
// error quoting errorType and error; "warnings" go to notes. Errors in
// values name the JSON path: "<file>: field 'data.result[2].values[5][1]':
// expected ..., got '...'". Several files go into one TelemetryData, so
// FB_USED or POWER_USAGE from one query joins GPU_UTIL from another. Time
// origin: UNIX epoch.
struct PromQueryFile {
  std::string path;
  std::string metric;  // for series without __name__; empty: options.metric
};
Result<TelemetryData> ReadPromQueryRange(const std::vector<PromQueryFile>& files,
                                         const TelemetryOptions& options = {});
Result<TelemetryData> ReadPromQueryRange(const std::string& path,
                                         const TelemetryOptions& options = {});

// 3. nvidia-smi --query-gpu=... --format=csv[,nounits] output (domain.md
// §3.4). A header row is required; names may carry a unit ("memory.used
// [MiB]"), values may repeat it ("1024 MiB") or not (nounits). Columns:
// timestamp (required, "YYYY/MM/DD HH:MM:SS[.fff]"), utilization.gpu
// (required, %, kGpuUtil), index, uuid, memory.used (MiB), power.draw (W,
// "592.74 W" or "592.74"), name (-> model); others are ignored. "[N/A]",
// "[Not Supported]" and other bracketed texts are counted
// (kWarnNotAvailable) and skipped. A row equal to the header (concatenated
// outputs) is skipped. Host: options.host. Time origin: the machine's local
// wall clock read as if UTC (nvidia-smi prints no zone), i.e. Micros since
// 1970-01-01 00:00 of that clock.
Result<TelemetryData> ReadNvidiaSmiCsv(const std::string& path,
                                       const TelemetryOptions& options = {});

// 4. DCGM field CSV as written by the MIGProfiler recorder (dcgmi dmon
// columns): EntityId, one or more of GRACT (ratio, kGrEngineActive), SMACT
// (ratio, kSmActive), GPUTL (%, kGpuUtil), optionally FBUSD (MiB) and POWER
// (W), and TimeStamp (UNIX seconds, decimals allowed). No model. One track per entity and
// signal; EntityId -> gpu_instance (or gpu, see options). Other columns are
// ignored; "N/A" counts as kWarnNotAvailable. Host: options.host. Time
// origin: UNIX epoch.
Result<TelemetryData> ReadDcgmFieldCsv(const std::string& path,
                                       const TelemetryOptions& options = {});

// 5. Alibaba cluster-trace-v2026-GenAI per-pod series (long format, columns
// found by name): pod_gpu_duty_cycle_anon.csv (value = GPU duty cycle %,
// kGpuUtil; timestamp_anon seconds; container_ip = hashed pod id -> job)
// and, unless `memory_path` is empty, pod_gpu_memory_used_bytes_anon.csv
// (value = bytes) joined by pod and equal timestamp. No host, power or
// model. Time origin:
// the trace's anonymised clock (seconds, shifted by an unknown constant).
Result<TelemetryData> ReadGenAiPodUtil(const std::string& duty_path, const std::string& memory_path,
                                       const TelemetryOptions& options = {});
// True when a header holds the three columns of a GenAI per-pod series
// (value, timestamp_anon, container_ip, in any order; names trimmed). The
// duty-cycle and GPU-memory files share them: which one a file is, only its
// position in the list says.
bool LooksLikeGenAiPodSeries(const std::vector<std::string>& header);

}  // namespace utilsim::traces
