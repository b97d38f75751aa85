// `tiresias`: discretised 2D-LAS (Gu et al., NSDI'19; domain.md §5.9).
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "utilsim/engine/units.h"
#include "utilsim/policies/params.h"
#include "utilsim/policies/queues_extra.h"

namespace utilsim {
namespace {

class Tiresias final : public Scheduler {
 public:
  Tiresias(std::string label, std::unique_ptr<PlacementPolicy> placement,
           std::vector<double> thresholds)
      : label_(std::move(label)),
        placement_(std::move(placement)),
        thresholds_(std::move(thresholds)) {}

  std::string label() const override { return label_; }
  PolicyId queue_policy() const override {
    return {"tiresias", "1", "thresholds=" + FormatParamList(thresholds_)};
  }
  PolicyId placement_policy() const override { return placement_->id(); }
  Status Init(const ClusterState& /*cluster*/, const Workload& w) override {
    for (size_t i = 1; i < thresholds_.size(); ++i)
      if (!(thresholds_[i] > thresholds_[i - 1]))
        return Status::Error("tiresias: thresholds must be strictly increasing");
    w_ = &w;
    placement_->Init(w);
    attained_.assign(w.jobs.size(), 0.0);
    since_.assign(w.jobs.size(), Micros(0));
    waiting_.assign(thresholds_.size() + 1, {});
    running_.clear();
    return Status::Ok();
  }
  void OnArrival(JobIndex j, Micros /*now*/) override { Enqueue(j); }
  void OnFinish(JobIndex j, Micros now) override {
    Accrue(j, now);
    running_.erase(j);
  }
  size_t queued() const override {
    size_t n = 0;
    for (const auto& q : waiting_) n += q.size();
    return n;
  }

  Status Pass(PassContext& ctx) override {
    placement_->BeginPass(ctx);
    const Micros now = ctx.now();
    for (JobIndex r : running_) Accrue(r, now);
    std::set<JobShape> no_fit;                         // cleared when a preemption frees resources
    std::set<std::pair<JobShape, size_t>> no_preempt;  // stays valid for the whole pass
    for (size_t level = 0; level < waiting_.size(); ++level) {
      auto& q = waiting_[level];
      for (auto it = q.begin(); it != q.end();) {
        const JobIndex j = it->second;
        const Job& job = w_->jobs[j];
        const ModelMask mask = ctx.mask(j);
        const JobShape shape = ShapeOf(job, mask);
        std::optional<Placement> p;
        if (!no_fit.count(shape)) p = placement_->Place(job, mask, ctx.cluster());
        if (!p && !no_preempt.count({shape, level})) {
          if (Status s = TryPreempt(ctx, j, level, &p); !s.ok()) return s;
          if (p) {
            no_fit.clear();
          } else {
            no_preempt.insert({shape, level});
          }
        }
        if (!p) {
          no_fit.insert(shape);
          ctx.Waiting(j, WaitCause::kResources);
          ++it;
          continue;
        }
        if (Status s = ctx.Start(j, *p); !s.ok()) return s;
        it = q.erase(it);
        running_.insert(j);
        since_[j] = now;
      }
    }
    return Status::Ok();
  }

  // Next threshold crossing of a running job, while anything waits (with
  // nothing waiting a demotion changes nothing until the next arrival).
  Micros NextWakeup(Micros now) const override {
    if (queued() == 0) return kNever;
    Micros best = placement_->NextWakeup(now);
    for (JobIndex r : running_) {
      const double g = Gpus(r);
      const size_t level = Level(r);
      if (g <= 0 || level >= thresholds_.size()) continue;
      const double need_s = (thresholds_[level] - attained_[r]) / g;
      Micros t = since_[r] + Micros(static_cast<int64_t>(std::ceil(need_s * kMicrosPerSecond)));
      if (t <= now) t = now + Micros(1);
      best = std::min(best, t);
    }
    return best;
  }

 private:
  double Gpus(JobIndex j) const {
    const Job& job = w_->jobs[j];
    return job.tasks * static_cast<double>(job.task.total_gpu_milli()) / kMilliPerUnit;
  }
  // Queue index from attained service; a tolerance absorbs rounding at the
  // exact crossing time NextWakeup asked for.
  size_t Level(JobIndex j) const {
    size_t k = 0;
    while (k < thresholds_.size() && attained_[j] >= thresholds_[k] - 1e-6) ++k;
    return k;
  }
  void Accrue(JobIndex j, Micros now) {
    attained_[j] += Gpus(j) * (now - since_[j]).seconds();
    since_[j] = now;
  }
  void Enqueue(JobIndex j) { waiting_[Level(j)].insert({w_->jobs[j].submit, j}); }

  // Preempts running jobs of queues below `level` (lowest queue first, then
  // most recently started, then higher index) if that lets j fit; then sets
  // *p to j's placement. Preempts nothing otherwise.
  Status TryPreempt(PassContext& ctx, JobIndex j, size_t level, std::optional<Placement>* p) {
    std::vector<std::tuple<size_t, Micros, JobIndex>> order;
    for (JobIndex r : running_) {
      const size_t lr = Level(r);
      if (lr > level) order.emplace_back(lr, ctx.started_at(r), r);
    }
    if (order.empty()) return Status::Ok();
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a > b; });
    std::vector<JobIndex> candidates;
    for (const auto& o : order) candidates.push_back(std::get<2>(o));
    auto victims = ChooseVictims(ctx, *placement_, j, candidates);
    if (!victims) return Status::Ok();
    for (JobIndex v : *victims) {
      if (Status s = ctx.Preempt(v); !s.ok()) return s;
      Accrue(v, ctx.now());
      running_.erase(v);
      Enqueue(v);
    }
    placement_->BeginPass(ctx);  // its pass state (colocate's loads) counted the victims
    *p = placement_->Place(w_->jobs[j], ctx.mask(j), ctx.cluster());
    return Status::Ok();
  }

  std::string label_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::vector<double> thresholds_;
  const Workload* w_ = nullptr;
  std::vector<double> attained_;                                // GPU-seconds, as of since_
  std::vector<Micros> since_;                                   // last accrual time (running jobs)
  std::vector<std::set<std::pair<Micros, JobIndex>>> waiting_;  // per queue: (submit, index)
  std::set<JobIndex> running_;
};

}  // namespace

std::unique_ptr<Scheduler> MakeTiresias(std::string label,
                                        std::unique_ptr<PlacementPolicy> placement,
                                        std::vector<double> thresholds_gpu_s) {
  return std::make_unique<Tiresias>(std::move(label), std::move(placement),
                                    std::move(thresholds_gpu_s));
}

}  // namespace utilsim
