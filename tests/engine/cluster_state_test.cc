#include "utilsim/engine/cluster_state.h"

#include <gtest/gtest.h>

#include "utilsim/engine/rng.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

ClusterSpec TwoModels() {
  ClusterSpec s;
  s.name = "t";
  s.models = {{"A", 80LL << 30, 1.0}, {"B", 16LL << 30, 0.5}};
  s.groups = {{"a", 2, "A", 8, 32000, 256LL << 30, 0},
              {"b", 1, "B", 4, 16000, 128LL << 30, 0},
              {"cpu", 1, "", 0, 64000, 256LL << 30, 0}};
  return s;
}

TEST(ClusterState, BuildsNodesAndTotals) {
  auto c = ClusterState::Build(TwoModels());
  ASSERT_TRUE(c.ok()) << c.status().message();
  const ClusterState& s = c.value();
  EXPECT_EQ(s.num_nodes(), 4u);
  EXPECT_EQ(s.total_gpus(), 20);
  EXPECT_EQ(s.node(0).name, "a-0");
  EXPECT_EQ(s.node(2).name, "b");
  EXPECT_EQ(s.node(2).speed, 0.5);
  EXPECT_EQ(s.Bucket(0, 8).size(), 2u);
  EXPECT_EQ(s.Bucket(1, 4).size(), 1u);
  EXPECT_EQ(s.Bucket(-1, 0).size(), 1u);
}

TEST(ClusterState, RejectsBadSpecs) {
  ClusterSpec s = TwoModels();
  s.groups[0].gpu_model = "Z";
  EXPECT_NE(ClusterState::Build(s).status().message().find("unknown gpu_model 'Z'"),
            std::string::npos);
  s = TwoModels();
  s.groups[1].count = 0;
  EXPECT_FALSE(ClusterState::Build(s).ok());
  s = TwoModels();
  s.groups[1].gpus = 65;
  EXPECT_FALSE(ClusterState::Build(s).ok());
}

TEST(ClusterState, AllocateUpdatesIndicesAndRejectsOvercommit) {
  ClusterState s = ClusterState::Build(TwoModels()).value();
  TaskDemand d{3, 1000, 4000, 8LL << 30, 0};
  ASSERT_TRUE(s.Allocate({0, 0b111}, d).ok());
  EXPECT_EQ(s.free_whole_gpus(0), 5);
  EXPECT_EQ(s.free_cpu(0), 28000);
  EXPECT_EQ(s.Bucket(0, 5).count(0), 1u);
  EXPECT_EQ(s.Bucket(0, 8).count(0), 0u);
  EXPECT_EQ(s.allocated_gpu_milli(), 3000);
  // GPU 2 is taken: over-commit is refused and nothing changes.
  Status bad = s.Allocate({0, 0b1100}, TaskDemand{2, 1000, 0, 0, 0});
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("GPU 2 over-committed"), std::string::npos);
  EXPECT_EQ(s.free_whole_gpus(0), 5);
  // Wrong GPU count for the demand.
  EXPECT_FALSE(s.Allocate({1, 0b1}, TaskDemand{2, 1000, 0, 0, 0}).ok());
  // CPU over-commit.
  EXPECT_FALSE(s.Allocate({1, 0b1}, TaskDemand{1, 1000, 40000, 0, 0}).ok());
  s.Release({0, 0b111}, d);
  EXPECT_EQ(s.free_whole_gpus(0), 8);
  EXPECT_EQ(s.allocated_gpu_milli(), 0);
  EXPECT_EQ(s.Bucket(0, 8).size(), 2u);
}

