// Preemption through PassContext::Preempt, with a restart cost.
#include <gtest/gtest.h>

#include <deque>

#include "utilsim/engine/simulator.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// Priority scheduler for one 1-GPU node: a queued job of higher priority
// than the running one preempts it.
class PreemptingFake final : public Scheduler {
 public:
  std::string label() const override { return "preempt-fake"; }
  PolicyId queue_policy() const override { return {"preempt-fake", "0"}; }
  PolicyId placement_policy() const override { return {"only-node", "0"}; }
  Status Init(const ClusterState&, const Workload& w) override {
    w_ = &w;
    return Status::Ok();
  }
  void OnArrival(JobIndex j, Micros) override { q_.push_back(j); }
  void OnFinish(JobIndex, Micros) override {}
  Micros NextWakeup(Micros) const override { return kNever; }
  size_t queued() const override { return q_.size(); }
  Status Pass(PassContext& ctx) override {
    // Highest priority first.
    std::stable_sort(q_.begin(), q_.end(), [&](JobIndex a, JobIndex b) {
      return w_->jobs[a].priority > w_->jobs[b].priority;
    });
    while (!q_.empty()) {
      const JobIndex j = q_.front();
      if (ctx.cluster().free_whole_gpus(0) == 0) {
        const JobIndex r = ctx.running().front();
        if (w_->jobs[r].priority >= w_->jobs[j].priority) return Status::Ok();
        work_at_preempt = ctx.work_done_s(r);
        if (Status s = ctx.Preempt(r); !s.ok()) return s;
        q_.push_back(r);
      }
      q_.pop_front();
      if (Status s = ctx.Start(j, {TaskPlacement{0, 1}}); !s.ok()) return s;
    }
    return Status::Ok();
  }
  double work_at_preempt = -1;

 private:
  const Workload* w_ = nullptr;
  std::deque<JobIndex> q_;
};

TEST(Preemption, HigherPriorityPreemptsAndTheVictimRedoesTheRestartCost) {
  // One 1-GPU node. a: t=0, 100 s, priority 0. b: t=30, 100 s, priority 5.
  // b preempts a at 30 (a has done 30 s); restart cost 10 s: a keeps 20 s
  // and needs 80 s more. b runs 30..130; a restarts at 130 and ends at 210.
  // a held its GPU 30 + 80 = 110 s; its useful work is its 100 s (util 1).
  ClusterSpec c;
  c.name = "one";
  c.models = {{"G", 0, 1.0}};
  c.groups = {{"n", 1, "G", 1, 8000, 8LL << 30, 0}};
  Workload w;
  Job a;
  a.name = "a";
  a.task.gpus = 1;
  a.runtime = Seconds(100);
  Job b = a;
  b.name = "b";
  b.submit = Seconds(30);
  b.priority = 5;
  w.jobs = {a, b};
  w.Finalize();
  PreemptingFake s;
  SimConfig cfg;
  cfg.restart_cost = Seconds(10);
  cfg.window = Window::kFull;
  auto r = Simulate(c, w, s, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(s.work_at_preempt, 30.0);
  const auto& ja = r.value().jobs[0];
  const auto& jb = r.value().jobs[1];
  EXPECT_EQ(jb.start, Seconds(30));
  EXPECT_EQ(jb.finish, Seconds(130));
  EXPECT_EQ(ja.start, Seconds(0));  // first start
  EXPECT_EQ(ja.finish, Seconds(210));
  EXPECT_EQ(ja.preemptions, 1);
  EXPECT_DOUBLE_EQ(ja.alloc_gpu_s, 110);
  EXPECT_DOUBLE_EQ(ja.useful_gpu_s, 100);
  EXPECT_DOUBLE_EQ(ja.idle_gpu_s[0], 10);  // the redone work
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
