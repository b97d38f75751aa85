// EASY backfilling on a hand-computed scenario.
//
// Two nodes of 4 GPUs. Jobs (submit, GPUs x tasks, run time, walltime estimate):
//   A  0 s, 4,     100 s, 100 s     B  0 s, 2, 50 s, 50 s
//   C  1 s, 2 x 4,  10 s,  10 s     D  2 s, 2, 40 s, (40 s | 200 s)
//   E  3 s, 2,     200 s, 200 s
// first-fit placement. t=0: A -> n-0 (full), B -> n-1 (2 left).
// t=1: C needs both nodes: blocked, it is the head. Reservation: releasing by
// estimated end, B's end (50 s) frees n-1 but n-0 is busy until A's end at
// 100 s: shadow time 100 s, C reserved on both nodes.
// t=2: D fits now on n-1 and, with estimate 40 s, ends at 42 s <= 100 s:
// backfilled, 2..42. With estimate 200 s it would end after the shadow time
// and the shadow state has no room beside C: it waits, and starts at 110 s.
// E (200 s) never fits beside C's reservation: it starts when C ends, 110 s.
// Strict fifo for comparison: D and E both wait for C: 110 s.
#include "utilsim/policies/backfill.h"

#include <gtest/gtest.h>

#include <memory>

#include "mixed_workload.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

Workload Jobs(int64_t d_estimate) {
  Workload w;
  auto add = [&](const char* name, int64_t submit, int gpus, int tasks, int64_t run, int64_t est) {
    Job j;
    j.name = name;
    j.submit = Seconds(submit);
    j.task.gpus = gpus;
    j.tasks = tasks;
    j.runtime = Seconds(run);
    j.walltime_limit = Seconds(est);
    w.jobs.push_back(j);
  };
  add("A", 0, 4, 1, 100, 100);
  add("B", 0, 2, 1, 50, 50);
  add("C", 1, 4, 2, 10, 10);
  add("D", 2, 2, 1, 40, d_estimate);
  add("E", 3, 2, 1, 200, 200);
  w.Finalize();
  return w;
}

ClusterSpec Cluster() {
  ClusterSpec s;
  s.name = "two";
  s.models = {{"G", 0, 1.0}};
  s.groups = {{"n", 2, "G", 4, 32000, 256LL << 30, 0}};
  return s;
}

std::vector<int64_t> Starts(const std::string& policy, int64_t d_estimate) {
  auto sched = BuiltinPolicies().Make(policy);
  EXPECT_TRUE(sched.ok()) << sched.status().message();
  auto r = Simulate(Cluster(), Jobs(d_estimate), *sched.value(), SimConfig{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  std::vector<int64_t> s;
  for (const auto& j : r.value().jobs) s.push_back(j.start.us / 1000000);
  return s;
}

TEST(EasyBackfill, BackfillsOnlyWhatDoesNotDelayTheHead) {
  EXPECT_EQ(Starts("easy-backfill+first-fit", 40), (std::vector<int64_t>{0, 0, 100, 2, 110}));
}

TEST(EasyBackfill, UsesTheUsersEstimateNotTheRunTime) {
  EXPECT_EQ(Starts("easy-backfill+first-fit", 200), (std::vector<int64_t>{0, 0, 100, 110, 110}));
}

TEST(EasyBackfill, StrictFifoWaitsBehindTheHead) {
  EXPECT_EQ(Starts("fifo+first-fit", 40), (std::vector<int64_t>{0, 0, 100, 110, 110}));
}

TEST(EasyBackfill, EstimateFallsBackToRunTime) {
  Job j;
  j.runtime = Seconds(7);
  EXPECT_EQ(BackfillEstimate(j), Seconds(7));
  j.walltime_limit = Seconds(9);
  EXPECT_EQ(BackfillEstimate(j), Seconds(9));
}

// EASY's shortcuts for placements whose result depends on the job's shape
// alone (PlacementPolicy::place_depends_on_shape_only: no Place for a head
// that cannot fit yet by its free whole GPUs, no second Place for a shape
// already blocked by the reservation) change no decision: the same
// placement, declared or not, gives the same records, on a queued workload
// of gangs of whole-GPU tasks, with estimates longer than the run times.
class Declared final : public PlacementPolicy {
 public:
  Declared(std::unique_ptr<PlacementPolicy> inner, bool shape_only)
      : inner_(std::move(inner)), shape_only_(shape_only) {}
  PolicyId id() const override { return inner_->id(); }
  std::optional<Placement> Place(const Job& job, ModelMask mask, ClusterState& c) override {
    ++calls;
    return inner_->Place(job, mask, c);
  }
  bool place_depends_on_shape_only() const override { return shape_only_; }
  int64_t calls = 0;

 private:
  std::unique_ptr<PlacementPolicy> inner_;
  bool shape_only_;
};

TEST(EasyBackfill, ShapeOnlyShortcutsChangeNoDecision) {
  testutil::MixedWorkloadShape shape;
  shape.jobs = 400;
  shape.submit_span_s = 2000;  // far more work than the cluster holds: long queues
  shape.gang_one_in = 3;
  Workload w = testutil::RandomMixedWorkload(shape);
  for (size_t i = 0; i < w.jobs.size(); ++i)  // estimates 1x to 3x the run time
    w.jobs[i].walltime_limit = Micros(w.jobs[i].runtime.us * static_cast<int64_t>(1 + i % 3));
  for (auto make : {&MakeFirstFit, &MakeBestFit}) {
    RunResult runs[2];
    int64_t calls[2];
    for (int k = 0; k < 2; ++k) {
      auto placement = std::make_unique<Declared>(make(), k == 1);
      Declared* p = placement.get();
      auto sched = MakeEasyBackfill("easy", std::move(placement));
      auto r = Simulate(testutil::MixedCluster(), w, *sched, SimConfig{});
      ASSERT_TRUE(r.ok()) << r.status().message();
      runs[k] = std::move(r).value();
      calls[k] = p->calls;
    }
    ASSERT_EQ(runs[0].jobs.size(), runs[1].jobs.size());
    int64_t waited = 0;
    for (size_t j = 0; j < runs[0].jobs.size(); ++j) {
      const JobRecord &a = runs[0].jobs[j], &b = runs[1].jobs[j];
      EXPECT_EQ(a.start, b.start) << a.name;
      EXPECT_EQ(a.placement, b.placement) << a.name;
      EXPECT_EQ(a.wait_cause_s, b.wait_cause_s) << a.name;
      ASSERT_EQ(a.waits.size(), b.waits.size()) << a.name;
      for (size_t i = 0; i < a.waits.size(); ++i) {
        EXPECT_EQ(a.waits[i].cause, b.waits[i].cause) << a.name;
        EXPECT_EQ(a.waits[i].blocker, b.waits[i].blocker) << a.name;
      }
      waited += a.wait_s() > 0;
    }
    EXPECT_GT(waited, 200);  // the queue was long
    EXPECT_LT(calls[1], calls[0]) << "the shortcuts skipped Place calls";
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
