// Joining measured telemetry (telemetry.h) to the jobs of a workload: each
// matched job gets a job-relative UtilSeries, util = its time-weighted mean,
// and gpu_mem_used_bytes = the largest memory sample seen during its run.
// The rule in full is in docs/formats/telemetry.md §6.
#pragma once

#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces {

// Warning kinds of AttachTelemetry.
inline constexpr char kWarnJobWithoutTelemetry[] = "job without telemetry";
inline constexpr char kWarnTrackWithoutJob[] = "track matching no job";
inline constexpr char kWarnTrackOutsideRun[] = "track outside its job's run";
inline constexpr char kWarnOtherSignal[] = "track of another signal skipped";
inline constexpr char kWarnSharedHost[] = "host shared by concurrent jobs";
inline constexpr char kWarnSignalReplaced[] = "workload signal replaced";

// What fills the parts of a job's run that no sample covers (before the
// first sample, after a gap longer than max_gap_s, after the last one).
enum class GapFill {
  kCoveredMean,  // the time-weighted mean of the covered parts (util = that mean)
  kZero,         // idle
};

struct JoinOptions {
  // Added to every telemetry time to get workload time:
  // workload_time = telemetry_time + time_offset.
  Micros time_offset{0};
  // A sample holds from its time until the next sample of its track, but at
  // most this long (also after the last sample). Default: Prometheus'
  // 5-minute lookback. Must be > 0.
  double max_gap_s = 300;
  GapFill gap_fill = GapFill::kCoveredMean;
  // Use only tracks of this signal (others are counted, kWarnOtherSignal).
  // kUnknown: all tracks, which must then share one signal (else an error).
  UtilSignal signal = UtilSignal::kUnknown;
  // Join tracks that carry a job/pod id by id, and tracks without one by
  // host + time window.
  bool by_job = true;
  bool by_host = true;
};

// Joins `t` to `w`'s jobs. A job's recorded run is [s, s + runtime) with
// s = recorded_start, else submit.
//  - A track with a job id is used for the job of that name (if by_job;
//    never by host); no such job: kWarnTrackWithoutJob; no overlap with the
//    job's run: kWarnTrackOutsideRun.
//  - A track without a job id but with a host is used for every GPU job
//    (task.gpus > 0) whose recorded_hosts holds that host and whose run its
//    samples cover in part (if by_host). A job whose host another such job
//    uses at an overlapping time counts kWarnSharedHost once. A track used
//    by no job counts kWarnTrackWithoutJob.
//  - All tracks used by one job (GPUs of a host, hosts of a gang, GPUs of a
//    pod) are averaged at each instant over the tracks covering it.
// A job with telemetry gets a new entry in w->series (offsets from s over
// [0, runtime), equal neighbours merged), Job::series pointing to it,
// Job::util = SeriesMean, and Job::gpu_mem_used_bytes = the largest memory
// sample whose holding interval meets the run (unchanged when none). Other
// GPU jobs keep their util and count kWarnJobWithoutTelemetry; CPU-only jobs
// are not counted. When a job was joined w->signal becomes the tracks'
// signal (a different, known previous signal counts kWarnSignalReplaced).
// Errors (w unchanged): null w, max_gap_s <= 0 or not finite, several
// signals with opt.signal == kUnknown, a track whose time and busy lengths
// differ or whose times are not strictly increasing.
Status AttachTelemetry(Workload* w, const TelemetryData& t, const JoinOptions& opt,
                       Warnings* warnings);

}  // namespace utilsim::traces
