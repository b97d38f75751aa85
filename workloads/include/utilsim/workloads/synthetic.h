// The built-in synthetic workload: a seeded generator of a homogeneous GPU
// cluster and a job stream whose distributions come from published statistics
// of real GPU clusters (mainly Microsoft Philly; see published_stats.h and
// docs/workloads.md). It is the workload behind `utilsim demo` and the
// benchmarks, and it is built to show the problem utilsim exists for: GPUs
// mostly allocated, much less often busy (mean busy fraction ~0.47).
//
// Model, per job, each attribute from its own named Rng stream (so changing
// one distribution does not reshuffle the others):
//   submit   Poisson arrivals, modulated by hour of day (thinning), t = 0 is
//            midnight; mean gap = E[gpus x runtime] / (GPUs x target_load)
//   gpus     1..64, powers of two; > gpus_per_node => gang of whole nodes
//   runtime  Philly run-time quantiles, whole seconds, in [1, runtime_max_s]
//   util     Philly per-GPU utilization CDF (busy fraction, 0..1)
//   cpu/mem  openb requests per GPU, times the GPUs of a task, capped at a node
//   tenant   Philly virtual clusters, share by node quota
//   walltime_limit  AAIC user requests: the maximum, 24 h, or run time times
//            an over-estimate factor rounded up to a round value
// Thread-safe: no shared mutable state; distinct calls may run in parallel.
#pragma once

#include <cstdint>
#include <string>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/units.h"

namespace utilsim {

struct SyntheticParams {
  std::string name = "demo";  // goes into Workload::source and ClusterSpec::name
  int64_t jobs = 20000;       // number of jobs generated, >= 0
  // Cluster: `nodes` identical nodes (one NodeGroup "node").
  int32_t nodes = 64;         // >= 1
  int32_t gpus_per_node = 8;  // 1..64
  std::string gpu_model = "A100-80GB";
  int64_t gpu_mem_bytes = 80 * kBytesPerGiB;
  int64_t node_cpu_milli = 96000;             // 96 cores, > 0
  int64_t node_mem_bytes = int64_t{1} << 40;  // 1 TiB, > 0
  // Offered GPU demand / GPU capacity over the arrival span, > 0. 0.9 gives
  // ~90% allocation in steady state when the policy packs well.
  double target_load = 0.9;
  // Strength of the hour-of-day arrival pattern: rate(h) = mean x
  // (1 + a x (venus[h] - 1)); 0 = plain Poisson, 1 = SenseTime Venus profile
  // (peak 1.73x, trough 0.19x the mean). In [0, 1].
  double diurnal_amplitude = 1.0;
  // Run times are capped here; also the largest walltime_limit. >= 86400.
  int64_t runtime_max_s = 7 * 86400;
  // Job sizes above this (or above the cluster) are not drawn; the others
  // keep their relative shares. >= 1.
  int32_t max_job_gpus = 64;
  // Share of jobs with a utilization series (start-up phase at 0% busy, then
  // steady, series mean = drawn util) instead of a constant. In [0, 1].
  double profile_share = 0.05;
};

// Demo default: 20,000 jobs on 64 nodes x 8 A100-80GB (512 GPUs), 96 cores,
// 1 TiB each, target_load 0.9; ~12 days of arrivals.
SyntheticParams DemoParams();
// Benchmark: 1,000,000 jobs on 1,250 nodes x 8 GPUs (10,000 GPUs), no series
// (no per-job heap memory beyond Job's own fields); ~31 days of arrivals.
SyntheticParams BenchParams();

// OK, or the first parameter out of its documented range, named.
Status ValidateSyntheticParams(const SyntheticParams& params);

// The cluster the parameters describe: name = params.name, one GPU model,
// one NodeGroup "node" of params.nodes nodes, nvlink_domain 0 (whole node).
ClusterSpec SyntheticCluster(const SyntheticParams& params);

// The job stream: exactly params.jobs jobs, finalized (sorted by submit,
// which is non-decreasing in generation order), names "j0000001".., signal
// kSynthetic, source "synthetic:<name> seed=<seed> jobs=<n>". Each job fits
// one node of SyntheticCluster(params), or (tasks > 1) takes whole nodes and
// tasks <= nodes. Deterministic: the same params and seed give the same
// workload on every platform. Precondition: ValidateSyntheticParams(params)
// is OK (checked; a violation aborts).
Workload GenerateSynthetic(const SyntheticParams& params, uint64_t seed);

}  // namespace utilsim
