// DecisionSession: the state kept beside the Placer (jobs by id, drained
// nodes, the node index by name). The JSON protocol is in decide_json.cc.
#include "utilsim/analysis/decide.h"

#include <filesystem>

#include "utilsim/traces/canonical.h"

namespace utilsim {

namespace {

// A registry or reader error without a code of its own is the caller's
// input at fault.
Status Coded(const Status& s, StatusCode fallback) {
  if (s.ok() || s.code() != StatusCode::kRuntime) return s;
  return Status::Error(fallback, s.message());
}

}  // namespace

Result<std::unique_ptr<DecisionSession>> DecisionSession::Create(const ClusterSpec& cluster,
                                                                 const std::string& placement,
                                                                 const PolicyRegistry& registry,
                                                                 uint64_t seed) {
  // The policy first: an unknown name is the likelier mistake, and its
  // error lists the known ones.
  if (auto p = registry.MakePlacement(placement, seed); !p.ok())
    return Coded(p.status(), StatusCode::kNotFound);
  auto placer = Placer::Create(cluster, placement, registry, seed);
  if (!placer.ok()) return Coded(placer.status(), StatusCode::kInvalidArgument);
  return std::unique_ptr<DecisionSession>(
      new DecisionSession(std::move(placer).value(), placement, cluster.name));
}

Result<std::unique_ptr<DecisionSession>> DecisionSession::Open(const std::string& cluster_yaml,
                                                               const std::string& placement,
                                                               const PolicyRegistry& registry,
                                                               uint64_t seed) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(cluster_yaml, ec))
    return Status::Error(StatusCode::kNotFound, cluster_yaml + ": no such file");
  auto spec = traces::ReadClusterYaml(cluster_yaml);
  if (!spec.ok()) return Coded(spec.status(), StatusCode::kInvalidArgument);
  return Create(spec.value(), placement, registry, seed);
}

DecisionSession::DecisionSession(std::unique_ptr<Placer> placer, std::string policy,
                                 std::string cluster)
    : placer_(std::move(placer)), policy_(std::move(policy)), cluster_name_(std::move(cluster)) {
  const ClusterState& c = placer_->state();
  for (NodeIndex n = 0; n < c.num_nodes(); ++n) index_.emplace(c.node(n).name, n);
}

int64_t DecisionSession::NodeIndexOf(const std::string& node) const {
  auto it = index_.find(node);
  return it == index_.end() ? -1 : static_cast<int64_t>(it->second);
}

std::string DecisionSession::WhyNot(const Job& job) const {
  const ClusterState& c = placer_->state();
  const ModelMask mask = c.ResolveModels(job.gpu_models);
  if (mask == 0) {
    std::string models;
    for (const auto& m : job.gpu_models) models += (models.empty() ? "" : ", ") + m;
    return "no GPU model of the cluster is allowed (job allows " + models + ")";
  }
  bool ever = false;
  for (NodeIndex n = 0; n < c.num_nodes() && !ever; ++n) ever = c.CouldEverHost(n, job.task, mask);
  if (!ever) return "no node of the cluster could host a task of this job even when empty";
  std::string why = "the free resources do not fit the job now";
  if (!drained_.empty())
    why += " (" + std::to_string(drained_.size()) + (drained_.size() == 1 ? " node" : " nodes") +
           " drained)";
  return why;
}

Status DecisionSession::Started(const std::string& id, const Job& job, const Placement& p) {
  const auto bad = [](const std::string& m) {
    return Status::Error(StatusCode::kInvalidArgument, m);
  };
  if (id.empty()) return bad("id: expected a non-empty job id");
  if (running_.count(id)) return bad("job '" + id + "' is running already");
  for (const TaskPlacement& t : p)
    if (t.node >= num_nodes())
      return Status::Error(StatusCode::kNotFound,
                           "job '" + id + "': no node of index " + std::to_string(t.node));
  if (Status s = placer_->Started(id, job, p); !s.ok()) return bad(s.message());
  running_.emplace(id, Running{job.task, p});
  return Status::Ok();
}

Status DecisionSession::Finished(const std::string& id) {
  auto it = running_.find(id);
  if (it == running_.end())
    return Status::Error(StatusCode::kNotFound, "job '" + id + "' is not running");
  if (Status s = placer_->Finished(id); !s.ok()) return s;
  running_.erase(it);
  return Status::Ok();
}

Status DecisionSession::SetDrained(const std::string& node, bool drained) {
  const int64_t n = NodeIndexOf(node);
  if (n < 0) return Status::Error(StatusCode::kNotFound, "no node '" + node + "'");
  if (Status s = placer_->SetDrained(node, drained); !s.ok()) return s;
  if (drained)
    drained_.insert(static_cast<NodeIndex>(n));
  else
    drained_.erase(static_cast<NodeIndex>(n));
  return Status::Ok();
}

NodeFree DecisionSession::Free(NodeIndex n) const {
  const ClusterState& c = placer_->state();
  const NodeInfo& info = c.node(n);
  NodeFree f;
  f.name = info.name;
  f.gpu_model = info.model >= 0 ? c.spec().models[static_cast<size_t>(info.model)].name : "";
  f.gpus = info.gpus;
  f.drained = drained_.count(n) > 0;
  f.tasks = c.tasks_on(n);
  if (!f.drained) {
    f.free_cpu_milli = c.free_cpu(n);
    f.free_mem_bytes = c.free_mem(n);
    for (int g = 0; g < info.gpus; ++g) f.gpu_free_milli.push_back(c.gpu_free_milli(n, g));
  } else {
    // The state holds a drained node's free resources; what is really free
    // is the node less its running tasks (and the holds count as tasks).
    f.free_cpu_milli = info.cpu_milli;
    f.free_mem_bytes = info.mem_bytes;
    f.gpu_free_milli.assign(static_cast<size_t>(info.gpus), 1000);
    f.tasks = 0;
    for (const auto& [id, r] : running_)
      for (const TaskPlacement& t : r.where) {
        if (t.node != n) continue;
        ++f.tasks;
        f.free_cpu_milli -= r.task.cpu_milli;
        f.free_mem_bytes -= r.task.mem_bytes;
        for (int g = 0; g < info.gpus; ++g)
          if (t.gpu_mask >> g & 1) f.gpu_free_milli[static_cast<size_t>(g)] -= r.task.gpu_milli;
      }
  }
  for (int32_t m : f.gpu_free_milli) f.free_gpus += m == 1000;
  return f;
}

}  // namespace utilsim
