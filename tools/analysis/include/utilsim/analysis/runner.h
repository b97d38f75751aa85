// Running one or several policies over the same inputs, each in its own
// thread, with identical inputs and seed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "utilsim/engine/engine.h"
#include "utilsim/engine/metrics.h"
#include "utilsim/engine/progress.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/inputs.h"
#include "utilsim/policies/registry.h"

namespace utilsim {

class ProgressBoard;  // utilsim/analysis/progress.h

struct RunSettings {
  double sample_interval_s = 300;
  double horizon_s = -1;  // < 0: no horizon
  double price_per_gpu_h = 2.0;
  std::string window = "arrivals";  // "arrivals" or "full" (SimConfig::window)
  double warmup_s = 0;              // skipped at the start of the arrivals window
  double restart_cost_s = 0;        // work a preempted job redoes (SimConfig::restart_cost)
  double comm_fraction = WholeGpuProgress::kDefaultCommFraction;  // SimConfig::comm_fraction
  // Progress model: "whole-gpu", "stall-serial" or "stall-overlapped"
  // (docs/model.md).
  std::string model = "whole-gpu";
  // GPU sharing (docs/sharing.md): "fractional" (milli shares, no
  // interference: the default), "exclusive" (fractional requests rounded up
  // to whole GPUs, noted in the run), "timeslice" or "mps" (milli shares,
  // the progress model wrapped in SharedGpuProgress). mps_thread_pct: the
  // MPS daemon's active-thread percentage, (0, 100].
  std::string sharing = "fractional";
  double mps_thread_pct = 100;
  uint64_t seed = 1;
  int threads = 0;  // 0 = hardware concurrency
  // Co-resource allocation applied to every policy (docs/policies.md):
  // "request", "proportional" or "measured" (MakeCoResource), and a
  // per-GPU reservation "CORES[,GIB]" for GPU work (MakeGpuReservation;
  // "" = none).
  std::string cpu_alloc = "request";
  std::string gpu_reserve;
  // Host requests "CPU[,MEM]" (tools/host_scale.h): every job's CPU and
  // memory request multiplied by these factors before the run (and before
  // MIG right-sizing), noted in every result; "" = as given.
  std::string scale_host_requests;
  // C++ hooks, not options (plan, progress; utilsim/analysis/progress.h).
  // `progress`: each run reports its events and simulated time to this board
  // (not owned; null = none). `observer`: called for every event of every run
  // after the progress observer, shared by runs on parallel threads; it may
  // RequestStop() its run (the run then ends as "stopped on request"); an
  // exception it throws is rethrown by RunPolicies after every thread ended.
  ProgressBoard* progress = nullptr;
  EventObserver observer;
  // MIG (docs/mig.md): "right-size[:TOL]" runs on the cluster's MIG layouts
  // with right-sized jobs, "dynamic[:TOL]" repartitions them during the run
  // (RunPoliciesMig, tools/mig_run.h); "" = MIG layouts ignored (whole
  // GPUs). `wrap_progress` (C++ hook, set by RunPoliciesMig):
  // wraps the run's progress model (after sharing); the result must not
  // outlive the runs.
  std::string mig;
  std::function<std::shared_ptr<ProgressModel>(const ProgressModel* inner)> wrap_progress;
  // Dynamic MIG (--mig dynamic): change times "CREATE[,DESTROY[,FIXED]]"
  // seconds (ParseMigReconfig) and whether the planner may drain instances.
  std::string mig_reconfig = "2,2,0";
  bool mig_drain = true;
};

// Runs every policy name (registry forms) on `in`; results in the order of
// `policies`. Fails on the first unknown policy (before any run) or the
// first run error (naming the policy).
Result<std::vector<RunResult>> RunPolicies(const Inputs& in, const PolicyRegistry& reg,
                                           const std::vector<std::string>& policies,
                                           const RunSettings& settings);

// RunPolicies on `cluster` instead of in.cluster (capacity planning: the same
// workload on scaled clusters).
Result<std::vector<RunResult>> RunPoliciesOn(const Inputs& in, const ClusterSpec& cluster,
                                             const PolicyRegistry& reg,
                                             const std::vector<std::string>& policies,
                                             const RunSettings& settings);

}  // namespace utilsim
