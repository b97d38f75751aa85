// RightSizeMigDynamic (mig_cluster.h): per-job MIG profiles for dynamic
// repartitioning, on the unexpanded cluster.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "mig_sizing.h"
#include "utilsim/engine/mig_cluster.h"
#include "utilsim/engine/units.h"

namespace utilsim {
namespace {

using mig_sizing::Smaller;

struct Managed {
  std::string name;  // as the groups spell it
  const mig::GpuModel* model = nullptr;
  int64_t memory_bytes = 0;
  std::vector<int> plain;  // plain profiles, ascending by (compute, memory)
};

}  // namespace

Result<RightSizeStats> RightSizeMigDynamic(const ClusterSpec& spec, const RightSizeParams& params,
                                           Workload* w) {
  if (!(params.tolerance > 0 && params.tolerance <= 1))
    return Status::Error("--mig dynamic: tolerance must be in (0, 1], got " +
                         std::to_string(params.tolerance));
  std::vector<Managed> managed;
  for (const NodeGroup& g : spec.groups) {
    if (g.mig.empty()) continue;
    const mig::GpuModel* m = mig::FindGpuModel(g.gpu_model);
    if (!m)
      return Status::Error("cluster '" + spec.name + "', node group '" + g.name + "': gpu_model '" +
                           g.gpu_model +
                           "' has no MIG profiles (MIG models: " + mig::GpuModelNames() + ")");
    if (std::any_of(managed.begin(), managed.end(),
                    [&](const Managed& x) { return x.name == g.gpu_model; }))
      continue;
    Managed x;
    x.name = g.gpu_model;
    x.model = m;
    const int mi = spec.FindModel(g.gpu_model);
    x.memory_bytes = mi >= 0 ? spec.models[static_cast<size_t>(mi)].memory_bytes : 0;
    if (x.memory_bytes <= 0) x.memory_bytes = static_cast<int64_t>(m->memory_gb * 1e9);
    for (int p = 0; p < static_cast<int>(m->profiles.size()); ++p)
      if (!mig::IsMediaExtended(m->profiles[static_cast<size_t>(p)])) x.plain.push_back(p);
    std::stable_sort(x.plain.begin(), x.plain.end(), [&](int a, int b) {
      return Smaller(m->profiles[static_cast<size_t>(a)], m->profiles[static_cast<size_t>(b)]);
    });
    managed.push_back(std::move(x));
  }
  if (managed.empty())
    return Status::Error(
        "--mig dynamic: the cluster declares no MIG layouts (node group key 'mig')");

  RightSizeStats st;
  for (Job& job : w->jobs) {
    if (job.task.gpus == 0) continue;
    auto allowed = [&](const std::string& m) {
      return job.gpu_models.empty() ||
             std::find(job.gpu_models.begin(), job.gpu_models.end(), m) != job.gpu_models.end();
    };
    std::vector<const Managed*> mine;
    for (const Managed& m : managed)
      if (allowed(m.name)) mine.push_back(&m);
    if (mine.empty()) continue;
    ++st.jobs;
    const mig_sizing::Need need = mig_sizing::Classify(job, params, &st);
    int chosen = -1;  // profile index (the same on every model)
    bool fell_back = false;
    for (const Managed* m : mine) {
      int pick = mig_sizing::Choose(*m->model, m->plain, need, params, [&](int pr) {
        return m->memory_bytes / mig::kMemorySlices *
                   m->model->profiles[static_cast<size_t>(pr)].memory_slices >=
               need.mem_bytes;
      });
      if (pick < 0) {
        pick = m->plain.back();  // 7g
        fell_back = need.kind != mig_sizing::Kind::kWhole;
      }
      if (chosen < 0 || Smaller(m->model->profiles[static_cast<size_t>(chosen)],
                                m->model->profiles[static_cast<size_t>(pick)]))
        chosen = pick;
    }
    if (fell_back) ++st.fallback;
    const mig::Profile& prof = mine.front()->model->profiles[static_cast<size_t>(chosen)];
    ++st.by_profile[std::string(prof.name)];
    job.task.mig_profile = chosen;
    if (prof.compute_slices == mig::kComputeSlices) {
      job.task.gpu_milli = kMilliPerUnit;
    } else {
      job.task.gpu_milli = 125 * prof.memory_slices;
      // The instance holds its memory slices (MIG isolates memory): exactly
      // the GPU memory the task holds (the smallest over allowed models).
      int64_t mem = INT64_MAX;
      for (const Managed* m : mine)
        mem = std::min(mem, m->memory_bytes / mig::kMemorySlices * prof.memory_slices);
      job.task.gpu_mem_bytes = mem;
      std::vector<std::string> models;
      for (const Managed* m : mine) models.push_back(m->name);
      job.gpu_models = std::move(models);
    }
  }
  return st;
}

}  // namespace utilsim