// Changes made between DeferIndex and Reindex leave the same state as the
// same changes made one at a time: each node's free whole GPUs, the buckets,
// and what FindFirst finds, for whole, fractional and CPU-only demands.
TEST(ClusterState, DeferredIndexesEndTheSameAsImmediateOnes) {
  ClusterState now = ClusterState::Build(TwoModels()).value();
  ClusterState later = now;
  const TaskDemand three{3, 1000, 4000, 8LL << 30, 0};
  const TaskDemand half{1, 500, 1000, 1LL << 30, 0};
  const TaskDemand five{5, 1000, 1000, 0, 0};
  auto steps = [&](ClusterState& s) {
    EXPECT_TRUE(s.Allocate({0, 0b111}, three).ok());
    EXPECT_TRUE(s.Allocate({0, 0b1000}, half).ok());
    EXPECT_FALSE(s.Allocate({0, 0b1}, three).ok());  // refused: nothing changes
    s.Release({0, 0b111}, three);
    EXPECT_TRUE(s.Allocate({0, 0b11110000}, TaskDemand{4, 1000, 2000, 0, 0}).ok());
  };
  steps(now);
  const uint64_t before = later.version();
  later.DeferIndex(0);
  steps(later);
  EXPECT_EQ(later.free_cpu(0), now.free_cpu(0));  // its own figures are current
  EXPECT_GT(later.version(), before);
  later.Reindex(0);
  for (NodeIndex n = 0; n < now.num_nodes(); ++n)
    EXPECT_EQ(later.free_whole_gpus(n), now.free_whole_gpus(n)) << n;
  EXPECT_EQ(later.free_whole_gpus(0), 3);  // GPUs 0-2 free, 3 half taken
  EXPECT_EQ(later.whole_free_gpus_total(), now.whole_free_gpus_total());
  for (int k = 0; k <= 8; ++k) {
    EXPECT_EQ(later.Bucket(0, k).size(), now.Bucket(0, k).size()) << k;
    EXPECT_EQ(later.Bucket(0, k).count(0), now.Bucket(0, k).count(0)) << k;
  }
  for (const TaskDemand& d : {three, half, five, TaskDemand{0, 0, 30000, 0, 0}})
    for (NodeIndex from = 0; from < now.num_nodes(); ++from)
      EXPECT_EQ(later.FindFirst(from, d, ~ModelMask{0}), now.FindFirst(from, d, ~ModelMask{0}))
          << d.gpus << " from " << from;
  EXPECT_EQ(later.FindFirst(0, five, ~ModelMask{0}), 1);  // node 0 has 3 whole GPUs left
}

TEST(ClusterState, FractionalSharesAndPickGpus) {
  ClusterState s = ClusterState::Build(TwoModels()).value();
  TaskDemand half{1, 500, 0, 0, 0};
  TaskDemand big{1, 700, 0, 0, 0};
  ASSERT_EQ(s.PickGpus(0, half), 1u);  // all whole: lowest index
  ASSERT_TRUE(s.Allocate({0, 1}, half).ok());
  EXPECT_EQ(s.free_whole_gpus(0), 7);
  // Another half prefers the partly used GPU 0 (tightest share that fits).
  EXPECT_EQ(s.PickGpus(0, half), 1u);
  // 700 does not fit GPU 0's 500 left: GPU 1.
  EXPECT_EQ(s.PickGpus(0, big), 2u);
  // Whole-GPU tasks take whole-free GPUs only: GPUs 1..3.
  EXPECT_EQ(s.PickGpus(0, TaskDemand{3, 1000, 0, 0, 0}), 0b1110u);
}

TEST(ClusterState, FindFirstHonoursResourcesAndModels) {
  ClusterState s = ClusterState::Build(TwoModels()).value();
  const ModelMask only_b = s.ResolveModels({"B"});
  EXPECT_EQ(s.FindFirst(0, TaskDemand{1, 1000, 0, 0, 0}, only_b), 2);
  EXPECT_EQ(s.FindFirst(0, TaskDemand{5, 1000, 0, 0, 0}, only_b), -1);
  // CPU-only task too big for GPU nodes' 32 cores goes to the CPU node.
  EXPECT_EQ(s.FindFirst(0, TaskDemand{0, 1000, 40000, 0, 0}, kAnyModel), 3);
  ASSERT_TRUE(s.Allocate({0, 0xFF}, TaskDemand{8, 1000, 0, 0, 0}).ok());
  EXPECT_EQ(s.FindFirst(0, TaskDemand{8, 1000, 0, 0, 0}, kAnyModel), 1);
  EXPECT_EQ(s.ResolveModels({"nope"}), 0u);
}

// One node of two 40 GiB GPUs (model memory 0 with unknown_memory).
ClusterSpec TwoGpus40(bool unknown_memory = false) {
  ClusterSpec s;
  s.name = "m";
  s.models = {{"G", unknown_memory ? 0 : 40LL << 30, 1.0}};
  s.groups = {{"n", 1, "G", 2, 16000, 64LL << 30, 0}};
  return s;
}

