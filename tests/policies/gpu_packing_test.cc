// GPU packing and GPU clustering (packing.h), hand-computed; and properties
// every packing policy must have: GPU-model constraints, gangs all or
// nothing, the state left as found, determinism end to end.
#include <gtest/gtest.h>

#include <functional>

#include "utilsim/engine/rng.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/composed_scheduler.h"
#include "utilsim/policies/fgd.h"
#include "utilsim/policies/packing.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;

ClusterState Build(const std::vector<NodeGroup>& groups) {
  ClusterSpec s;
  s.name = "t";
  s.models = {{"A", 32 * kGiB, 1.0}, {"B", 16 * kGiB, 1.0}};
  s.groups = groups;
  return ClusterState::Build(s).value();
}

Job Task(int gpus, int milli = 1000, int tasks = 1) {
  Job j;
  j.tasks = tasks;
  j.task.gpus = gpus;
  j.task.gpu_milli = milli;
  j.task.cpu_milli = 1000;
  j.task.mem_bytes = kGiB;
  return j;
}

// Places j and starts it on c (as the engine would); returns the placement.
Placement Start(PlacementPolicy& p, const Job& j, ClusterState& c, ModelMask mask = kAnyModel) {
  auto pl = p.Place(j, mask, c);
  if (!pl) return {};
  for (const TaskPlacement& t : *pl) EXPECT_TRUE(c.Allocate(t, j.task).ok());
  return *pl;
}

// Nodes of 4 GPUs: n0 idle, n1 one GPU with 400 free (a 0.6 share runs),
// n2 one whole GPU used (3 whole-free), n3 three whole GPUs used (1 left).
// Packing tiers (best first): 1 shared GPU that fits (least free), 2 idle
// GPUs of a busy node, 3 an idle node.
//   0.3 GPU: n1 GPU0 (tier 1, 400 free)
//   0.5 GPU: no shared GPU fits; tier 2 ties on n1, n2, n3 -> n1 (GPU1)
//   1 GPU:   tier 2 on n1, n2, n3 -> n1; best fit: n3 (leaves 0)
//   4 GPUs:  only n0 (tier 3)
TEST(GpuPacking, Tiers) {
  struct Row {
    const char* what;
    Job job;
    NodeIndex node;
    uint64_t gpus;
  };
  const Row rows[] = {{"share fits a shared GPU", Task(1, 300), 1, 0b0001},
                      {"share needs a free GPU", Task(1, 500), 1, 0b0010},
                      {"one GPU", Task(1), 1, 0b0010},
                      {"whole node", Task(4), 0, 0b1111}};
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    ClusterState c = Build({{"n", 4, "A", 4, 32000, 128 * kGiB, 0}});
    EXPECT_TRUE(c.Allocate({1, 0b0001}, Task(1, 600).task).ok());
    EXPECT_TRUE(c.Allocate({2, 0b0001}, Task(1).task).ok());
    EXPECT_TRUE(c.Allocate({3, 0b0111}, Task(3).task).ok());
    auto p = MakeGpuPacking()->Place(row.job, kAnyModel, c);
    ASSERT_TRUE(p);
    EXPECT_EQ((*p)[0].node, row.node);
    EXPECT_EQ((*p)[0].gpu_mask, row.gpus);
  }
  ClusterState c = Build({{"n", 4, "A", 4, 32000, 128 * kGiB, 0}});
  EXPECT_TRUE(c.Allocate({1, 0b0001}, Task(1, 600).task).ok());
  EXPECT_TRUE(c.Allocate({3, 0b0111}, Task(3).task).ok());
  EXPECT_EQ((*MakeBestFit()->Place(Task(1), kAnyModel, c))[0].node, 3u);
  EXPECT_EQ(MakeGpuPacking()->id().name, "gpu-packing");
}

