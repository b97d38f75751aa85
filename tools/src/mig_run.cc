#include "utilsim/tools/mig_run.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <unordered_map>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/mig_progress.h"

namespace utilsim::tools {

Result<RightSizeParams> ParseMigOption(const std::string& text) {
  RightSizeParams p;
  const std::string head = "right-size";
  if (text.rfind(head, 0) != 0 || (text.size() > head.size() && text[head.size()] != ':'))
    return Status::Error("--mig: expected right-size or right-size:TOL, got '" + text + "'");
  if (text.size() > head.size()) {
    const std::string tol = text.substr(head.size() + 1);
    char* end = nullptr;
    const double v = std::strtod(tol.c_str(), &end);
    if (tol.empty() || end != tol.c_str() + tol.size() || !(v > 0 && v <= 1))
      return Status::Error("--mig: tolerance must be a number in (0, 1], got '" + tol + "'");
    p.tolerance = v;
  }
  return p;
}

Result<std::vector<RunResult>> RunPoliciesMig(const Inputs& in, const ClusterSpec& cluster,
                                              const PolicyRegistry& reg,
                                              const std::vector<std::string>& policies,
                                              const RunSettings& settings) {
  auto params = ParseMigOption(settings.mig);
  if (!params.ok()) return params.status();
  if (!HasMig(cluster))
    return Status::Error("--mig: cluster '" + cluster.name +
                         "' declares no MIG layouts (node group key 'mig', docs/mig.md)");
  auto expanded = ExpandMig(cluster);
  if (!expanded.ok()) return Status::Error("--mig: " + expanded.status().message());
  Inputs sized = in;
  auto st = RightSizeMig(expanded.value(), params.value(), &sized.workload);
  if (!st.ok()) return st.status();
  sized.notes.push_back(FormatRightSizeStats(st.value(), params.value()));
  sized.notes.push_back(
      "mig: each MIG instance counts as one GPU in capacity, allocation and utilization "
      "figures (MigUsage gives slice-weighted ones, docs/mig.md)");
  RunSettings s = settings;
  s.mig.clear();
  const ClusterSpec* ex = &expanded.value();
  s.wrap_progress = [ex](const ProgressModel* inner) -> std::shared_ptr<ProgressModel> {
    return std::make_shared<MigProgress>(inner, *ex);
  };
  return RunPoliciesOn(sized, expanded.value(), reg, policies, s);
}

Result<MigUsage> ComputeMigUsage(const RunResult& r, const ClusterSpec& run_cluster,
                                 int64_t physical_gpus) {
  auto ex = ExpandMig(run_cluster);
  if (!ex.ok()) return ex.status();
  auto state = ClusterState::Build(ex.value());
  if (!state.ok()) return state.status();
  const ClusterState& cs = state.value();
  std::unordered_map<std::string, int> slices;  // node name -> compute slices of its GPUs
  for (NodeIndex n = 0; n < cs.num_nodes(); ++n) {
    const NodeInfo& info = cs.node(n);
    int s = mig::kComputeSlices;
    if (info.model >= 0)
      if (auto im = ParseMigInstanceModel(cs.spec().models[static_cast<size_t>(info.model)].name))
        s = im->prof().compute_slices;
    slices.emplace(info.name, s);
  }
  MigUsage u;
  u.physical_gpus = physical_gpus;
  Micros first{-1}, last{0};
  double slow_sum = 0;
  for (const JobRecord& j : r.jobs) {
    if (first.us < 0 || j.submit < first) first = j.submit;
    if (j.finish.us >= 0) last = std::max(last, j.finish);
    if (j.placement.empty() || j.gpu_milli == 0) continue;
    const std::string node = j.placement.substr(0, j.placement.find(':'));
    auto it = slices.find(node);
    if (it == slices.end())
      return Status::Error("mig usage: job '" + j.name + "' on unknown node '" + node + "'");
    const double c = it->second;
    const double instances = static_cast<double>(j.gpu_milli) / 1000.0;
    u.gpu_alloc_h += j.alloc_gpu_s * c / mig::kComputeSlices / 3600;
    u.useful_h += j.useful_gpu_s / 3600;
    u.slice_alloc_h += j.alloc_gpu_s * c / 3600;
    double busy = j.useful_gpu_s;
    if (j.outcome == JobOutcome::kFinished) {
      busy = j.alloc_gpu_s - (instances * j.recorded_runtime.seconds() - j.useful_gpu_s);
      busy = std::clamp(busy, j.useful_gpu_s, j.alloc_gpu_s);
    }
    u.slice_busy_h += busy * c / 3600;
    if (c < mig::kComputeSlices && j.outcome == JobOutcome::kFinished && j.preemptions == 0 &&
        j.recorded_runtime.us > 0) {
      ++u.small_jobs;
      slow_sum += (j.finish - j.start).seconds() / j.recorded_runtime.seconds();
    }
  }
  u.span_s = first.us < 0 ? 0 : std::max(0.0, (last - first).seconds());
  const double cap_h = static_cast<double>(physical_gpus) * u.span_s / 3600;
  if (cap_h > 0) {
    u.alloc_pct = 100 * u.gpu_alloc_h / cap_h;
    u.effective_util_pct = 100 * u.useful_h / cap_h;
  }
  if (u.slice_alloc_h > 0) u.slice_busy_pct = 100 * u.slice_busy_h / u.slice_alloc_h;
  if (u.small_jobs > 0) u.slowdown_small = slow_sum / static_cast<double>(u.small_jobs);
  return u;
}

}  // namespace utilsim::tools
