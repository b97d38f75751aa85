// The Slurm advisor's cluster model (slurm_model.h): building it from
// Slurm's nodes and running jobs, and the usage figures.
#include "utilsim/live/slurm_model.h"

#include <algorithm>
#include <bit>
#include <map>
#include <set>

#include "utilsim/engine/units.h"

namespace utilsim::live {

int32_t StrandedGpus(const ClusterState& state, NodeIndex n) {
  if (state.free_cpu(n) >= kMilliPerUnit && state.free_mem(n) >= kBytesPerGiB) return 0;
  return state.free_whole_gpus(n);
}

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

bool Holds(const SlurmJobInfo& j) {
  return j.state == "RUNNING" || j.state == "COMPLETING" || j.state == "SUSPENDED" ||
         j.state == "CONFIGURING" || j.state == "STAGE_OUT";
}

ClusterSpec SpecOf(const std::vector<SlurmNodeInfo>& nodes, std::vector<std::string>* warnings) {
  ClusterSpec spec;
  spec.name = "slurm";
  std::set<std::string> models;
  for (const SlurmNodeInfo& n : nodes) {
    if (n.cpus <= 0) {
      warnings->push_back("node " + n.name + " left out: no CPUs listed");
      continue;
    }
    if (n.gpus > 64) {
      warnings->push_back("node " + n.name + " left out: more than 64 GPUs");
      continue;
    }
    NodeGroup g;
    g.name = n.name;
    g.count = 1;
    g.gpus = n.gpus;
    if (n.gpus > 0) {
      g.gpu_model = n.gpu_type.empty() ? "gpu" : n.gpu_type;
      if (models.insert(g.gpu_model).second) spec.models.push_back({g.gpu_model, 0, 1.0});
    }
    g.cpu_milli = int64_t{n.cpus} * kMilliPerUnit;
    g.mem_bytes = std::max<int64_t>(1, n.real_memory_mib) * kMiB;
    spec.groups.push_back(std::move(g));
  }
  return spec;
}

uint64_t MaskOf(const std::vector<int32_t>& indices, int32_t gpus) {
  uint64_t m = 0;
  for (int32_t i : indices) {
    if (i < 0 || i >= gpus || i >= 64) return 0;
    m |= uint64_t{1} << i;
  }
  return m;
}

}  // namespace

Result<std::unique_ptr<SlurmModel>> SlurmModel::Build(const std::vector<SlurmNodeInfo>& nodes,
                                                      const std::vector<SlurmJobInfo>& jobs,
                                                      const SlurmAdviceOptions& options) {
  std::unique_ptr<SlurmModel> m(new SlurmModel());
  m->options_ = options;
  m->nodes_ = nodes;
  m->jobs_ = jobs;
  m->spec_ = SpecOf(nodes, &m->warnings_);
  if (m->spec_.groups.empty())
    return Status::Error(StatusCode::kRuntime, "Slurm listed no node utilsim can model");
  const PolicyRegistry& reg = options.registry ? *options.registry : BuiltinPolicies();
  auto placer = Placer::Create(m->spec_, options.policy, reg, options.seed);
  if (!placer.ok()) return placer.status();
  m->placer_ = std::move(placer.value());
  for (const SlurmJobInfo& j : jobs) {
    if (!Holds(j)) continue;
    for (const SlurmNodeAlloc& a : j.allocs) {
      Holding h;
      h.job = j.display_id;
      h.node = a.node;
      h.user = j.user;
      h.id = j.display_id + "@" + a.node;
      h.end_unix = j.end_time;
      h.demand.name = h.id;
      h.demand.task.gpus = a.gpus;
      h.demand.task.cpu_milli = int64_t{a.cpus} * kMilliPerUnit;
      h.demand.task.mem_bytes = a.memory_mib * kMiB;
      const int64_t n = m->placer_->NodeIndexOf(a.node);
      if (n < 0) {
        ++m->unmodelled_;
        m->warnings_.push_back("job " + j.display_id + " on unknown node " + a.node);
        continue;
      }
      const NodeIndex ni = static_cast<NodeIndex>(n);
      const int32_t node_gpus = m->placer_->state().node(ni).gpus;
      uint64_t mask = 0;
      if (static_cast<int32_t>(a.gpu_indices.size()) == a.gpus)
        mask = MaskOf(a.gpu_indices, node_gpus);
      if (mask == 0 && a.gpus > 0 && a.gpus <= node_gpus)
        mask = m->placer_->state().PickGpus(ni, h.demand.task);
      h.where = {TaskPlacement{ni, mask}};
      if (Status s = m->placer_->Started(h.id, h.demand, h.where); !s.ok()) {
        ++m->unmodelled_;
        m->warnings_.push_back("job " + j.display_id + " on " + a.node +
                               " not modelled: " + s.message());
        continue;
      }
      m->held_.push_back(std::move(h));
    }
  }
  for (const SlurmNodeInfo& n : nodes)
    if (!n.Schedulable() && m->placer_->NodeIndexOf(n.name) >= 0)
      (void)m->placer_->SetDrained(n.name, true);
  return m;
}

