#include "utilsim/policies/composed_scheduler.h"

#include <set>
#include <tuple>

namespace utilsim {

ComposedScheduler::ComposedScheduler(std::string label, std::unique_ptr<QueuePolicy> queue,
                                     std::unique_ptr<PlacementPolicy> placement)
    : label_(std::move(label)), queue_(std::move(queue)), placement_(std::move(placement)) {}

Status ComposedScheduler::Init(const ClusterState& /*cluster*/, const Workload& w) {
  queue_->Init(w);
  placement_->Init(w);
  return Status::Ok();
}

Status ComposedScheduler::Pass(PassContext& ctx) {
  // Resources only shrink during a pass, so a shape that failed once fails
  // again for every later job of the same shape (Borg's equivalence classes).
  std::set<JobShape> failed;
  const Workload& w = ctx.workload();
  const bool blocking = queue_->blocking();
  Status error;
  started_.clear();
  placement_->BeginPass(ctx);
  queue_->Visit(ctx.now(), [&](JobIndex j) {
    const Job& job = w.jobs[j];
    const ModelMask mask = ctx.mask(j);
    const JobShape shape = ShapeOf(job, mask);
    if (failed.count(shape)) {
      ctx.Waiting(j, WaitCause::kResources);
      return !blocking;
    }
    std::optional<Placement> p = placement_->Place(job, mask, ctx.cluster());
    if (!p) {
      failed.insert(shape);
      ctx.Waiting(j, WaitCause::kResources);
      return !blocking;
    }
    error = ctx.Start(j, *p);
    if (!error.ok()) return false;
    started_.push_back(j);
    return true;
  });
  for (JobIndex j : started_) {
    queue_->Remove(j);
    queue_->OnStart(j, ctx.now());
  }
  return error;
}

}  // namespace utilsim