TEST(ClusterState, GpuMemoryIsAHardLimit) {
  ClusterState s = ClusterState::Build(TwoGpus40()).value();
  const TaskDemand t{1, 300, 0, 0, 30LL << 30};  // 300 milli, 30 GiB
  EXPECT_EQ(s.free_gpu_mem(0, 0), 40LL << 30);
  ASSERT_EQ(s.PickGpus(0, t), 0b01u);
  ASSERT_TRUE(s.Allocate({0, 0b01}, t).ok());
  EXPECT_EQ(s.free_gpu_mem(0, 0), 10LL << 30);
  EXPECT_EQ(s.free_gpu_mem(0, 1), 40LL << 30);
  // GPU 0 has 700 milli but 10 GiB free: the share fits, the memory does not.
  EXPECT_FALSE(s.GpuFits(0, 0, t));
  EXPECT_TRUE(s.GpuFits(0, 1, t));
  EXPECT_EQ(s.PickGpus(0, t), 0b10u);  // by share alone: GPU 0 (tightest)
  const Status bad = s.Allocate({0, 0b01}, t);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "node n: GPU 0 memory over-committed (needs 30 GiB, 10 GiB free)");
  EXPECT_EQ(s.gpu_free_milli(0, 0), 700);  // refused: nothing changed
  EXPECT_EQ(s.free_gpu_mem(0, 0), 10LL << 30);
  EXPECT_EQ(s.tasks_on(0), 1);
  EXPECT_EQ(s.allocated_gpu_milli(), 300);
  ASSERT_TRUE(s.Allocate({0, 0b10}, t).ok());
  // Both GPUs hold 30 GiB: a third such task fits nowhere, a 10 GiB one does.
  EXPECT_FALSE(s.CanHost(0, t, kAnyModel));
  EXPECT_EQ(s.FindFirst(0, t, kAnyModel), -1);
  const TaskDemand small{1, 300, 0, 0, 10LL << 30};
  EXPECT_TRUE(s.CanHost(0, small, kAnyModel));
  EXPECT_EQ(s.PickGpus(0, small), 0b01u);
  EXPECT_EQ(s.Allocate({0, 0b10}, TaskDemand{1, 100, 0, 0, 12LL << 30}).message(),
            "node n: GPU 1 memory over-committed (needs 12 GiB, 10 GiB free)");
  // Release gives the memory back.
  s.Release({0, 0b01}, t);
  EXPECT_EQ(s.free_gpu_mem(0, 0), 40LL << 30);
  EXPECT_TRUE(s.GpuFits(0, 0, t));
  EXPECT_TRUE(s.CanHost(0, t, kAnyModel));
  EXPECT_EQ(s.FindFirst(0, t, kAnyModel), 0);
  EXPECT_EQ(s.PickGpus(0, t), 0b01u);
}

TEST(ClusterState, GpuMemoryOfWholeGpuTasks) {
  ClusterState s = ClusterState::Build(TwoGpus40()).value();
  // A whole-GPU task takes its memory from its GPU; a whole-free GPU has all
  // of it, so a fractional task of 40 GiB still fits GPU 1.
  ASSERT_TRUE(s.Allocate({0, 0b01}, TaskDemand{1, 1000, 0, 0, 25LL << 30}).ok());
  EXPECT_EQ(s.free_gpu_mem(0, 0), 15LL << 30);
  const TaskDemand full{1, 500, 0, 0, 40LL << 30};
  EXPECT_TRUE(s.CanHost(0, full, kAnyModel));
  EXPECT_EQ(s.PickGpus(0, full), 0b10u);
  // More than the GPU has is refused by Allocate too.
  EXPECT_FALSE(s.Allocate({0, 0b10}, TaskDemand{1, 1000, 0, 0, 41LL << 30}).ok());
  EXPECT_EQ(s.free_gpu_mem(0, 1), 40LL << 30);
}

TEST(ClusterState, GpuMemoryUnknownIsNotLimited) {
  // Tasks of unknown memory (0) share by share alone.
  ClusterState s = ClusterState::Build(TwoGpus40()).value();
  const TaskDemand unknown{1, 300, 0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(s.PickGpus(0, unknown), 0b01u);
    ASSERT_TRUE(s.Allocate({0, 0b01}, unknown).ok());
  }
  EXPECT_EQ(s.free_gpu_mem(0, 0), 40LL << 30);
  // A GPU model of unknown memory (0) counts none.
  ClusterState u = ClusterState::Build(TwoGpus40(/*unknown_memory=*/true)).value();
  const TaskDemand t{1, 300, 0, 0, 30LL << 30};
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(u.GpuFits(0, 0, t));
    ASSERT_EQ(u.PickGpus(0, t), 0b01u);
    ASSERT_TRUE(u.Allocate({0, 0b01}, t).ok());
  }
  EXPECT_EQ(u.free_gpu_mem(0, 0), 0);
  u.Release({0, 0b01}, t);
  EXPECT_EQ(u.free_gpu_mem(0, 0), 0);
}