Result<std::unique_ptr<Placer>> SlurmModel::Fresh() const {
  const PolicyRegistry& reg = options_.registry ? *options_.registry : BuiltinPolicies();
  auto p = Placer::Create(spec_, options_.policy, reg, options_.seed);
  if (!p.ok()) return p.status();
  for (const Holding& h : held_)
    if (Status s = p.value()->Started(h.id, h.demand, h.where); !s.ok()) return s;
  for (const SlurmNodeInfo& n : nodes_)
    if (!n.Schedulable() && p.value()->NodeIndexOf(n.name) >= 0)
      (void)p.value()->SetDrained(n.name, true);
  return p;
}

void SlurmModel::SetMeasured(const MeasuredSnapshot* measured) {
  if (measured == nullptr) return;
  for (Holding& h : held_) {
    auto it = measured->gpus.find(h.node);
    if (it == measured->gpus.end()) continue;
    double sum = 0;
    int n = 0;
    for (int g = 0; g < 64; ++g) {
      if (!(h.where[0].gpu_mask >> g & 1)) continue;
      if (auto r = it->second.find(g); r != it->second.end()) {
        sum += r->second.busy;
        ++n;
      }
    }
    if (n == 0) continue;
    h.demand.util = static_cast<float>(std::clamp(sum / n, 0.0, 1.0));
    h.demand.util_known = true;
    (void)placer_->SetUtil(h.id, h.demand.util);
  }
}

SlurmUsage SlurmModel::Usage(const MeasuredSnapshot* measured) const {
  SlurmUsage u;
  const ClusterState& st = placer_->state();
  std::map<std::string, size_t> at;
  std::set<std::string> drained;
  for (const SlurmNodeInfo& n : nodes_)
    if (!n.Schedulable()) drained.insert(n.name);
  for (NodeIndex n = 0; n < st.num_nodes(); ++n) {
    SlurmUsage::Node node;
    node.name = st.node(n).name;
    node.gpus = st.node(n).gpus;
    u.gpus_total += node.gpus;
    if (!drained.count(node.name)) {
      u.gpus_schedulable += node.gpus;
      node.stranded = StrandedGpus(st, n);
    }
    at[node.name] = u.nodes.size();
    u.nodes.push_back(std::move(node));
  }
  for (const Holding& h : held_) {
    SlurmUsage::Holding out;
    out.job = h.job;
    out.node = h.node;
    out.user = h.user;
    out.gpus = std::popcount(h.where[0].gpu_mask);
    const std::map<int32_t, GpuReading>* readings = nullptr;
    if (measured != nullptr)
      if (auto it = measured->gpus.find(h.node); it != measured->gpus.end()) readings = &it->second;
    for (int g = 0; g < 64 && readings != nullptr; ++g) {
      if (!(h.where[0].gpu_mask >> g & 1)) continue;
      if (auto r = readings->find(g); r != readings->end()) {
        ++out.measured;
        out.busy += r->second.busy;
      }
    }
    SlurmUsage::Node& node = u.nodes[at[h.node]];
    node.allocated += out.gpus;
    node.measured += out.measured;
    node.busy += out.busy;
    u.gpus_allocated += out.gpus;
    u.gpus_measured += out.measured;
    u.gpus_busy += out.busy;
    u.holdings.push_back(std::move(out));
  }
  return u;
}

}  // namespace utilsim::live
