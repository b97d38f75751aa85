// SlurmModel::Advise (slurm_model.h): the pending GPU jobs as Placer jobs,
// and the list schedule that gives each its placement and estimated start.
#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <tuple>

#include "utilsim/engine/units.h"
#include "utilsim/live/slurm_model.h"
#include "utilsim/policies/placement_policy.h"
#include "utilsim/traces/slurm_text.h"

namespace utilsim::live {

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find(',', b);
    if (e == std::string::npos) e = s.size();
    if (e > b) out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

std::set<std::string> Hosts(const std::string& hostlist) {
  std::set<std::string> out;
  if (hostlist.empty()) return out;
  auto names = traces::ExpandHostlist(hostlist);
  if (names.ok()) out.insert(names.value().begin(), names.value().end());
  return out;
}

int64_t CeilDiv(int64_t a, int64_t b) { return b <= 0 ? a : (a + b - 1) / b; }

}  // namespace

struct SlurmModel::Pending {
  const SlurmJobInfo* info = nullptr;
  Job job;
  std::vector<NodeIndex> candidates;
  bool whole_mem = false;
  int64_t limit_s = -1;  // -1 unlimited
  std::string why;       // set: not advised (held, cannot be modelled)
  // Candidate-set key for the shape cache: jobs with the same shape and
  // candidates fit or fail together.
  std::string where_key;
};

