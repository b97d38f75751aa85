// Running one or several policies over the same inputs, each in its own
// thread, with identical inputs and seed: BuildRun (run_spec.h) once, then
// one PreparedRun::Simulate per policy.
#pragma once

#include <string>
#include <vector>

#include "utilsim/analysis/run_spec.h"
#include "utilsim/engine/metrics.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/inputs.h"
#include "utilsim/policies/registry.h"

namespace utilsim {

// Runs every policy name (registry forms, parameters allowed) on `in`;
// results in the order of `policies`. spec.threads runs at once (0 = one
// per core); spec.progress gets a slot per run and spec.observer sees every
// event of every run (from the runs' threads). Fails on the first unknown
// policy (before any run) or the first run error (naming the policy).
Result<std::vector<RunResult>> RunPolicies(const Inputs& in, const PolicyRegistry& reg,
                                           const std::vector<std::string>& policies,
                                           const RunSpec& spec);

// RunPolicies on `cluster` instead of in.cluster (capacity planning: the same
// workload on scaled clusters).
Result<std::vector<RunResult>> RunPoliciesOn(const Inputs& in, const ClusterSpec& cluster,
                                             const PolicyRegistry& reg,
                                             const std::vector<std::string>& policies,
                                             const RunSpec& spec);

}  // namespace utilsim