// FindMax by hand: free whole GPUs or free CPU as the score, ties to the
// lowest index, models and cordons honoured.
TEST(ClusterState, FindMaxHandChecked) {
  ClusterState s = ClusterState::Build(TwoModels()).value();
  auto whole = [](int32_t w, int64_t, int64_t) { return int64_t{w}; };
  auto cpu = [](int32_t, int64_t c, int64_t) { return c; };
  const TaskDemand one{1, 1000, 1000, 0, 0};
  const TaskDemand cpu_only{0, 1000, 1000, 0, 0};
  EXPECT_EQ(s.FindMax(one, kAnyModel, whole, whole), 0);   // a-0 and a-1 tie at 8
  EXPECT_EQ(s.FindMax(cpu_only, kAnyModel, cpu, cpu), 3);  // the CPU node's 64 cores
  ASSERT_TRUE(s.Allocate({0, 0xFF}, TaskDemand{8, 1000, 0, 0, 0}).ok());
  EXPECT_EQ(s.FindMax(one, kAnyModel, whole, whole), 1);
  EXPECT_EQ(s.FindMax(one, s.ResolveModels({"B"}), whole, whole), 2);
  s.SetCordoned(1, true);
  EXPECT_EQ(s.FindMax(one, kAnyModel, whole, whole), 2);
  EXPECT_EQ(s.FindMax(TaskDemand{5, 1000, 0, 0, 0}, kAnyModel, whole, whole), -1);
}

// FindMax against scoring every node that can host the task, on random
// states of a mixed cluster (two GPU models, CPU-only nodes, cordons, GPUs
// partly used), for whole-GPU, fractional and CPU-only tasks: a score with
// many ties, with the bound equal to it and looser than it.
TEST(ClusterState, FindMaxEqualsBruteForce) {
  ClusterSpec spec = TwoModels();
  spec.groups = {{"a", 9, "A", 8, 32000, 256LL << 30, 0},
                 {"b", 7, "B", 4, 16000, 128LL << 30, 0},
                 {"cpu", 3, "", 0, 64000, 256LL << 30, 0}};
  Rng r(5, 0, "find-max-test");
  for (int round = 0; round < 50; ++round) {
    ClusterState s = ClusterState::Build(spec).value();
    const NodeIndex nodes = static_cast<NodeIndex>(s.num_nodes());
    for (int k = 0; k < 60; ++k) {
      TaskDemand d{static_cast<int32_t>(r.UniformInt(0, 4)), 1000, 4000 * r.UniformInt(0, 4),
                   (16LL << 30) * r.UniformInt(0, 4), 0};
      if (k % 3 == 2) d = {1, static_cast<int32_t>(250 * r.UniformInt(1, 3)), 1000, 0, 0};
      const NodeIndex n = static_cast<NodeIndex>(r.UniformInt(0, nodes - 1));
      if (s.CanHost(n, d, kAnyModel)) {
        ASSERT_TRUE(s.Allocate({n, s.PickGpus(n, d)}, d).ok());
      }
    }
    for (int k = 0; k < 2; ++k)
      s.SetCordoned(static_cast<NodeIndex>(r.UniformInt(0, nodes - 1)), true);
    // Coarse units: many nodes tie. Every other round without the GPU term,
    // so that a node without a whole-free GPU (a fractional task's share on a
    // partly used GPU) can win.
    const int64_t per_gpu = round % 2 == 0 ? 100 : 0;
    auto score = [per_gpu](int32_t w, int64_t c, int64_t m) {
      return int64_t{w} * per_gpu + c / 8000 * 10 + (m >> 30) / 64;
    };
    const int64_t slack = r.UniformInt(0, 30);
    auto loose = [&](int32_t w, int64_t c, int64_t m) { return score(w, c, m) + slack; };
    for (int t = 0; t < 20; ++t) {
      TaskDemand d{static_cast<int32_t>(r.UniformInt(0, 5)), 1000, 2000 * r.UniformInt(0, 8),
                   (8LL << 30) * r.UniformInt(0, 8), 0};
      if (t % 5 == 4) d = {1, static_cast<int32_t>(100 * r.UniformInt(1, 9)), d.cpu_milli, 0, 0};
      const ModelMask mask = t % 4 == 3 ? s.ResolveModels({"B"}) : kAnyModel;
      int64_t want = -1, want_score = INT64_MIN;
      for (NodeIndex n = 0; n < nodes; ++n) {
        if (!s.CanHost(n, d, mask)) continue;
        const int64_t v = score(s.free_whole_gpus(n), s.free_cpu(n), s.free_mem(n));
        if (v > want_score) {
          want = n;
          want_score = v;
        }
      }
      SCOPED_TRACE("round " + std::to_string(round) + " task " + std::to_string(t));
      EXPECT_EQ(s.FindMax(d, mask, score, score), want);
      EXPECT_EQ(s.FindMax(d, mask, score, loose), want);
      EXPECT_EQ(s.FindFirst(0, d, mask) < 0, want < 0);
    }
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
