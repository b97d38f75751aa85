#include "utilsim/analysis/runner.h"

#include "utilsim/analysis/progress.h"
#include "utilsim/engine/parallel.h"

namespace utilsim {

Result<std::vector<RunResult>> RunPolicies(const Inputs& in, const PolicyRegistry& reg,
                                           const std::vector<std::string>& policies,
                                           const RunSpec& spec) {
  return RunPoliciesOn(in, in.cluster, reg, policies, spec);
}

Result<std::vector<RunResult>> RunPoliciesOn(const Inputs& in, const ClusterSpec& cluster,
                                             const PolicyRegistry& reg,
                                             const std::vector<std::string>& policies,
                                             const RunSpec& spec) {
  if (spec.sink && policies.size() != 1)
    return Status::Error(
        StatusCode::kInvalidArgument,
        "a result sink takes one run; " + std::to_string(policies.size()) + " policies given");
  auto built = BuildRun(spec, in, cluster, reg);
  if (!built.ok()) return built.status();
  const PreparedRun& run = *built.value();
  // Every name is checked before any run starts.
  for (const auto& name : policies)
    if (auto s = reg.Make(name, spec.seed); !s.ok())
      return Status::Error(StatusCode::kInvalidArgument, "--policy: " + s.status().message());

  std::vector<Result<RunResult>> out(policies.size(), Status::Error("not run"));
  size_t slot0 = 0;
  if (spec.progress)
    slot0 =
        spec.progress->AddRuns(policies.size(), EstimateSpan(in.workload, run.config().horizon));
  ParallelFor(policies.size(), spec.threads > 0 ? static_cast<size_t>(spec.threads) : 0,
              [&](size_t i) {
                EventObserver obs = spec.observer;
                if (spec.progress) obs = spec.progress->Observer(slot0 + i, std::move(obs));
                out[i] = run.Simulate(policies[i], std::move(obs));
                if (spec.progress) spec.progress->Done(slot0 + i);
              });

  std::vector<RunResult> results;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i].ok())
      return Status::Error(out[i].status().code(),
                           "policy '" + policies[i] + "': " + out[i].status().message());
    results.push_back(std::move(out[i]).value());
  }
  return results;
}

}  // namespace utilsim
