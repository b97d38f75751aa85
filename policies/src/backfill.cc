#include "utilsim/policies/backfill.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace utilsim {

Micros BackfillEstimate(const Job& j) {
  if (j.walltime_limit && j.walltime_limit->us > 0) return *j.walltime_limit;
  return j.runtime;
}

namespace {

class EasyBackfill final : public Scheduler {
 public:
  EasyBackfill(std::string label, std::unique_ptr<PlacementPolicy> placement)
      : label_(std::move(label)), placement_(std::move(placement)) {}

  std::string label() const override { return label_; }
  PolicyId queue_policy() const override { return {"easy-backfill", "1"}; }
  PolicyId placement_policy() const override { return placement_->id(); }
  Status Init(const ClusterState&, const Workload& w) override {
    w_ = &w;
    placement_->Init(w);
    return Status::Ok();
  }
  void OnArrival(JobIndex j, Micros) override { queue_.insert({w_->jobs[j].submit, j}); }
  void OnFinish(JobIndex, Micros) override {}
  Micros NextWakeup(Micros) const override { return kNever; }
  size_t queued() const override { return queue_.size(); }

  Status Pass(PassContext& ctx) override {
    ClusterState& c = ctx.cluster();
    // 1. Start jobs in order while they fit.
    auto it = queue_.begin();
    while (it != queue_.end()) {
      const JobIndex j = it->second;
      auto p = placement_->Place(w_->jobs[j], ctx.mask(j), c);
      if (!p) break;
      if (Status s = ctx.Start(j, *p); !s.ok()) return s;
      it = queue_.erase(it);
    }
    if (it == queue_.end()) return Status::Ok();
    // 2. Reserve for the head.
    const JobIndex head = it->second;
    ClusterState shadow_state = c;
    Micros shadow = kNever;
    if (!Reserve(ctx, head, &shadow_state, &shadow)) return Status::Ok();
    // 3. Backfill behind it.
    std::set<JobShape> no_fit_now;
    const Micros now = ctx.now();
    for (++it; it != queue_.end();) {
      const JobIndex j = it->second;
      const Job& job = w_->jobs[j];
      const ModelMask mask = ctx.mask(j);
      const JobShape shape = ShapeOf(job, mask);
      if (no_fit_now.count(shape)) {
        ++it;
        continue;
      }
      auto p = placement_->Place(job, mask, c);
      if (!p) {
        no_fit_now.insert(shape);
        ++it;
        continue;
      }
      bool ok = now + BackfillEstimate(job) <= shadow;
      if (!ok) ok = FitsBeside(*p, job.task, &shadow_state);
      if (!ok) {
        ++it;
        continue;
      }
      if (Status s = ctx.Start(j, *p); !s.ok()) return s;
      it = queue_.erase(it);
    }
    return Status::Ok();
  }

 private:
  // Releases running jobs on *state by estimated end until `head` fits;
  // reserves it there. False if it never fits.
  bool Reserve(PassContext& ctx, JobIndex head, ClusterState* state, Micros* shadow) {
    std::vector<std::pair<Micros, JobIndex>> ends;
    for (JobIndex r : ctx.running()) {
      const Micros end = std::max(ctx.started_at(r) + BackfillEstimate(w_->jobs[r]), ctx.now());
      ends.emplace_back(end, r);
    }
    std::sort(ends.begin(), ends.end());
    const Job& hj = w_->jobs[head];
    for (size_t i = 0; i < ends.size();) {
      const Micros t = ends[i].first;
      for (; i < ends.size() && ends[i].first == t; ++i) {
        const JobIndex r = ends[i].second;
        for (const auto& tp : ctx.placement_of(r)) state->Release(tp, w_->jobs[r].task);
      }
      auto p = placement_->Place(hj, ctx.mask(head), *state);
      if (p) {
        for (const auto& tp : *p) (void)state->Allocate(tp, hj.task);
        *shadow = t;
        return true;
      }
    }
    return false;
  }

  // Claims p on the shadow state if every task still fits there.
  static bool FitsBeside(const Placement& p, const TaskDemand& d, ClusterState* state) {
    for (size_t k = 0; k < p.size(); ++k) {
      if (!state->Allocate(p[k], d).ok()) {
        for (size_t m = 0; m < k; ++m) state->Release(p[m], d);
        return false;
      }
    }
    return true;
  }

  std::string label_;
  std::unique_ptr<PlacementPolicy> placement_;
  const Workload* w_ = nullptr;
  std::set<std::pair<Micros, JobIndex>> queue_;
};

}  // namespace

std::unique_ptr<Scheduler> MakeEasyBackfill(std::string label,
                                            std::unique_ptr<PlacementPolicy> placement) {
  return std::make_unique<EasyBackfill>(std::move(label), std::move(placement));
}

}  // namespace utilsim