// Idle nodes: fewest GPUs first (tier 3 key), then lowest index.
TEST(GpuPacking, SmallestIdleNode) {
  ClusterState c =
      Build({{"big", 1, "A", 8, 32000, 128 * kGiB, 0}, {"small", 2, "A", 2, 32000, 128 * kGiB, 0}});
  EXPECT_EQ((*MakeGpuPacking()->Place(Task(1), kAnyModel, c))[0].node, 1u);
}

// Clustering on 3 nodes of 4 GPUs, each job started before the next:
//   A 1 GPU:  no node runs a GPU task (tier 2), least free: tie -> n0
//   B 2 GPUs: n0 runs 1-gpu only (tier 3); n1, n2 idle (tier 2) -> n1
//             (best fit would take n0: 1 whole GPU left)
//   C 1 GPU:  n0 runs only 1-gpu (tier 0) -> n0
//   D 0.5:    n0 {1-gpu}, n1 {2-gpu} (tier 3); n2 idle (tier 2) -> n2
//   E 0.25:   n2 runs only share (tier 0) -> n2
// Then A and C end: n0 runs nothing again.
//   F 2 GPUs: n1 runs only 2-gpu (tier 0, 2000 free) -> n1
//   G 1 GPU:  n0 idle (tier 2), n1 {2-gpu}, n2 {share} (tier 3) -> n0
TEST(GpuClustering, SameKindTogether) {
  ClusterState c = Build({{"n", 3, "A", 4, 32000, 128 * kGiB, 0}});
  auto p = MakeGpuClustering();
  EXPECT_EQ(p->id().name, "gpu-clustering");
  const Placement a = Start(*p, Task(1), c);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].node, 0u);
  EXPECT_EQ((*MakeBestFit()->Place(Task(2), kAnyModel, c))[0].node, 0u);
  EXPECT_EQ(Start(*p, Task(2), c)[0].node, 1u);
  const Placement cc = Start(*p, Task(1), c);
  EXPECT_EQ(cc[0].node, 0u);
  EXPECT_EQ(Start(*p, Task(1, 500), c)[0].node, 2u);
  EXPECT_EQ(Start(*p, Task(1, 250), c)[0].node, 2u);
  c.Release(a[0], Task(1).task);
  c.Release(cc[0], Task(1).task);
  EXPECT_EQ(Start(*p, Task(2), c)[0].node, 1u);
  EXPECT_EQ(Start(*p, Task(1), c)[0].node, 0u);
}

// A GPU fully used by two shares counts as "share", not as a whole-GPU kind.
TEST(GpuClustering, FullGpuOfSharesIsShare) {
  ClusterState c = Build({{"n", 2, "A", 2, 32000, 128 * kGiB, 0}});
  auto p = MakeGpuClustering();
  EXPECT_TRUE(c.Allocate({0, 0b01}, Task(1, 500).task).ok());
  EXPECT_TRUE(c.Allocate({0, 0b01}, Task(1, 500).task).ok());
  // n0 {share} tier 3 for a 1-GPU task; n1 idle tier 2.
  EXPECT_EQ(Start(*p, Task(1), c)[0].node, 1u);
  // A share task: n0 runs only share (tier 0).
  EXPECT_EQ(Start(*p, Task(1, 300), c)[0].node, 0u);
}

using Factory = std::function<std::unique_ptr<PlacementPolicy>()>;
struct Named {
  const char* name;
  Factory make;
};
std::vector<Named> AllPolicies() {
  return {{"epvm", [] { return MakeEpvm(); }},
          {"stranding-hybrid", [] { return MakeStrandingHybrid(); }},
          {"tetris", [] { return MakeTetris(); }},
          {"gpu-packing", [] { return MakeGpuPacking(); }},
          {"gpu-clustering", [] { return MakeGpuClustering(); }},
          {"random", [] { return MakeRandomPlacement(42); }},
          {"fgd (given classes)",
           [] {
             return MakeFgd(TaskClassDist{{{Task(1).task, {}, 3}, {Task(1, 500).task, {}, 1}}});
           }},
          {"fgd (classes of the workload, at Init)", [] { return MakeFgd(); }}};
}

