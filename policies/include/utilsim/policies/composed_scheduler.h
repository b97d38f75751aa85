// A Scheduler made of a queue-order policy and a placement policy: each pass
// visits the queue in order and places each job; a blocking queue stops at
// the first job that cannot start.
#pragma once

#include <algorithm>
#include <memory>
#include <string>

#include "utilsim/engine/scheduler.h"
#include "utilsim/policies/placement_policy.h"
#include "utilsim/policies/queue_policy.h"

namespace utilsim {

class ComposedScheduler final : public Scheduler {
 public:
  ComposedScheduler(std::string label, std::unique_ptr<QueuePolicy> queue,
                    std::unique_ptr<PlacementPolicy> placement);

  std::string label() const override { return label_; }
  PolicyId queue_policy() const override { return queue_->id(); }
  PolicyId placement_policy() const override { return placement_->id(); }
  Status Init(const ClusterState& cluster, const Workload& w) override;
  void OnArrival(JobIndex j, Micros now) override { queue_->Add(j, now); }
  void OnFinish(JobIndex j, Micros now) override { queue_->OnFinish(j, now); }
  Status Pass(PassContext& ctx) override;
  Micros NextWakeup(Micros now) const override {
    return std::min(queue_->NextWakeup(now), placement_->NextWakeup(now));
  }
  size_t queued() const override { return queue_->size(); }
  WaitCause unexamined_cause() const override { return queue_->unexamined_cause(); }

 private:
  std::string label_;
  std::unique_ptr<QueuePolicy> queue_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::vector<JobIndex> started_;
};

}  // namespace utilsim
