// Distributions transcribed from published statistics and public traces of
// real GPU clusters. The traces are not shipped with utilsim and are never
// read at run time: every table below is a compact copy made once, and the
// definition (published_stats.cc) names the file, series and selection it came
// from. docs/workloads.md explains each choice.
//
// All tables are immutable and live for the whole program; the spans may be
// kept. Thread-safe.
#pragma once

#include <cstdint>
#include <span>

#include "utilsim/workloads/quantile_table.h"

namespace utilsim::published {

// Per-GPU utilization in percent (0..100) of Microsoft Philly, nvidia-smi
// "GPU utilization" sampled per minute (AcmeTrace util_gpu_philly.pkl, series
// philly_gpu_util_pct). 32.2% of samples are exactly 0, 6.9% exactly 100.
std::span<const QuantilePoint> PhillyGpuUtilPct();

// Philly job run times in seconds (83,154 jobs, Alibaba clusterdata
// philly_runtime.csv): median 1,186 s.
std::span<const QuantilePoint> PhillyRuntimeSeconds();

// Host requests per whole GPU of the GPU pods of Alibaba openb (ATC'23
// cluster-trace-gpu-v2023, openb_pod_list_default.csv).
std::span<const QuantilePoint> OpenbCpuMilliPerGpu();
std::span<const QuantilePoint> OpenbMemMibPerGpu();

// Requested walltime / actual run time of the AIST AAIC jobs that asked for
// neither the queue maximum nor 24 h (run time >= 60 s).
std::span<const QuantilePoint> AaicWalltimeFactor();
// Shares of AAIC jobs that requested the queue maximum (72 h) and 24 h.
inline constexpr double kAaicShareMaxWalltime = 0.323;
inline constexpr double kAaicShareDayWalltime = 0.360;
// The round values (seconds, ascending) users asked for most in AAIC.
std::span<const int64_t> AaicRoundWalltimesSeconds();

// Share of jobs by GPU count (powers of two, 1..64) for Philly.
struct GpuCountShare {
  int32_t gpus;
  double share;
};
std::span<const GpuCountShare> PhillyGpuCountShares();

// GPU-job submissions per hour of day (local time, 00:00 first) of SenseTime
// Venus, relative to the daily mean (mean of the 24 values = 1 within 1e-4).
std::span<const double> VenusHourlySubmitProfile();

// Philly virtual clusters (tenants) and their node quotas.
struct TenantShare {
  const char* name;
  double share;
};
std::span<const TenantShare> PhillyVcShares();

}  // namespace utilsim::published