// Models A (n0, n1) and B (n2). Only-B jobs land on n2; unknown models fit
// nowhere; a 2-task gang of 4 GPUs fits (n0, n1) but a 3-task one does not
// and leaves the state as found.
TEST(PackingPolicies, ModelsAndGangs) {
  for (const Named& pol : AllPolicies()) {
    SCOPED_TRACE(pol.name);
    ClusterState c =
        Build({{"a", 2, "A", 4, 32000, 128 * kGiB, 0}, {"b", 1, "B", 4, 32000, 128 * kGiB, 0}});
    auto p = pol.make();
    const ModelMask only_b = c.ResolveModels({"B"});
    for (const Job& j : {Task(1), Task(1, 300), Task(0), Task(4)}) {
      auto pl = p->Place(j, only_b, c);
      ASSERT_TRUE(pl);
      EXPECT_EQ((*pl)[0].node, 2u);
    }
    EXPECT_FALSE(p->Place(Task(1), c.ResolveModels({"Z"}), c));
    auto two = p->Place(Task(4, 1000, 2), c.ResolveModels({"A"}), c);
    ASSERT_TRUE(two);
    EXPECT_NE((*two)[0].node, (*two)[1].node);
    const int64_t free_before = c.whole_free_gpus_total(), cpu_before = c.allocated_cpu();
    EXPECT_FALSE(p->Place(Task(4, 1000, 3), c.ResolveModels({"A"}), c));
    EXPECT_FALSE(p->Place(Task(2, 1000, 7), kAnyModel, c));
    EXPECT_EQ(c.whole_free_gpus_total(), free_before);
    EXPECT_EQ(c.allocated_cpu(), cpu_before);
    for (NodeIndex n = 0; n < c.num_nodes(); ++n) EXPECT_EQ(c.tasks_on(n), 0);
  }
}

// Random mixed workloads on a heterogeneous cluster, end to end under
// fifo-skip: every run succeeds (the engine checks every placement) and a
// second run gives the same placements.
TEST(PackingPolicies, EndToEndDeterministic) {
  ClusterSpec s;
  s.name = "mix";
  s.models = {{"A", 32 * kGiB, 1.0}, {"B", 16 * kGiB, 1.0}};
  s.groups = {{"a", 3, "A", 8, 64000, 256 * kGiB, 0},
              {"b", 4, "B", 4, 32000, 128 * kGiB, 0},
              {"c", 2, "", 0, 32000, 128 * kGiB, 0}};
  Rng r(21, 0, "packing-e2e");
  Workload w;
  for (int i = 0; i < 400; ++i) {
    Job j = Task(static_cast<int>(r.UniformInt(0, 4)));
    if (j.task.gpus == 1 && r.Uniform01() < 0.4)
      j.task.gpu_milli = 100 * static_cast<int32_t>(r.UniformInt(1, 9));
    if (j.task.gpus >= 2 && r.Uniform01() < 0.2) j.tasks = 2;
    if (r.Uniform01() < 0.2) j.gpu_models = {r.Uniform01() < 0.5 ? "A" : "B"};
    j.task.cpu_milli = 1000 * r.UniformInt(1, 8);
    j.task.mem_bytes = kGiB * r.UniformInt(1, 32);
    j.name = "j" + std::to_string(i);
    j.submit = Seconds(i * 3);
    j.runtime = Seconds(r.UniformInt(5, 600));
    w.jobs.push_back(j);
  }
  w.Finalize();
  for (const Named& pol : AllPolicies()) {
    SCOPED_TRACE(pol.name);
    std::vector<std::string> first;
    for (int run = 0; run < 2; ++run) {
      ComposedScheduler sched(pol.name, MakeFifoSkipQueue(), pol.make());
      auto res = Simulate(s, w, sched, SimConfig{});
      ASSERT_TRUE(res.ok()) << res.status().message();
      std::vector<std::string> got;
      for (const JobRecord& rec : res.value().jobs) got.push_back(rec.placement);
      if (run == 0)
        first = got;
      else
        EXPECT_EQ(got, first);
    }
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
