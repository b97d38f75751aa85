// A minimal scheduler for engine tests: strict FIFO, first fit, with an
// optional override that returns a deliberately bad placement.
#pragma once

#include <deque>

#include "utilsim/engine/scheduler.h"

namespace utilsim::testing {

class FakeFifo : public Scheduler {
 public:
  bool corrupt = false;  // return a placement with the wrong number of tasks

  std::string label() const override { return "fake"; }
  PolicyId queue_policy() const override { return {"fake-fifo", "0"}; }
  PolicyId placement_policy() const override { return {"fake-first", "0"}; }
  Status Init(const ClusterState&, const Workload&) override { return Status::Ok(); }
  void OnArrival(JobIndex j, Micros) override { q_.push_back(j); }
  void OnFinish(JobIndex, Micros) override {}
  Micros NextWakeup(Micros) const override { return kNever; }
  size_t queued() const override { return q_.size(); }

  Status Pass(PassContext& ctx) override {
    while (!q_.empty()) {
      const JobIndex j = q_.front();
      const Job& job = ctx.workload().jobs[j];
      Placement p;
      ClusterState& c = ctx.cluster();
      bool ok = true;
      for (int t = 0; t < job.tasks; ++t) {
        const int64_t n = c.FindFirst(0, job.task, ctx.mask(j));
        if (n < 0) {
          ok = false;
          break;
        }
        TaskPlacement tp{static_cast<NodeIndex>(n),
                         c.PickGpus(static_cast<NodeIndex>(n), job.task)};
        (void)c.Allocate(tp, job.task);
        p.push_back(tp);
      }
      for (auto& tp : p) c.Release(tp, job.task);
      if (!ok) return Status::Ok();
      if (corrupt) p.push_back(p.front());
      q_.pop_front();
      if (Status s = ctx.Start(j, p); !s.ok()) return s;
    }
    return Status::Ok();
  }

 private:
  std::deque<JobIndex> q_;
};

}  // namespace utilsim::testing
