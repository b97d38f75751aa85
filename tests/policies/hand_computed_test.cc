// A small scenario whose every start, finish and node is computed by hand for
// each placement policy (strict FIFO queue).
//
// Nodes: n-0 (8 GPUs), n-1 (4 GPUs), n-2 (8 GPUs); CPU and memory never bind.
// Jobs (submit, GPUs, runtime):
//   j1  0 s, 4, 100 s      j2 10 s, 8, 100 s      j3 20 s, 8, 50 s
//   j4 30 s, 4,  10 s      j5 40 s, 2,  20 s
//
// first-fit (lowest index that fits):
//   t=0   j1 -> n-0 (4 left)            t=10 j2 -> n-2 (n-0 and n-1 have 4)
//   t=20  j3 needs 8: none -> blocks the queue (strict FIFO)
//   t=100 j1 ends: j3 -> n-0 (100..150), j4 -> n-1 (100..110), j5 blocks
//   t=110 j2 and j4 end: j5 -> n-1, lowest with 2 free (110..130)
// best-fit (fewest whole GPUs left, ties lowest index):
//   t=0   j1 -> n-1 (leaves 0; n-0/n-2 would leave 4)
//   t=10  j2 -> n-0 (leaves 0; tie with n-2 -> lowest index)
//   t=20  j3 -> n-2 (20..70)
//   t=30  j4 waits (all full); t=40 j5 waits behind j4
//   t=70  j3 ends: j4 -> n-2 (70..80, GPUs 0-3), j5 -> n-2 (70..90, GPUs 4,5)
// worst-fit (most whole GPUs left, ties lowest index):
//   t=0   j1 -> n-0 (leaves 4; n-2 ties, n-1 leaves 0)
//   t=10  j2 -> n-2; t=20 j3 blocks; t=100 j3 -> n-0, j4 -> n-1
//   t=110 j5 -> n-2 (leaves 6) rather than n-1 (leaves 2)
#include <gtest/gtest.h>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

ClusterSpec Cluster() {
  ClusterSpec s;
  s.name = "hand";
  s.models = {{"G", 32LL << 30, 1.0}};
  // Three groups of one node each keep the hand-computed node order.
  s.groups = {{"n-0", 1, "G", 8, 64000, 512LL << 30, 0},
              {"n-1", 1, "G", 4, 64000, 512LL << 30, 0},
              {"n-2", 1, "G", 8, 64000, 512LL << 30, 0}};
  return s;
}

Workload Jobs() {
  Workload w;
  auto add = [&](const char* name, int64_t submit, int gpus, int64_t run) {
    Job j;
    j.name = name;
    j.submit = Seconds(submit);
    j.task.gpus = gpus;
    j.task.cpu_milli = 1000;
    j.task.mem_bytes = 1LL << 30;
    j.runtime = Seconds(run);
    w.jobs.push_back(j);
  };
  add("j1", 0, 4, 100);
  add("j2", 10, 8, 100);
  add("j3", 20, 8, 50);
  add("j4", 30, 4, 10);
  add("j5", 40, 2, 20);
  w.Finalize();
  return w;
}

struct Expect {
  int64_t start, finish;
  const char* placement;
};

void Check(const std::string& policy, const std::vector<Expect>& expect) {
  auto sched = BuiltinPolicies().Make(policy);
  ASSERT_TRUE(sched.ok()) << sched.status().message();
  Workload w = Jobs();
  auto r = Simulate(Cluster(), w, *sched.value(), SimConfig{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (size_t i = 0; i < expect.size(); ++i) {
    const JobRecord& rec = r.value().jobs[i];
    SCOPED_TRACE(policy + " " + rec.name);
    EXPECT_EQ(rec.start, Seconds(expect[i].start));
    EXPECT_EQ(rec.finish, Seconds(expect[i].finish));
    EXPECT_DOUBLE_EQ(rec.wait_s(),
                     static_cast<double>(expect[i].start - w.jobs[i].submit.us / 1000000));
    EXPECT_EQ(rec.placement, expect[i].placement);
  }
}

TEST(HandComputed, FirstFit) {
  Check("first-fit", {{0, 100, "n-0:0,1,2,3"},
                      {10, 110, "n-2:0,1,2,3,4,5,6,7"},
                      {100, 150, "n-0:0,1,2,3,4,5,6,7"},
                      {100, 110, "n-1:0,1,2,3"},
                      {110, 130, "n-1:0,1"}});
}

TEST(HandComputed, BestFit) {
  Check("best-fit", {{0, 100, "n-1:0,1,2,3"},
                     {10, 110, "n-0:0,1,2,3,4,5,6,7"},
                     {20, 70, "n-2:0,1,2,3,4,5,6,7"},
                     {70, 80, "n-2:0,1,2,3"},
                     {70, 90, "n-2:4,5"}});
}

TEST(HandComputed, WorstFit) {
  Check("worst-fit", {{0, 100, "n-0:0,1,2,3"},
                      {10, 110, "n-2:0,1,2,3,4,5,6,7"},
                      {100, 150, "n-0:0,1,2,3,4,5,6,7"},
                      {100, 110, "n-1:0,1,2,3"},
                      {110, 130, "n-2:0,1"}});
}

TEST(HandComputed, FifoSkipLetsSmallJobsPass) {
  // fifo-skip + first-fit: at t=20 j3 cannot start, but j4 (t=30, 4 GPUs)
  // is not held behind it: n-0 has 4 free (j1 holds 0-3) -> n-0:4-7, 30..40.
  // At t=40 j4's finish is processed before j5's arrival, so n-0 again has
  // 4 free and j5 takes n-0:4,5 (40..60). At t=100 j1 ends and n-0 is empty:
  // j3 -> n-0 (100..150).
  Check("fifo-skip+first-fit", {{0, 100, "n-0:0,1,2,3"},
                                {10, 110, "n-2:0,1,2,3,4,5,6,7"},
                                {100, 150, "n-0:0,1,2,3,4,5,6,7"},
                                {30, 40, "n-0:4,5,6,7"},
                                {40, 60, "n-0:4,5"}});
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
