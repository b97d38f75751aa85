// Clusters that change (cluster_events.h, docs/cluster-events.md): nodes
// that go down and come back, drain, or are absent, and the jobs a node going
// down interrupts. Part of Simulation (simulation.h).
#include <algorithm>
#include <cmath>
#include <map>

#include "simulation.h"

namespace utilsim::internal {

static_assert(kDownCauses == std::tuple_size<decltype(Levels::down_gpus)>::value,
              "Levels::down_gpus has one entry per DownCause");

Status Simulation::InitClusterEvents() {
  cluster_events_ = cfg_.cluster_events;
  if (cluster_events_.empty()) return Status::Ok();
  if (cfg_.checkpoint_interval != kNever && cfg_.checkpoint_interval.us <= 0)
    return Status::Error("checkpoint interval must be > 0");
  for (const auto& k : cfg_.checkpoints_by_kind)
    if (k && ((k->interval != kNever && k->interval.us <= 0) || k->restart.us < 0))
      return Status::Error("checkpoints by job kind: interval must be > 0, restart >= 0");
  const NodeIndex nodes = cluster_.num_nodes();
  down_.assign(nodes, 0);
  drained_.assign(nodes, 0);
  pending_down_.assign(nodes, 0);
  down_count_.assign(nodes, 0);
  slow_.assign(nodes, {});
  node_pace_.assign(nodes, 1.0);
  // Names: each node's own, each group's (all its nodes), "*" (every node).
  std::map<std::string, std::vector<NodeIndex>> named;
  {
    NodeIndex n = 0;
    for (const NodeGroup& g : cluster_.spec().groups) {
      std::vector<NodeIndex>& all = named[g.name];
      for (int32_t k = 0; k < g.count; ++k, ++n) {
        all.push_back(n);
        if (g.count > 1) named[cluster_.node(n).name].push_back(n);
      }
    }
    std::vector<NodeIndex>& every = named["*"];
    for (NodeIndex i = 0; i < nodes; ++i) every.push_back(i);
  }
  // Time order; the list order among events of one instant.
  std::stable_sort(cluster_events_.begin(), cluster_events_.end(),
                   [](const ClusterEvent& a, const ClusterEvent& b) { return a.at < b.at; });
  event_nodes_.assign(cluster_events_.size(), {});
  for (size_t i = 0; i < cluster_events_.size(); ++i) {
    const ClusterEvent& e = cluster_events_[i];
    const std::string at = e.where.empty() ? std::string("cluster event") : e.where;
    if (Status s = CheckClusterEvent(e); !s.ok()) return s;
    std::vector<NodeIndex>& v = event_nodes_[i];
    for (const std::string& name : e.nodes) {
      auto it = named.find(name);
      if (it == named.end())
        return Status::Error(at + ": no node or node group named '" + name + "' in cluster '" +
                             cluster_.spec().name + "'");
      v.insert(v.end(), it->second.begin(), it->second.end());
    }
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  // Events at or before the first submission are the initial state.
  for (size_t i = 0; i < cluster_events_.size() && cluster_events_[i].at <= window_start_; ++i)
    DoNodeEvent(i);
  return Status::Ok();
}

void Simulation::DoNodeEvent(size_t i) {
  const ClusterEvent& e = cluster_events_[i];
  const std::vector<NodeIndex>& nodes = event_nodes_[i];
  switch (e.change) {
    case NodeChange::kDown: {
      if (e.kill)
        for (JobIndex j : RunningOn(nodes)) Interrupt(j);
      for (NodeIndex n : nodes) {
        ++down_count_[n];
        if (cluster_.tasks_on(n) == 0) {
          SetDown(n, e.cause);
        } else {  // drains; down once its last task ends (NodeEmptied)
          if (!Unavailable(n)) ++unavailable_nodes_;
          pending_down_[n] = static_cast<uint8_t>(static_cast<uint8_t>(e.cause) + 1);
          RefreshCordon(n);
        }
      }
      break;
    }
    case NodeChange::kUp:
      // Each up ends one down: a node two downs overlap on (two failures,
      // a failure in a maintenance window) is back after both.
      for (NodeIndex n : nodes) {
        if (down_count_[n] == 0 || --down_count_[n] > 0) continue;
        if (pending_down_[n] != 0) {
          pending_down_[n] = 0;
          if (!Unavailable(n)) --unavailable_nodes_;
          RefreshCordon(n);
        }
        if (down_[n] != 0) SetUp(n);
      }
      break;
    case NodeChange::kDrain:
    case NodeChange::kResume: {
      const uint8_t v = e.change == NodeChange::kDrain ? 1 : 0;
      for (NodeIndex n : nodes) {
        if (drained_[n] == v) continue;
        const bool was = Unavailable(n);
        drained_[n] = v;
        unavailable_nodes_ += static_cast<int64_t>(Unavailable(n)) - static_cast<int64_t>(was);
        RefreshCordon(n);
      }
      break;
    }
    case NodeChange::kSlow:
    case NodeChange::kSlowEnd: {
      for (NodeIndex n : nodes) {
        std::vector<double>& v = slow_[n];
        const bool was = !v.empty();
        if (e.change == NodeChange::kSlow) {
          v.push_back(e.speed);
        } else if (auto it = std::find(v.begin(), v.end(), e.speed); it != v.end()) {
          v.erase(it);  // an end without its start does nothing
        }
        node_pace_[n] = v.empty() ? 1.0 : *std::min_element(v.begin(), v.end());
        slow_nodes_ += static_cast<int64_t>(!v.empty()) - static_cast<int64_t>(was);
      }
      Repace(nodes);
      return;  // capacity unchanged: no pass
    }
  }
  // Capacity came back, or interrupted jobs are queued again.
  if (sched_.queued() > 0) SchedulePass(now_);
}

void Simulation::SetDown(NodeIndex n, DownCause c) {
  const bool was = Unavailable(n);
  pending_down_[n] = 0;
  if (node_state_[n] != 0) SetNodePower(n, 0);  // off or waking: its power state ends
  const int32_t gpus = cluster_.node(n).gpus;
  if (down_[n] != 0) {  // already down: only the cause changes
    down_gpus_[down_[n] - 1] -= gpus;
  } else {
    node_uw_total_ -= NodeUw(n);
    free_uw_total_ -= node_free_uw_[n];
    node_free_uw_[n] = 0;
  }
  down_[n] = static_cast<uint8_t>(static_cast<uint8_t>(c) + 1);
  down_gpus_[static_cast<size_t>(c)] += gpus;
  if (!was) ++unavailable_nodes_;
  UpdateStranded({TaskPlacement{n, 0}});  // a down node strands nothing
  RefreshCordon(n);
}

void Simulation::SetUp(NodeIndex n) {
  down_gpus_[down_[n] - 1] -= cluster_.node(n).gpus;
  down_[n] = 0;
  if (!Unavailable(n)) --unavailable_nodes_;
  node_uw_total_ += NodeUw(n);
  UpdateStranded({TaskPlacement{n, 0}});  // its free power and stranded GPUs again
  RefreshCordon(n);
  NodeEmptied(n);
}

double Simulation::Pace(JobIndex j) const {
  if (slow_nodes_ == 0) return 1.0;
  double pace = 1.0;
  for (const TaskPlacement& t : Run(j).placement) pace = std::min(pace, node_pace_[t.node]);
  return pace;
}

std::vector<JobIndex> Simulation::RunningOn(const std::vector<NodeIndex>& nodes) const {
  std::vector<uint8_t> hit(cluster_.num_nodes(), 0);
  for (NodeIndex n : nodes) hit[n] = 1;
  std::vector<JobIndex> jobs;
  for (JobIndex j : running_list_)
    for (const TaskPlacement& t : Run(j).placement)
      if (hit[t.node]) {
        jobs.push_back(j);
        break;
      }
  std::sort(jobs.begin(), jobs.end());
  return jobs;
}

void Simulation::Repace(const std::vector<NodeIndex>& nodes) {
  for (JobIndex j : RunningOn(nodes)) SetProgress(j, progress_->Evaluate(j, *this));
}

void Simulation::RefreshCordon(NodeIndex n) {
  cluster_.SetCordoned(n, node_state_[n] != 0 || Unavailable(n));
}

bool Simulation::FitsOnUnavailableNode(JobIndex j) const {
  for (NodeIndex n = 0; n < cluster_.num_nodes(); ++n)
    if (Unavailable(n) && cluster_.HostsResources(n, w_.jobs[j].task, masks_[j], true)) return true;
  return false;
}

void Simulation::Interrupt(JobIndex j) {
  JobRun& r = Run(j);
  Account(j);
  const auto& by_kind = cfg_.checkpoints_by_kind[static_cast<size_t>(w_.jobs[j].kind)];
  const Micros ci = by_kind ? by_kind->interval : cfg_.checkpoint_interval;
  const Micros restart = by_kind ? by_kind->restart : cfg_.restart_cost;
  double keep = 0;
  if (ci != kNever) {
    const double step = static_cast<double>(ci.us);
    keep = std::floor(r.done / step) * step;
  }
  keep = std::max(0.0, keep - static_cast<double>(restart.us));
  ++r.interruptions;
  StopRunning(j, std::min(keep, r.done));
  QueuedNow(j, false);
  Observe(EventKind::kInterrupt, j);
  sched_.OnKilled(j, now_);
}

}  // namespace utilsim::internal
