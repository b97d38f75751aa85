// Tetris alignment (packing.h): hand-computed choices that differ from best
// and worst fit, and the bucket-bounded search (several node shapes) and the
// segment-tree search (one shape) against a brute-force reference of the
// same formula on random cluster states.
#include <gtest/gtest.h>

#include "utilsim/engine/rng.h"
#include "utilsim/policies/packing.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;

ClusterState Build(const std::vector<NodeGroup>& groups) {
  ClusterSpec s;
  s.name = "t";
  s.models = {{"G", 80 * kGiB, 1.0}};
  s.groups = groups;
  return ClusterState::Build(s).value();
}

void Use(ClusterState& c, NodeIndex n, int gpus, int64_t cpu, int64_t mem) {
  TaskDemand d;
  d.gpus = gpus;
  d.cpu_milli = cpu;
  d.mem_bytes = mem;
  ASSERT_TRUE(c.Allocate({n, c.PickGpus(n, d)}, d).ok());
}

Job OneTask(int gpus, int64_t cpu, int64_t mem) {
  Job j;
  j.task.gpus = gpus;
  j.task.cpu_milli = cpu;
  j.task.mem_bytes = mem;
  return j;
}

int64_t Chosen(PlacementPolicy& p, const Job& j, ClusterState& c) {
  auto pl = p.Place(j, kAnyModel, c);
  return pl ? static_cast<int64_t>((*pl)[0].node) : -1;
}

// Nodes of 4 GPUs, 32 cores, 256 GiB. Free (GPUs, cores, GiB):
//   n0 (4, 4, 32)   n1 (1, 30, 240)   n2 (2, 16, 128)
// Task A: 1 GPU, 2 cores, 8 GiB: demand/cap = (0.25, 0.0625, 0.03125)
//   n0: 0.25 x 1    + 0.0625 x 0.125  + 0.03125 x 0.125  = 0.26171875
//   n1: 0.25 x 0.25 + 0.0625 x 0.9375 + 0.03125 x 0.9375 = 0.150390625
//   n2: 0.25 x 0.5  + 0.0625 x 0.5    + 0.03125 x 0.5    = 0.171875
//   Tetris: n0; best fit: n1 (no whole GPU left).
// Task B: 1 GPU, 16 cores, 128 GiB: demand/cap = (0.25, 0.5, 0.5); n0 lacks CPU
//   n1: 0.25 x 0.25 + 0.5 x 0.9375 + 0.5 x 0.9375 = 1.0
//   n2: 0.25 x 0.5  + 0.5 x 0.5    + 0.5 x 0.5    = 0.625
//   Tetris: n1; worst fit: n2 (more whole GPUs left).
struct Row {
  const char* what;
  Job job;
  int64_t tetris, other;
  bool other_is_best_fit;
};

TEST(Tetris, HandComputedAlignment) {
  const Row rows[] = {
      {"gpu-heavy", OneTask(1, 2000, 8 * kGiB), 0, 1, true},
      {"cpu-heavy", OneTask(1, 16000, 128 * kGiB), 1, 2, false},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    ClusterState c = Build({{"n0", 1, "G", 4, 32000, 256 * kGiB, 0},
                            {"n1", 1, "G", 4, 32000, 256 * kGiB, 0},
                            {"n2", 1, "G", 4, 32000, 256 * kGiB, 0}});
    Use(c, 0, 0, 28000, 224 * kGiB);
    Use(c, 1, 3, 2000, 16 * kGiB);
    Use(c, 2, 2, 16000, 128 * kGiB);
    EXPECT_EQ(Chosen(*MakeTetris(), row.job, c), row.tetris);
    auto other = row.other_is_best_fit ? MakeBestFit() : MakeWorstFit();
    EXPECT_EQ(Chosen(*other, row.job, c), row.other);
  }
  EXPECT_EQ(MakeTetris()->id().name, "tetris");
}

// A CPU-only task's alignment uses CPU and memory only, as shares of each
// node's own capacity. Task: 4 cores, 16 GiB.
//   n0 (8 GPUs, 64 cores, 512 GiB; 32 cores used): 4/64 x 0.5 + 16/512 x 1 = 0.0625
//   n1 (4 GPUs, 32 cores, 256 GiB; idle):          4/32 x 1   + 16/256 x 1 = 0.1875
//   n2 (8 GPUs, 64 cores, 512 GiB; idle):          4/64 x 1   + 16/512 x 1 = 0.09375
// Then two nodes of one shape in the same state tie: the lower index wins.
TEST(Tetris, SharesOfOwnCapacityAndTies) {
  ClusterState c = Build({{"n0", 1, "G", 8, 64000, 512 * kGiB, 0},
                          {"n1", 1, "G", 4, 32000, 256 * kGiB, 0},
                          {"n2", 1, "G", 8, 64000, 512 * kGiB, 0}});
  Use(c, 0, 0, 32000, 0);
  EXPECT_EQ(Chosen(*MakeTetris(), OneTask(0, 4000, 16 * kGiB), c), 1);
  ClusterState d =
      Build({{"n0", 1, "G", 8, 64000, 512 * kGiB, 0}, {"n1", 1, "G", 8, 64000, 512 * kGiB, 0}});
  Use(d, 1, 2, 0, 0);
  Use(d, 0, 2, 0, 0);
  EXPECT_EQ(Chosen(*MakeTetris(), OneTask(1, 4000, 16 * kGiB), d), 0);
}

