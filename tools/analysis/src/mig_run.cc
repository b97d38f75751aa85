#include "utilsim/analysis/mig_run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <unordered_map>

#include "utilsim/engine/cluster_state.h"
#include "utilsim/engine/mig_progress.h"
#include "utilsim/engine/units.h"
#include "utilsim/policies/coresource.h"

namespace utilsim {

Result<MigMode> ParseMigMode(const std::string& text) {
  MigMode m;
  std::string head = "right-size";
  if (text.rfind("dynamic", 0) == 0) {
    head = "dynamic";
    m.dynamic = true;
  }
  if (text.rfind(head, 0) != 0 || (text.size() > head.size() && text[head.size()] != ':'))
    return Status::Error("--mig: expected right-size[:TOL] or dynamic[:TOL], got '" + text + "'");
  if (text.size() > head.size()) {
    const std::string tol = text.substr(head.size() + 1);
    char* end = nullptr;
    const double v = std::strtod(tol.c_str(), &end);
    if (tol.empty() || end != tol.c_str() + tol.size() || !(v > 0 && v <= 1))
      return Status::Error("--mig: tolerance must be a number in (0, 1], got '" + tol + "'");
    m.size.tolerance = v;
  }
  return m;
}

Result<RightSizeParams> ParseMigOption(const std::string& text) {
  auto m = ParseMigMode(text);
  if (!m.ok()) return m.status();
  return m.value().size;
}

Result<mig::ReconfigTimes> ParseMigReconfig(const std::string& text) {
  const std::string err =
      "--mig-reconfig: expected CREATE[,DESTROY[,FIXED]] seconds >= 0, got '" + text + "'";
  std::vector<double> v;
  size_t pos = 0;
  while (true) {
    const size_t comma = text.find(',', pos);
    const std::string part =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    const double x = std::strtod(part.c_str(), &end);
    if (part.empty() || end != part.c_str() + part.size() || !(x >= 0) || x > 86400)
      return Status::Error(err);
    v.push_back(x);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (v.size() > 3) return Status::Error(err);
  mig::ReconfigTimes t;
  t.create = Micros(static_cast<int64_t>(std::llround(v[0] * kMicrosPerSecond)));
  t.destroy =
      v.size() > 1 ? Micros(static_cast<int64_t>(std::llround(v[1] * kMicrosPerSecond))) : t.create;
  t.fixed = v.size() > 2 ? Micros(static_cast<int64_t>(std::llround(v[2] * kMicrosPerSecond)))
                         : Micros(0);
  return t;
}

namespace {

int64_t PhysicalGpus(const ClusterSpec& c) {
  int64_t n = 0;
  for (const NodeGroup& g : c.groups) n += int64_t{g.count} * g.gpus;
  return n;
}

}  // namespace

Status NoteMigUsage(const ClusterSpec& physical, const Workload* sized, RunResult* r) {
  auto u = ComputeMigUsage(*r, physical, PhysicalGpus(physical), sized);
  if (!u.ok()) return u.status();
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "mig slices (first submit .. last finish): %.1f slice-h allocated, %.1f busy "
                "(%.1f%%); slice-weighted allocation %.1f%%, effective utilization %.1f%% of "
                "%lld GPUs; %lld jobs on instances below 7g, mean slowdown %.3f; ",
                u.value().slice_alloc_h, u.value().slice_busy_h, u.value().slice_busy_pct,
                u.value().alloc_pct, u.value().effective_util_pct,
                static_cast<long long>(u.value().physical_gpus),
                static_cast<long long>(u.value().small_jobs), u.value().slowdown_small);
  r->meta.notes += buf;
  return Status::Ok();
}

Result<MigRun> PrepareMig(const MigSpec& spec, const ClusterSpec& cluster, Workload* w) {
  const RightSizeParams& params = spec.size;
  if (!HasMig(cluster))
    return Status::Error(StatusCode::kInvalidArgument,
                         "--mig: cluster '" + cluster.name +
                             "' declares no MIG layouts (node group key 'mig', docs/mig.md)");
  auto expanded = ExpandMig(cluster);
  if (!expanded.ok())
    return Status::Error(StatusCode::kInvalidArgument, "--mig: " + expanded.status().message());
  MigRun m;
  if (spec.mode == MigSpec::Mode::kDynamic) {
    m.dynamic = true;
    auto st = RightSizeMigDynamic(cluster, params, w);
    if (!st.ok()) return st.status();
    m.run_cluster = cluster;
    m.notes.push_back(FormatRightSizeStats(st.value(), params));
    m.notes.push_back(
        "mig dynamic: layouts change during the run (declared layouts are the initial state); "
        "allocation counts an instance's memory slices / 8 of a GPU (docs/mig.md)");
    m.repartition = MigRepartitionParams{spec.times, spec.drain};
    return m;
  }
  auto st = RightSizeMig(expanded.value(), params, w);
  if (!st.ok()) return st.status();
  m.run_cluster = std::move(expanded).value();
  m.notes.push_back(FormatRightSizeStats(st.value(), params));
  m.notes.push_back(
      "mig: each MIG instance counts as one GPU in capacity, allocation and utilization "
      "figures (MigUsage gives slice-weighted ones, docs/mig.md)");
  return m;
}

Result<MigUsage> ComputeMigUsage(const RunResult& r, const ClusterSpec& run_cluster,
                                 int64_t physical_gpus, const Workload* sized) {
  auto ex = sized ? Result<ClusterSpec>(run_cluster) : ExpandMig(run_cluster);
  if (!ex.ok()) return ex.status();
  auto state = ClusterState::Build(ex.value());
  if (!state.ok()) return state.status();
  const ClusterState& cs = state.value();
  // Node name -> compute slices of its GPUs (-1: a MIG-managed node of a
  // dynamic run, where each job's profile says).
  std::unordered_map<std::string, int> slices;
  for (NodeIndex n = 0; n < cs.num_nodes(); ++n) {
    const NodeInfo& info = cs.node(n);
    int s = mig::kComputeSlices;
    if (info.model >= 0) {
      if (auto im = ParseMigInstanceModel(cs.spec().models[static_cast<size_t>(info.model)].name))
        s = im->prof().compute_slices;
      else if (sized && !cs.spec().groups[static_cast<size_t>(info.group)].mig.empty())
        s = -1;
    }
    slices.emplace(info.name, s);
  }
  // Dynamic: job name -> (compute slices, milli per instance) of its profile.
  std::unordered_map<std::string, std::pair<int, int>> job_slices;
  if (sized)
    for (const Job& j : sized->jobs)
      if (j.task.mig_profile >= 0) {
        const mig::Profile& p =
            mig::GpuModels()[0].profiles[static_cast<size_t>(j.task.mig_profile)];
        job_slices.emplace(j.name, std::pair<int, int>{p.compute_slices, j.task.gpu_milli});
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
    double c = it->second;
    double instances = static_cast<double>(j.gpu_milli) / kMilliPerUnit;
    double inst_s = j.alloc_gpu_s;  // instance-seconds held (an instance counts as a GPU)
    if (c < 0) {                    // dynamic MIG: the job's own instances, one per GPU
      auto js = job_slices.find(j.name);
      c = js == job_slices.end() ? mig::kComputeSlices : js->second.first;
      const double per =
          js == job_slices.end() ? 1.0 : static_cast<double>(js->second.second) / kMilliPerUnit;
      instances = static_cast<double>(j.gpu_milli) / kMilliPerUnit / per;
      inst_s = j.alloc_gpu_s / per;
    }
    u.gpu_alloc_h += inst_s * c / mig::kComputeSlices / 3600;
    u.useful_h += j.useful_gpu_s / 3600;
    u.slice_alloc_h += inst_s * c / 3600;
    double busy = j.useful_gpu_s;
    if (j.outcome == JobOutcome::kFinished) {
      busy = inst_s - (instances * j.recorded_runtime.seconds() - j.useful_gpu_s);
      busy = std::clamp(busy, j.useful_gpu_s, inst_s);
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

}  // namespace utilsim
