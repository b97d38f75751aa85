// Running one or several policies over the same inputs, each in its own
// thread, with identical inputs and seed.
#pragma once

#include <string>
#include <vector>

#include "utilsim/engine/metrics.h"
#include "utilsim/engine/progress.h"
#include "utilsim/engine/status.h"
#include "utilsim/policies/registry.h"
#include "utilsim/tools/inputs.h"

namespace utilsim::tools {

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
  uint64_t seed = 1;
  int threads = 0;  // 0 = hardware concurrency
  // Co-resource allocation applied to every policy (docs/policies.md):
  // "request", "proportional" or "measured" (MakeCoResource), and a
  // per-GPU reservation "CORES[,GIB]" for GPU work (MakeGpuReservation;
  // "" = none).
  std::string cpu_alloc = "request";
  std::string gpu_reserve;
};

// Runs every policy name (registry forms) on `in`; results in the order of
// `policies`. Fails on the first unknown policy (before any run) or the
// first run error (naming the policy).
Result<std::vector<RunResult>> RunPolicies(const Inputs& in, const PolicyRegistry& reg,
                                           const std::vector<std::string>& policies,
                                           const RunSettings& settings);

}  // namespace utilsim::tools
