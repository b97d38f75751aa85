#include "utilsim/policies/placer.h"

#include <set>

#include "utilsim/engine/scheduler.h"

namespace utilsim {

// What a policy's BeginPass sees: the Placer's running jobs, at time 0. A
// Placer's pass starts nothing: Start, StartWith and Preempt fail.
class Placer::Pass final : public PassContext {
 public:
  explicit Pass(Placer& p) : p_(p) {}
  Micros now() const override { return Micros{0}; }
  const Workload& workload() const override { return p_.pass_; }
  ClusterState& cluster() override { return p_.state_; }
  ModelMask mask(JobIndex j) const override {
    return p_.state_.ResolveModels(p_.pass_.jobs[j].gpu_models);
  }
  Status Start(JobIndex, const Placement&) override { return Refused(); }
  Status StartWith(JobIndex, const Placement&, const TaskDemand&) override { return Refused(); }
  const TaskDemand& granted(JobIndex j) const override { return p_.pass_.jobs[j].task; }
  const std::vector<JobIndex>& running() const override { return p_.live_; }
  Micros started_at(JobIndex) const override { return Micros{0}; }
  const Placement& placement_of(JobIndex j) const override { return p_.where_[j]; }
  double work_done_s(JobIndex) const override { return 0; }
  Status Preempt(JobIndex) override { return Refused(); }

 private:
  static Status Refused() { return Status::Error("a Placer's pass starts and stops nothing"); }
  Placer& p_;
};

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
    : state_(std::move(state)), policy_(std::move(policy)) {
  for (NodeIndex n = 0; n < state_.num_nodes(); ++n) index_.emplace(state_.node(n).name, n);
}

void Placer::BeginPass() {
  if (!policy_->uses_running_jobs()) return;
  Pass pass(*this);
  policy_->BeginPass(pass);
}

std::optional<Placement> Placer::Place(const Job& job) {
  BeginPass();  // a fresh pass each time: a pass counts what it placed
  return policy_->Place(job, state_.ResolveModels(job.gpu_models), state_);
}

bool Placer::Fits(const Job& job, NodeIndex n) const {
  return n < state_.num_nodes() && !drained_.count(n) &&
         state_.CanHost(n, job.task, state_.ResolveModels(job.gpu_models));
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
  // Each choice's nodes are cordoned for the next (ClusterState keeps what
  // they hold, so the policy sees the state unchanged otherwise). One pass
  // serves every choice: what a pass counts of an earlier choice lies on
  // nodes cordoned from then on.
  std::vector<Placement> out;
  std::vector<NodeIndex> cordoned;
  BeginPass();
  const ModelMask mask = state_.ResolveModels(job.gpu_models);
  while (out.size() < k) {
    auto p = policy_->Place(job, mask, state_);
    if (!p) break;
    out.push_back(*p);
    for (const TaskPlacement& t : *p)
      if (!state_.cordoned(t.node)) {
        state_.SetCordoned(t.node, true);
        cordoned.push_back(t.node);
      }
  }
  for (NodeIndex n : cordoned) state_.SetCordoned(n, false);
  return out;
}

std::vector<Placement> Placer::RankAmong(const Job& job, size_t k,
                                         const std::vector<NodeIndex>& candidates) {
  std::vector<uint8_t> allowed(state_.num_nodes(), 0);
  for (NodeIndex n : candidates)
    if (n < allowed.size()) allowed[n] = 1;
  // Only nodes that could take a task now need cordoning.
  const ModelMask mask = state_.ResolveModels(job.gpu_models);
  std::vector<NodeIndex> cordoned;
  for (NodeIndex n = 0; n < state_.num_nodes(); ++n)
    if (!allowed[n] && state_.CanHost(n, job.task, mask)) {
      state_.SetCordoned(n, true);
      cordoned.push_back(n);
    }
  std::vector<Placement> out = Rank(job, k);
  for (NodeIndex n : cordoned) state_.SetCordoned(n, false);
  return out;
}

Status Placer::Started(const std::string& id, const Job& job, const Placement& p) {
  if (running_.count(id)) return Status::Error("job '" + id + "' is running already");
  if (!(job.util >= 0.0f && job.util <= 1.0f))
    return Status::Error("job '" + id + "': util " + std::to_string(job.util) + " is outside 0..1");
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
  JobIndex slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
    pass_.jobs[slot] = job;
    where_[slot] = p;
  } else {
    slot = static_cast<JobIndex>(pass_.jobs.size());
    pass_.jobs.push_back(job);
    where_.push_back(p);
    live_pos_.push_back(0);
  }
  pass_.jobs[slot].series = -1;  // the caller's series table is not ours
  live_pos_[slot] = live_.size();
  live_.push_back(slot);
  running_.emplace(id, slot);
  return Status::Ok();
}

Status Placer::Finished(const std::string& id) {
  auto it = running_.find(id);
  if (it == running_.end()) return Status::Error("job '" + id + "' is not running");
  const JobIndex slot = it->second;
  const Placement& where = where_[slot];
  std::set<NodeIndex> nodes;
  for (const TaskPlacement& t : where)
    if (drained_.count(t.node)) nodes.insert(t.node);
  for (NodeIndex n : nodes) Unhold(&drained_[n]);
  for (const TaskPlacement& t : where) state_.Release(t, pass_.jobs[slot].task);
  for (NodeIndex n : nodes) drained_[n] = Hold(n);
  // Swap-remove the slot from live_, keep it for reuse.
  const size_t pos = live_pos_[slot];
  live_[pos] = live_.back();
  live_pos_[live_[pos]] = pos;
  live_.pop_back();
  pass_.jobs[slot] = Job{};
  where_[slot].clear();
  free_.push_back(slot);
  running_.erase(it);
  return Status::Ok();
}

Status Placer::SetUtil(const std::string& id, float util) {
  auto it = running_.find(id);
  if (it == running_.end()) return Status::Error("job '" + id + "' is not running");
  if (!(util >= 0.0f && util <= 1.0f))
    return Status::Error("job '" + id + "': util " + std::to_string(util) + " is outside 0..1");
  Job& j = pass_.jobs[it->second];
  j.util = util;
  j.util_known = true;
  j.series = -1;
  return Status::Ok();
}

const Job* Placer::job(const std::string& id) const {
  auto it = running_.find(id);
  return it == running_.end() ? nullptr : &pass_.jobs[it->second];
}

const Placement* Placer::placement(const std::string& id) const {
  auto it = running_.find(id);
  return it == running_.end() ? nullptr : &where_[it->second];
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
  auto it = index_.find(node);
  return it == index_.end() ? -1 : static_cast<int64_t>(it->second);
}

std::string Placer::Describe(const Placement& p) const { return FormatPlacement(p, state_); }

}  // namespace utilsim