// The documented score computed per node, in the policy's operation order.
int64_t TetrisReference(const ClusterState& c, NodeIndex n, const TaskDemand& d) {
  const NodeInfo& info = c.node(n);
  const double ac = static_cast<double>(d.cpu_milli) / static_cast<double>(info.cpu_milli);
  const double am = static_cast<double>(d.mem_bytes) / static_cast<double>(info.mem_bytes);
  double x = ac * (static_cast<double>(c.free_cpu(n)) / static_cast<double>(info.cpu_milli)) +
             am * (static_cast<double>(c.free_mem(n)) / static_cast<double>(info.mem_bytes));
  if (info.gpus > 0 && d.gpus > 0) {
    const double ag = static_cast<double>(d.total_gpu_milli()) / (1000.0 * info.gpus);
    int64_t free = 0;
    for (int g = 0; g < info.gpus; ++g) free += c.gpu_free_milli(n, g);
    x += ag * (static_cast<double>(free) / (1000.0 * info.gpus));
  }
  return static_cast<int64_t>(x * 1e12 + 0.5);
}

// The node that can host d with the largest TetrisReference, ties to the
// lowest index; -1 if none.
int64_t BruteForce(const ClusterState& c, const TaskDemand& d) {
  int64_t want = -1, want_score = INT64_MIN;
  for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
    if (!c.CanHost(n, d, kAnyModel)) continue;
    const int64_t score = TetrisReference(c, n, d);
    if (score > want_score) {
      want = n;
      want_score = score;
    }
  }
  return want;
}

TEST(Tetris, BoundedSearchEqualsBruteForce) {
  Rng r(11, 0, "tetris-test");
  for (int round = 0; round < 60; ++round) {
    ClusterState c = Build({{"a", 6, "G", 8, 64000, 512 * kGiB, 0},
                            {"b", 5, "G", 4, 32000, 256 * kGiB, 0},
                            {"cpu", 2, "", 0, 48000, 128 * kGiB, 0}});
    const bool fractions = round % 3 == 0;
    for (int k = 0; k < 40; ++k) {
      TaskDemand d;
      d.gpus = static_cast<int32_t>(r.UniformInt(0, 3));
      if (fractions && d.gpus == 1) d.gpu_milli = static_cast<int32_t>(r.UniformInt(1, 9)) * 100;
      d.cpu_milli = 1000 * r.UniformInt(1, 12);
      d.mem_bytes = kGiB * r.UniformInt(1, 64);
      const NodeIndex n = static_cast<NodeIndex>(r.UniformInt(0, 12));
      if (c.CanHost(n, d, kAnyModel)) {
        ASSERT_TRUE(c.Allocate({n, c.PickGpus(n, d)}, d).ok());
      }
    }
    auto tetris = MakeTetris();
    for (int t = 0; t < 20; ++t) {
      Job j = OneTask(static_cast<int>(r.UniformInt(0, 4)), 1000 * r.UniformInt(1, 16),
                      kGiB * r.UniformInt(1, 96));
      if (fractions && j.task.gpus == 1) j.task.gpu_milli = 300;
      SCOPED_TRACE("round " + std::to_string(round) + " task " + std::to_string(t));
      EXPECT_EQ(Chosen(*tetris, j, c), BruteForce(c, j.task));
    }
  }
}

// One node shape and no GPU partly used: the policy searches the cluster's
// segment tree by branch and bound (ClusterState::FindMax) instead of the
// buckets. 37 nodes (the tree pads to 64 leaves), some cordoned, many in the
// same state (ties go to the lowest index), CPU-only, whole-GPU and
// fractional tasks.
TEST(Tetris, OneShapeTreeSearchEqualsBruteForce) {
  Rng r(12, 0, "tetris-one-shape");
  for (int round = 0; round < 40; ++round) {
    ClusterState c = Build({{"a", 37, "G", 8, 64000, 512 * kGiB, 0}});
    // Few distinct demands, so that many nodes end in equal states.
    const int load = static_cast<int>(r.UniformInt(0, 120));
    for (int k = 0; k < load; ++k) {
      TaskDemand d;
      d.gpus = static_cast<int32_t>(r.UniformInt(0, 2)) * 2;
      d.cpu_milli = 8000 * r.UniformInt(0, 2);
      d.mem_bytes = 64 * kGiB * r.UniformInt(0, 2);
      const NodeIndex n = static_cast<NodeIndex>(r.UniformInt(0, 36));
      if (c.CanHost(n, d, kAnyModel)) {
        ASSERT_TRUE(c.Allocate({n, c.PickGpus(n, d)}, d).ok());
      }
    }
    for (int k = 0; k < 3; ++k) c.SetCordoned(static_cast<NodeIndex>(r.UniformInt(0, 36)), true);
    auto tetris = MakeTetris();
    for (int t = 0; t < 30; ++t) {
      Job j = OneTask(static_cast<int>(r.UniformInt(0, 8)), 1000 * r.UniformInt(0, 64),
                      kGiB * r.UniformInt(0, 512));
      if (t % 4 == 3) {  // a share of one GPU (the cluster has none in use)
        j.task.gpus = 1;
        j.task.gpu_milli = static_cast<int32_t>(100 * r.UniformInt(1, 9));
      }
      SCOPED_TRACE("round " + std::to_string(round) + " task " + std::to_string(t));
      EXPECT_EQ(Chosen(*tetris, j, c), BruteForce(c, j.task));
    }
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
