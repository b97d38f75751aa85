#include "utilsim/engine/mig_cluster.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "mig_sizing.h"
#include "utilsim/engine/units.h"

namespace utilsim {

namespace {

using mig_sizing::Smaller;

}  // namespace

std::optional<MigInstanceModel> ParseMigInstanceModel(std::string_view name) {
  const size_t sep = name.rfind(kMigSeparator);
  if (sep == std::string_view::npos) return std::nullopt;
  const mig::GpuModel* m = mig::FindGpuModel(name.substr(0, sep));
  if (!m) return std::nullopt;
  const int p = m->FindProfile(name.substr(sep + 1));
  if (p < 0) return std::nullopt;
  return MigInstanceModel{m, p};
}

bool HasMig(const ClusterSpec& spec) {
  return std::any_of(spec.groups.begin(), spec.groups.end(),
                     [](const NodeGroup& g) { return !g.mig.empty(); });
}

Result<ClusterSpec> ExpandMig(const ClusterSpec& spec) {
  if (!HasMig(spec)) return spec;
  ClusterSpec out = spec;
  out.groups.clear();
  for (const NodeGroup& g : spec.groups) {
    if (g.mig.empty()) {
      out.groups.push_back(g);
      continue;
    }
    const std::string where = "cluster '" + spec.name + "', node group '" + g.name + "': ";
    if (!spec.topology.racks.empty() || spec.topology.nodes_per_rack > 0)
      return Status::Error(where +
                           "MIG layouts with a rack topology are not supported (the expanded "
                           "instance nodes would not be the racks' members)");
    const mig::GpuModel* model = mig::FindGpuModel(g.gpu_model);
    if (!model)
      return Status::Error(where + "gpu_model '" + g.gpu_model +
                           "' has no MIG profiles (MIG models: " + mig::GpuModelNames() + ")");
    const int spec_model = spec.FindModel(g.gpu_model);
    if (spec_model < 0) return Status::Error(where + "unknown gpu_model '" + g.gpu_model + "'");
    if (g.mig.size() != 1 && g.mig.size() != static_cast<size_t>(g.gpus))
      return Status::Error(where + "mig: expected 1 or " + std::to_string(g.gpus) +
                           " layouts (one per GPU), got " + std::to_string(g.mig.size()));
    // Instances per profile on one node.
    std::vector<int32_t> count(model->profiles.size(), 0);
    for (int32_t gpu = 0; gpu < g.gpus; ++gpu) {
      const size_t k = g.mig.size() == 1 ? 0 : static_cast<size_t>(gpu);
      auto layout = mig::ParseLayout(*model, g.mig[k]);
      if (!layout.ok())
        return Status::Error(where + "mig[" + std::to_string(k) +
                             "]: " + layout.status().message());
      for (const mig::Instance& in : layout.value()) ++count[static_cast<size_t>(in.profile)];
    }
    int64_t total_slices = 0;
    for (size_t p = 0; p < count.size(); ++p)
      total_slices += int64_t{count[p]} * model->profiles[p].compute_slices;
    if (total_slices == 0) {  // MIG mode with no instances: nothing GPU can run
      NodeGroup cpu = g;
      cpu.gpu_model.clear();
      cpu.gpus = 0;
      cpu.nvlink_domain = 0;
      cpu.mig.clear();
      out.groups.push_back(std::move(cpu));
      continue;
    }
    // Profiles present, largest first.
    std::vector<int> present;
    for (size_t p = 0; p < count.size(); ++p)
      if (count[p] > 0) present.push_back(static_cast<int>(p));
    std::stable_sort(present.begin(), present.end(),
                     [&](int a, int b) { return Smaller(model->profiles[b], model->profiles[a]); });
    const GpuModelSpec& phys = spec.models[static_cast<size_t>(spec_model)];
    int64_t cpu_left = g.cpu_milli, mem_left = g.mem_bytes;
    const size_t first = out.groups.size();
    for (int p : present) {
      const mig::Profile& prof = model->profiles[static_cast<size_t>(p)];
      const int64_t slices = int64_t{count[static_cast<size_t>(p)]} * prof.compute_slices;
      NodeGroup s;
      s.name = g.name + kMigSeparator + std::string(prof.name);
      s.count = g.count;
      s.gpu_model = g.gpu_model + kMigSeparator + std::string(prof.name);
      s.gpus = count[static_cast<size_t>(p)];
      // 128-bit safe enough: cpu_milli and mem_bytes x 56 slices fit in int64.
      s.cpu_milli =
          g.cpu_milli / total_slices * slices + g.cpu_milli % total_slices * slices / total_slices;
      s.mem_bytes =
          g.mem_bytes / total_slices * slices + g.mem_bytes % total_slices * slices / total_slices;
      cpu_left -= s.cpu_milli;
      mem_left -= s.mem_bytes;
      s.nvlink_domain = 0;
      s.mig.clear();
      out.groups.push_back(std::move(s));
      if (out.FindModel(out.groups.back().gpu_model) < 0) {
        const int64_t mem =
            phys.memory_bytes > 0
                ? phys.memory_bytes / mig::kMemorySlices * prof.memory_slices
                : static_cast<int64_t>(prof.memory_gb * static_cast<double>(kBytesPerGiB));
        out.models.push_back(GpuModelSpec{out.groups.back().gpu_model, mem, phys.speed});
      }
    }
    out.groups[first].cpu_milli += cpu_left;
    out.groups[first].mem_bytes += mem_left;
    for (size_t i = first; i < out.groups.size(); ++i)
      if (out.groups[i].cpu_milli <= 0 || out.groups[i].mem_bytes <= 0)
        return Status::Error(where + "too little CPU or memory to divide among its MIG profiles");
  }
  return out;
}

Result<RightSizeStats> RightSizeMig(const ClusterSpec& expanded, const RightSizeParams& params,
                                    Workload* w) {
  if (!(params.tolerance > 0 && params.tolerance <= 1))
    return Status::Error("--mig right-size: tolerance must be in (0, 1], got " +
                         std::to_string(params.tolerance));
  // Per physical MIG model (by name as the groups spell it): the instance
  // models present, and the whole-GPU models of non-MIG groups.
  struct Phys {
    std::string name;
    const mig::GpuModel* model = nullptr;
    std::vector<int> profiles;       // present plain profiles, ascending
    std::vector<std::string> names;  // expanded model name per profile index (plain)
    std::vector<std::string> me;     // "+me" twin name per profile index, or ""
    std::vector<int64_t> mem;        // memory bytes per profile index
    std::vector<int64_t> cpu, host;  // largest per-instance CPU / host memory per profile index
  };
  std::vector<Phys> phys;
  std::vector<std::string> whole;  // models of non-MIG GPU groups
  for (const NodeGroup& g : expanded.groups) {
    if (g.gpu_model.empty() || g.gpus == 0) continue;
    auto im = ParseMigInstanceModel(g.gpu_model);
    if (!im) {
      if (std::find(whole.begin(), whole.end(), g.gpu_model) == whole.end())
        whole.push_back(g.gpu_model);
      continue;
    }
    const std::string pname = g.gpu_model.substr(0, g.gpu_model.rfind(kMigSeparator));
    auto it =
        std::find_if(phys.begin(), phys.end(), [&](const Phys& p) { return p.name == pname; });
    if (it == phys.end()) {
      Phys p;
      p.name = pname;
      p.model = im->model;
      p.names.resize(im->model->profiles.size());
      p.me.resize(im->model->profiles.size());
      p.mem.assign(im->model->profiles.size(), 0);
      p.cpu.assign(im->model->profiles.size(), 0);
      p.host.assign(im->model->profiles.size(), 0);
      phys.push_back(std::move(p));
      it = phys.end() - 1;
    }
    const int plain = mig::PlainProfile(*im->model, im->profile);
    const size_t pi = static_cast<size_t>(plain);
    if (mig::IsMediaExtended(im->prof())) {
      it->me[pi] = g.gpu_model;
    } else {
      it->names[pi] = g.gpu_model;
    }
    const int mi = expanded.FindModel(g.gpu_model);
    if (mi >= 0) it->mem[pi] = expanded.models[static_cast<size_t>(mi)].memory_bytes;
    it->cpu[pi] = std::max(it->cpu[pi], g.cpu_milli / g.gpus);
    it->host[pi] = std::max(it->host[pi], g.mem_bytes / g.gpus);
    if (std::find(it->profiles.begin(), it->profiles.end(), plain) == it->profiles.end())
      it->profiles.push_back(plain);
  }
  if (phys.empty())
    return Status::Error(
        "--mig right-size: the cluster declares no MIG layouts (node group key 'mig')");
  for (Phys& p : phys)
    std::stable_sort(p.profiles.begin(), p.profiles.end(), [&](int a, int b) {
      return Smaller(p.model->profiles[static_cast<size_t>(a)],
                     p.model->profiles[static_cast<size_t>(b)]);
    });

  RightSizeStats st;
  for (Job& job : w->jobs) {
    if (job.task.gpus == 0) continue;
    ++st.jobs;
    const bool any = job.gpu_models.empty();
    auto allowed = [&](const std::string& m) {
      return any ||
             std::find(job.gpu_models.begin(), job.gpu_models.end(), m) != job.gpu_models.end();
    };
    const bool fractional = job.task.fractional();
    const mig_sizing::Need need = mig_sizing::Classify(job, params, &st);
    std::vector<std::string> models;
    bool counted = false;
    for (const Phys& p : phys) {
      if (!allowed(p.name)) continue;
      int chosen = mig_sizing::Choose(*p.model, p.profiles, need, params, [&](int pr) {
        const size_t pi = static_cast<size_t>(pr);
        return p.mem[pi] >= need.mem_bytes && p.cpu[pi] >= job.task.cpu_milli &&
               p.host[pi] >= job.task.mem_bytes;
      });
      if (chosen < 0) {  // 7g if present, else the largest present
        chosen = p.profiles.back();
        if (need.kind != mig_sizing::Kind::kWhole) ++st.fallback;
      }
      const size_t ci = static_cast<size_t>(chosen);
      if (!p.names[ci].empty()) models.push_back(p.names[ci]);
      if (!p.me[ci].empty()) models.push_back(p.me[ci]);
      if (!counted) {
        ++st.by_profile[std::string(p.model->profiles[ci].name)];
        counted = true;
      }
    }
    for (const std::string& m : whole)
      if (allowed(m)) models.push_back(m);
    if (models.empty()) continue;  // allowed nothing here before either
    job.gpu_models = std::move(models);
    if (fractional) job.task.gpu_milli = kMilliPerUnit;
  }
  return st;
}

std::string FormatRightSizeStats(const RightSizeStats& s, const RightSizeParams& params) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "mig right-size tol=%g (derived: profiles chosen by a mapping, ",
                params.tolerance);
  std::string out = buf;
  out += "docs/mig.md): ";
  bool first = true;
  for (const auto& [name, n] : s.by_profile) {
    out += (first ? "" : ", ") + name + " " + std::to_string(n);
    first = false;
  }
  out += "; kept whole: " + std::to_string(s.multi_gpu) + " multi-GPU, " +
         std::to_string(s.unknown_util) + " without measured util; from gpu_milli " +
         std::to_string(s.fractional) + "; from util " + std::to_string(s.by_util) +
         "; memory unknown (assumed " +
         std::to_string(params.unknown_mem_bytes / (int64_t{1} << 20)) + " MiB) " +
         std::to_string(s.mem_unknown) + "; no profile qualified " + std::to_string(s.fallback);
  return out;
}

}  // namespace utilsim
