// `priority-preempt`: priority order with preemption of lower priorities, and
// ChooseVictims, shared with tiresias.
#include <algorithm>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "utilsim/policies/queues_extra.h"

namespace utilsim {

std::optional<std::vector<JobIndex>> ChooseVictims(PassContext& ctx, PlacementPolicy& placement,
                                                   JobIndex j,
                                                   const std::vector<JobIndex>& candidates) {
  if (candidates.empty()) return std::nullopt;
  const Workload& w = ctx.workload();
  ClusterState scratch = ctx.cluster();
  std::vector<JobIndex> out;
  for (JobIndex r : candidates) {
    for (const auto& tp : ctx.placement_of(r)) scratch.Release(tp, ctx.granted(r));
    out.push_back(r);
    if (placement.Place(w.jobs[j], ctx.mask(j), scratch)) return out;
  }
  return std::nullopt;
}

namespace {

class PriorityPreempt final : public Scheduler {
 public:
  PriorityPreempt(std::string label, std::unique_ptr<PlacementPolicy> placement)
      : label_(std::move(label)), placement_(std::move(placement)) {}

  std::string label() const override { return label_; }
  PolicyId queue_policy() const override { return {"priority-preempt", "1"}; }
  PolicyId placement_policy() const override { return placement_->id(); }
  Status Init(const ClusterState& /*cluster*/, const Workload& w) override {
    w_ = &w;
    placement_->Init(w);
    queue_.clear();
    running_.clear();
    return Status::Ok();
  }
  void OnArrival(JobIndex j, Micros /*now*/) override { queue_.insert(Key(j)); }
  void OnFinish(JobIndex j, Micros /*now*/) override { running_.erase(j); }
  Micros NextWakeup(Micros now) const override { return placement_->NextWakeup(now); }
  size_t queued() const override { return queue_.size(); }

  // Jobs in priority order; one that does not fit preempts lower priorities
  // when that makes room. Jobs started earlier in the pass have a priority
  // >= every later job's, so they are never victims in the same pass.
  Status Pass(PassContext& ctx) override {
    placement_->BeginPass(ctx);
    std::set<JobShape> no_fit;                          // cleared when a preemption frees resources
    std::set<std::pair<JobShape, int32_t>> no_preempt;  // (shape, priority): valid all pass
    for (auto it = queue_.begin(); it != queue_.end();) {
      const JobIndex j = std::get<2>(*it);
      const Job& job = w_->jobs[j];
      const ModelMask mask = ctx.mask(j);
      const JobShape shape = ShapeOf(job, mask);
      std::optional<Placement> p;
      if (!no_fit.count(shape)) p = placement_->Place(job, mask, ctx.cluster());
      if (!p && !no_preempt.count({shape, job.priority})) {
        std::vector<JobIndex> victims;
        if (Status s = Victims(ctx, j, &victims); !s.ok()) return s;
        if (victims.empty()) {
          no_preempt.insert({shape, job.priority});
        } else {
          for (JobIndex v : victims) {
            if (Status s = ctx.Preempt(v); !s.ok()) return s;
            running_.erase(v);
            queue_.insert(Key(v));  // lower priority: after `it`, visited later
          }
          no_fit.clear();
          // Placement state built at the start of the pass (colocate's
          // loads) still counts the victims: rebuild it.
          placement_->BeginPass(ctx);
          p = placement_->Place(job, mask, ctx.cluster());
        }
      }
      if (!p) {
        no_fit.insert(shape);
        ctx.Waiting(j, WaitCause::kResources);
        ++it;
        continue;
      }
      if (Status s = ctx.Start(j, *p); !s.ok()) return s;
      it = queue_.erase(it);
      running_.insert(j);
    }
    return Status::Ok();
  }

 private:
  // (-priority, submit, index).
  using Entry = std::tuple<int64_t, Micros, JobIndex>;
  Entry Key(JobIndex j) const {
    const Job& job = w_->jobs[j];
    return {-int64_t{job.priority}, job.submit, j};
  }

  // The running jobs of strictly lower priority than j to preempt so that j
  // fits (lowest priority, then most recently started, then higher index);
  // empty when even all of them would not make room.
  Status Victims(PassContext& ctx, JobIndex j, std::vector<JobIndex>* out) const {
    std::vector<std::tuple<int32_t, Micros, JobIndex>> order;
    const int32_t prio = w_->jobs[j].priority;
    for (JobIndex r : running_)
      if (w_->jobs[r].priority < prio)
        order.emplace_back(w_->jobs[r].priority, ctx.started_at(r), r);
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
      return std::make_pair(std::get<1>(a), std::get<2>(a)) >
             std::make_pair(std::get<1>(b), std::get<2>(b));
    });
    std::vector<JobIndex> candidates;
    for (const auto& o : order) candidates.push_back(std::get<2>(o));
    if (auto v = ChooseVictims(ctx, *placement_, j, candidates)) *out = std::move(*v);
    return Status::Ok();
  }

  std::string label_;
  std::unique_ptr<PlacementPolicy> placement_;
  const Workload* w_ = nullptr;
  std::set<Entry> queue_;
  std::set<JobIndex> running_;
};

}  // namespace

std::unique_ptr<Scheduler> MakePriorityPreempt(std::string label,
                                               std::unique_ptr<PlacementPolicy> placement) {
  return std::make_unique<PriorityPreempt>(std::move(label), std::move(placement));
}

}  // namespace utilsim