std::vector<SlurmModel::Pending> SlurmModel::PendingJobs() const {
  std::vector<Pending> out;
  std::vector<const SlurmJobInfo*> order;
  for (const SlurmJobInfo& j : jobs_) {
    if (!j.Pending() || j.TotalGpus() <= 0) continue;
    const std::vector<std::string> parts = SplitComma(j.partition);
    if (!options_.partitions.empty()) {
      bool ok = false;
      for (const std::string& p : parts)
        ok = ok || std::find(options_.partitions.begin(), options_.partitions.end(), p) !=
                       options_.partitions.end();
      if (!ok) continue;
    }
    order.push_back(&j);
  }
  std::stable_sort(order.begin(), order.end(), [](const SlurmJobInfo* a, const SlurmJobInfo* b) {
    return std::make_tuple(-a->priority, a->submit_time, a->job_id) <
           std::make_tuple(-b->priority, b->submit_time, b->job_id);
  });
  if (order.size() > static_cast<size_t>(std::max(0, options_.max_jobs)))
    order.resize(static_cast<size_t>(std::max(0, options_.max_jobs)));
  for (const SlurmJobInfo* j : order) {
    Pending p;
    p.info = j;
    const int32_t tasks = std::max(1, j->node_count);
    p.job.name = j->display_id;
    p.job.tasks = tasks;
    p.job.priority = 0;
    int64_t gpus = j->gpus_per_node > 0 ? j->gpus_per_node : CeilDiv(j->gpus_per_job, tasks);
    if (gpus > 64) p.why = "asks " + std::to_string(gpus) + " GPUs per node";
    p.job.task.gpus = static_cast<int32_t>(std::min<int64_t>(gpus, 64));
    const int64_t cpus = std::max<int64_t>(1, CeilDiv(j->cpus, tasks));
    p.job.task.cpu_milli = cpus * kMilliPerUnit;
    if (j->memory_per_node_mib >= 0) {
      p.job.task.mem_bytes = j->memory_per_node_mib * kMiB;
    } else if (j->memory_per_cpu_mib >= 0) {
      p.job.task.mem_bytes = j->memory_per_cpu_mib * cpus * kMiB;
    } else {
      p.whole_mem = true;
    }
    if (!j->gpu_type.empty()) {
      p.job.gpu_models = {j->gpu_type};
      if (spec_.FindModel(j->gpu_type) < 0 && p.why.empty())
        p.why = "no node has GPUs of type " + j->gpu_type;
    }
    p.job.runtime = Seconds(1);
    p.limit_s = j->time_limit_min >= 0 ? j->time_limit_min * 60 : -1;
    if (j->Held() && p.why.empty()) p.why = "held (" + j->reason + ")";
    const std::vector<std::string> parts = SplitComma(j->partition);
    const std::set<std::string> excluded = Hosts(j->excluded_nodes);
    const std::set<std::string> required = Hosts(j->required_nodes);
    for (const SlurmNodeInfo& n : nodes_) {
      const int64_t idx = placer_->NodeIndexOf(n.name);
      if (idx < 0 || !n.Schedulable() || excluded.count(n.name)) continue;
      if (!required.empty() && !required.count(n.name)) continue;
      bool in = parts.empty();
      for (const std::string& part : parts)
        in = in || std::find(n.partitions.begin(), n.partitions.end(), part) != n.partitions.end();
      if (in) p.candidates.push_back(static_cast<NodeIndex>(idx));
    }
    p.where_key = j->partition + "|" + j->excluded_nodes + "|" + j->required_nodes + "|" +
                  j->gpu_type + (p.whole_mem ? "|whole" : "");
    if (p.candidates.empty() && p.why.empty())
      p.why = "no schedulable node in partition " + j->partition;
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<SlurmAdvice> SlurmModel::Advise(int64_t now_unix) {
  std::vector<Pending> pending = PendingJobs();
  std::vector<SlurmAdvice> out(pending.size());
  for (size_t i = 0; i < pending.size(); ++i) {
    const SlurmJobInfo& j = *pending[i].info;
    SlurmAdvice& a = out[i];
    a.job = j.display_id;
    a.job_id = j.job_id;
    a.partition = j.partition;
    a.user = j.user;
    a.account = j.account;
    a.slurm_reason = j.reason;
    a.priority = j.priority;
    a.tasks = pending[i].job.tasks;
    a.task = pending[i].job.task;
    a.gpu_model = j.gpu_type;
    a.whole_node_memory = pending[i].whole_mem;
    a.held = j.Held();
    a.why = pending[i].why;
    if (j.start_time > now_unix) a.slurm_start_unix = j.start_time;
  }
  auto fresh = Fresh();
  if (!fresh.ok()) {
    for (SlurmAdvice& a : out)
      if (a.why.empty()) a.why = "model: " + fresh.status().message();
    return out;
  }
  Placer& s = *fresh.value();
  const ClusterState& st = s.state();
  size_t schedulable = 0;
  for (const SlurmNodeInfo& n : nodes_)
    schedulable += n.Schedulable() && s.NodeIndexOf(n.name) >= 0;

  using Event = std::pair<int64_t, std::string>;  // (end, placer id)
  std::priority_queue<Event, std::vector<Event>, std::greater<>> ends;
  for (const Holding& h : held_)
    if (h.end_unix > 0) ends.push({std::max(h.end_unix, now_unix), h.id});
  // Units that start together: a het job's components (in offset order),
  // else one job each; in the order of their first member.
  std::vector<std::vector<size_t>> units;
  std::map<int64_t, size_t> het_unit;
  for (size_t i = 0; i < pending.size(); ++i) {
    const int64_t het = pending[i].info->het_job_id;
    if (het > 0 && het_unit.count(het)) {
      units[het_unit[het]].push_back(i);
      continue;
    }
    if (het > 0) het_unit[het] = units.size();
    units.push_back({i});
  }
  for (auto& u : units) {
    std::stable_sort(u.begin(), u.end(), [&](size_t a, size_t b) {
      return pending[a].info->het_job_offset < pending[b].info->het_job_offset;
    });
    // A unit with a member that is not advised (held, cannot be modelled)
    // does not start: its other members say why.
    for (size_t i : u)
      if (!pending[i].why.empty())
        for (size_t k : u)
          if (pending[k].why.empty())
            pending[k].why =
                "het job component " + pending[i].info->display_id + ": " + pending[i].why;
  }
  for (size_t i = 0; i < pending.size(); ++i) out[i].why = pending[i].why;
  std::vector<bool> unit_done(units.size(), false);
  for (size_t u = 0; u < units.size(); ++u) unit_done[u] = !pending[units[u][0]].why.empty();
  const size_t depth = static_cast<size_t>(std::max(1, options_.rank_depth));

  // Tries member i at this state: its ranked placements, or none.
  auto rank = [&](size_t i) {
    Pending& p = pending[i];
    std::vector<NodeIndex> cand = p.candidates;
    if (p.whole_mem) {
      std::erase_if(cand, [&](NodeIndex n) { return st.free_mem(n) != st.node(n).mem_bytes; });
      if (cand.empty()) return std::vector<Placement>{};
      int64_t least = std::numeric_limits<int64_t>::max();
      for (NodeIndex n : cand) least = std::min(least, st.node(n).mem_bytes);
      p.job.task.mem_bytes = least;
    }
    return cand.size() == schedulable && !p.whole_mem ? s.Rank(p.job, depth)
                                                      : s.RankAmong(p.job, depth, cand);
  };
  int64_t t = now_unix;
  for (;;) {
    std::set<std::pair<JobShape, std::string>> failed;  // this instant's failures
    for (size_t u = 0; u < units.size(); ++u) {
      if (unit_done[u]) continue;
      const std::vector<size_t>& members = units[u];
      const bool single = members.size() == 1;
      const Pending& first = pending[members[0]];
      const auto key = std::make_pair(ShapeOf(first.job, kAnyModel), first.where_key);
      if (single && !first.whole_mem && failed.count(key)) continue;
      std::vector<std::pair<size_t, std::vector<Placement>>> placed;
      bool ok = true;
      for (size_t i : members) {
        std::vector<Placement> ranked = rank(i);
        if (ranked.empty() ||
            !s.Started("pending:" + pending[i].info->display_id, pending[i].job, ranked[0]).ok()) {
          ok = false;
          break;
        }
        placed.push_back({i, std::move(ranked)});
      }
      if (!ok) {
        for (const auto& [i, r] : placed)
          (void)s.Finished("pending:" + pending[i].info->display_id);
        if (single) failed.insert(key);
        continue;
      }
      for (auto& [i, ranked] : placed) {
        SlurmAdvice& a = out[i];
        a.now = t == now_unix;
        a.est_start_unix = t;
        a.task = pending[i].job.task;
        a.placement = s.Describe(ranked[0]);
        for (const Placement& r : ranked) {
          std::vector<std::string> names;
          for (const TaskPlacement& tp : r) names.push_back(st.node(tp.node).name);
          a.ranked.push_back(std::move(names));
        }
        a.nodes = a.ranked[0];
        std::set<NodeIndex> on;
        for (const TaskPlacement& tp : ranked[0]) on.insert(tp.node);
        for (NodeIndex n : on) a.stranded_after += StrandedGpus(st, n);
        if (pending[i].limit_s >= 0)
          ends.push({t + std::max<int64_t>(pending[i].limit_s, 1),
                     "pending:" + pending[i].info->display_id});
      }
      unit_done[u] = true;
    }
    if (ends.empty()) break;
    t = ends.top().first;
    while (!ends.empty() && ends.top().first == t) {
      (void)s.Finished(ends.top().second);
      ends.pop();
    }
  }
  std::vector<bool> done(pending.size(), false);
  for (size_t i = 0; i < pending.size(); ++i)
    done[i] = !out[i].nodes.empty() || !pending[i].why.empty();
  // What is left never fit: on no node at all, or not while the jobs
  // without a time limit run.
  for (size_t i = 0; i < pending.size(); ++i) {
    if (done[i]) continue;
    bool fits_empty = false;
    for (NodeIndex n : pending[i].candidates) {
      const NodeInfo& node = st.node(n);
      const TaskDemand& d = pending[i].job.task;
      fits_empty =
          fits_empty || (node.gpus >= d.gpus && node.cpu_milli >= d.cpu_milli &&
                         (pending[i].whole_mem || node.mem_bytes >= d.mem_bytes) &&
                         (pending[i].job.gpu_models.empty() ||
                          st.spec().models[static_cast<size_t>(std::max(0, node.model))].name ==
                              pending[i].job.gpu_models[0]));
    }
    out[i].why = fits_empty ? "no start while the jobs without a time limit run"
                            : "fits on no node of its partition, even empty";
  }
  return out;
}

}  // namespace utilsim::live
