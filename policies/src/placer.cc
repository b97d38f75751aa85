#include "utilsim/policies/placer.h"

#include <set>

namespace utilsim {

Result<std::unique_ptr<Placer>> Placer::Create(const ClusterSpec& cluster,
                                               const std::string& placement,
                                               const PolicyRegistry& registry, uint64_t seed,
                                               const Workload* stats) {
  auto state = ClusterState::Build(cluster);
  if (!state.ok()) return state.status();
  auto policy = registry.MakePlacement(placement, seed);
  if (!policy.ok()) return policy.status();
  std::unique_ptr<Placer> p(new Placer(std::move(state).value(), std::move(policy).value()));
  p->policy_->Init(stats ? *stats : p->no_stats_);
  return p;
}

Placer::Placer(ClusterState state, std::unique_ptr<PlacementPolicy> policy)
    : state_(std::move(state)), policy_(std::move(policy)) {}

std::optional<Placement> Placer::Place(const Job& job) {
  return policy_->Place(job, state_.ResolveModels(job.gpu_models), state_);
}

// Claims every free resource of node n (each GPU's free share and memory,
// the free CPU and memory) so that no policy can place anything there.
Placer::Holds Placer::Hold(NodeIndex n) {
  Holds h;
  const NodeInfo& info = state_.node(n);
  for (int g = 0; g < info.gpus; ++g) {
    const int32_t free = state_.gpu_free_milli(n, g);
    if (free <= 0) continue;
    TaskDemand d;
    d.gpus = 1;
    d.gpu_milli = free;
    d.gpu_mem_bytes = state_.free_gpu_mem(n, g);
    const TaskPlacement t{n, uint64_t{1} << g};
    if (state_.Allocate(t, d).ok()) h.emplace_back(t, d);
  }
  TaskDemand host;
  host.gpus = 0;
  host.cpu_milli = state_.free_cpu(n);
  host.mem_bytes = state_.free_mem(n);
  if ((host.cpu_milli > 0 || host.mem_bytes > 0) && state_.Allocate({n, 0}, host).ok())
    h.emplace_back(TaskPlacement{n, 0}, host);
  return h;
}

void Placer::Unhold(Holds* h) {
  for (auto it = h->rbegin(); it != h->rend(); ++it) state_.Release(it->first, it->second);
  h->clear();
}

std::vector<Placement> Placer::Rank(const Job& job, size_t k) {
  std::vector<Placement> out;
  std::vector<Holds> held;
  std::set<NodeIndex> excluded;
  while (out.size() < k) {
    auto p = Place(job);
    if (!p) break;
    out.push_back(*p);
    for (const TaskPlacement& t : *p)
      if (excluded.insert(t.node).second && !drained_.count(t.node)) held.push_back(Hold(t.node));
  }
  for (auto it = held.rbegin(); it != held.rend(); ++it) Unhold(&*it);
  return out;
}

Status Placer::Started(const std::string& id, const Job& job, const Placement& p) {
  if (running_.count(id)) return Status::Error("job '" + id + "' is running already");
  if (static_cast<int32_t>(p.size()) != job.tasks)
    return Status::Error("job '" + id + "': " + std::to_string(p.size()) + " task placements for " +
                         std::to_string(job.tasks) + " tasks");
  for (const TaskPlacement& t : p)
    if (t.node >= state_.num_nodes())
      return Status::Error("job '" + id + "': no node " + std::to_string(t.node));
  // Drained nodes of the placement give back their holds while it is claimed.
  std::set<NodeIndex> nodes;
  for (const TaskPlacement& t : p)
    if (drained_.count(t.node)) nodes.insert(t.node);
  for (NodeIndex n : nodes) Unhold(&drained_[n]);
  Status s = Status::Ok();
  for (size_t i = 0; i < p.size() && s.ok(); ++i) {
    s = state_.Allocate(p[i], job.task);
    if (!s.ok())  // give back the tasks claimed before this one
      for (size_t k = 0; k < i; ++k) state_.Release(p[k], job.task);
  }
  for (NodeIndex n : nodes) drained_[n] = Hold(n);
  if (!s.ok()) return Status::Error("job '" + id + "': " + s.message());
  running_.emplace(id, Running{job, p});
  return Status::Ok();
}

Status Placer::Finished(const std::string& id) {
  auto it = running_.find(id);
  if (it == running_.end()) return Status::Error("job '" + id + "' is not running");
  std::set<NodeIndex> nodes;
  for (const TaskPlacement& t : it->second.where)
    if (drained_.count(t.node)) nodes.insert(t.node);
  for (NodeIndex n : nodes) Unhold(&drained_[n]);
  for (const TaskPlacement& t : it->second.where) state_.Release(t, it->second.job.task);
  for (NodeIndex n : nodes) drained_[n] = Hold(n);
  running_.erase(it);
  return Status::Ok();
}

Status Placer::SetDrained(const std::string& node, bool drained) {
  const int64_t n = NodeIndexOf(node);
  if (n < 0) return Status::Error("no node '" + node + "'");
  const NodeIndex i = static_cast<NodeIndex>(n);
  auto it = drained_.find(i);
  if (drained && it == drained_.end()) drained_[i] = Hold(i);
  if (!drained && it != drained_.end()) {
    Unhold(&it->second);
    drained_.erase(it);
  }
  return Status::Ok();
}

int64_t Placer::NodeIndexOf(const std::string& node) const {
  for (NodeIndex n = 0; n < state_.num_nodes(); ++n)
    if (state_.node(n).name == node) return n;
  return -1;
}

std::string Placer::Describe(const Placement& p) const { return FormatPlacement(p, state_); }

}  // namespace utilsim
