// FGD (fgd.h): the fragmentation measure on small nodes computed by hand, the
// measure against a literal reading of its definition on random states, task
// classes of a workload, and FGD placements that differ from best fit.
#include "utilsim/policies/fgd.h"

#include <gtest/gtest.h>

#include "utilsim/engine/rng.h"
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

// Takes `milli` of GPU g on node n (a one-GPU task with 1 core, 1 GiB).
void UseGpu(ClusterState& c, NodeIndex n, int g, int milli) {
  TaskDemand d;
  d.gpus = 1;
  d.gpu_milli = milli;
  d.cpu_milli = 1000;
  d.mem_bytes = kGiB;
  ASSERT_TRUE(c.Allocate({n, uint64_t{1} << g}, d).ok());
}

TaskClass Class(int gpus, int milli, int64_t weight, std::vector<std::string> models = {},
                int64_t cpu = 1000, int64_t mem = kGiB) {
  TaskClass m;
  m.demand.gpus = gpus;
  m.demand.gpu_milli = milli;
  m.demand.cpu_milli = cpu;
  m.demand.mem_bytes = mem;
  m.gpu_models = std::move(models);
  m.weight = weight;
  return m;
}

// One node of model A, 4 GPUs, 16 cores, 64 GiB, GPUs free
// [1000, 500, 300, 0] (T = 1800 milli), 13 cores and 61 GiB free.
ClusterState HandNode() {
  ClusterState c = Build({{"n", 1, "A", 4, 16000, 64 * kGiB, 0}});
  UseGpu(c, 0, 1, 500);
  UseGpu(c, 0, 2, 700);
  UseGpu(c, 0, 3, 1000);
  return c;
}

struct FragRow {
  const char* what;
  std::vector<TaskClass> classes;
  double expect;
};

TEST(Fragmentation, HandComputedNode) {
  const FragRow rows[] = {
      // 1 GPU fits (GPU0): frag = GPUs below 1000 = 500 + 300 + 0 = 800
      // 0.5 fits (GPU0, GPU1): frag = GPUs below 500 = 300 + 0 = 300
      // 0.2 fits: frag = GPUs below 200 = 0
      // F = 0.5 x 800 + 0.3 x 300 + 0.2 x 0 = 490
      {"brief example", {Class(1, 1000, 5), Class(1, 500, 3), Class(1, 200, 2)}, 490},
      // A CPU-only class cannot use any GPU: all 1800 count.
      // F = (5 x 800 + 3 x 300 + 2 x 0 + 10 x 1800) / 20 = 22900 / 20
      {"cpu-only class",
       {Class(1, 1000, 5), Class(1, 500, 3), Class(1, 200, 2), Class(0, 1000, 10)},
       1145},
      // 2 whole GPUs needed, one whole-free: does not fit, F = T.
      {"two GPUs", {Class(2, 1000, 1)}, 1800},
      // Model B only (node is A): no access, F = T.
      {"model", {Class(1, 500, 1, {"B"})}, 1800},
      // (1800 + 300) / 2
      {"model mix", {Class(1, 1000, 1, {"B"}), Class(1, 500, 1, {"A", "B"})}, 1050},
      // Needs 14 cores (13 free) or 62 GiB (61 free): F = T.
      {"cpu short", {Class(1, 500, 1, {}, 14000)}, 1800},
      {"memory short", {Class(1, 500, 1, {}, 1000, 62 * kGiB)}, 1800},
  };
  for (const FragRow& row : rows) {
    SCOPED_TRACE(row.what);
    ClusterState c = HandNode();
    TaskClassDist dist{row.classes};
    EXPECT_DOUBLE_EQ(NodeFragmentation(c, 0, dist), row.expect);
    EXPECT_DOUBLE_EQ(ClusterFragmentation(c, dist), row.expect);
  }
}

TEST(Fragmentation, ClusterIsSumOfNodes) {
  // n0: the hand node (490); n1: idle 2 GPUs, every class fits, nothing
  // below its share: 0; n2: one GPU with 300 free: 1 GPU and 0.5 do not fit
  // (300 each), 0.2 fits (0): (5 x 300 + 3 x 300) / 10 = 240; cpu: 0.
  ClusterState c = Build({{"n0", 1, "A", 4, 16000, 64 * kGiB, 0},
                          {"n1", 1, "B", 2, 16000, 64 * kGiB, 0},
                          {"n2", 1, "A", 1, 16000, 64 * kGiB, 0},
                          {"cpu", 1, "", 0, 16000, 64 * kGiB, 0}});
  UseGpu(c, 0, 1, 500);
  UseGpu(c, 0, 2, 700);
  UseGpu(c, 0, 3, 1000);
  UseGpu(c, 2, 0, 700);
  TaskClassDist dist{{Class(1, 1000, 5), Class(1, 500, 3), Class(1, 200, 2)}};
  EXPECT_DOUBLE_EQ(NodeFragmentation(c, 1, dist), 0);
  EXPECT_DOUBLE_EQ(NodeFragmentation(c, 2, dist), 240);
  EXPECT_DOUBLE_EQ(NodeFragmentation(c, 3, dist), 0);
  EXPECT_DOUBLE_EQ(ClusterFragmentation(c, dist), 490 + 240);
  EXPECT_DOUBLE_EQ(ClusterFragmentation(c, TaskClassDist{}), 0);
}

// The definition read literally: per class, per node.
int64_t ScaledReference(const ClusterState& c, NodeIndex n, const TaskClassDist& dist) {
  const NodeInfo& info = c.node(n);
  int64_t t = 0;
  for (int g = 0; g < info.gpus; ++g) t += c.gpu_free_milli(n, g);
  int64_t f = 0;
  for (const TaskClass& m : dist.classes) {
    const TaskDemand& d = m.demand;
    bool fits = d.gpus > 0 && c.CanHost(n, d, c.ResolveModels(m.gpu_models));
    int64_t below = 0, enough = 0;
    for (int g = 0; g < info.gpus; ++g) {
      const int32_t v = c.gpu_free_milli(n, g);
      if (v < d.gpu_milli)
        below += v;
      else
        ++enough;
    }
    fits = fits && enough >= d.gpus;  // (CanHost checks whole GPUs only)
    f += m.weight * (fits ? below : t);
  }
  return f;
}

TEST(Fragmentation, MeterMatchesDefinitionOnRandomStates) {
  Rng r(3, 0, "fgd-meter");
  for (int round = 0; round < 40; ++round) {
    TaskClassDist dist;
    for (int i = 0; i < 30; ++i) {
      const int kind = static_cast<int>(r.UniformInt(0, 3));
      const int gpus = kind == 0 ? 0 : kind == 1 ? 1 : static_cast<int>(r.UniformInt(1, 4));
      const int milli = kind == 1 ? static_cast<int>(r.UniformInt(1, 10)) * 100 : 1000;
      std::vector<std::string> models;
      if (r.Uniform01() < 0.3) models = {r.Uniform01() < 0.5 ? "A" : "B"};
      dist.classes.push_back(Class(gpus, milli, r.UniformInt(1, 9), models,
                                   500 * r.UniformInt(1, 16), kGiB * r.UniformInt(1, 32)));
    }
    ClusterState c = Build({{"a", 3, "A", 4, 16000, 64 * kGiB, 0},
                            {"b", 3, "B", 8, 32000, 128 * kGiB, 0},
                            {"cpu", 1, "", 0, 16000, 64 * kGiB, 0}});
    for (int k = 0; k < 30; ++k) {
      TaskDemand d;
      d.gpus = static_cast<int32_t>(r.UniformInt(0, 2));
      if (d.gpus == 1 && r.Uniform01() < 0.5)
        d.gpu_milli = 100 * static_cast<int32_t>(r.UniformInt(1, 9));
      d.cpu_milli = 1000 * r.UniformInt(0, 6);
      d.mem_bytes = kGiB * r.UniformInt(0, 24);
      const NodeIndex n = static_cast<NodeIndex>(r.UniformInt(0, 6));
      if (c.CanHost(n, d, kAnyModel)) {
        ASSERT_TRUE(c.Allocate({n, c.PickGpus(n, d)}, d).ok());
      }
    }
    FragmentationMeter meter(dist, c);
    for (NodeIndex n = 0; n < c.num_nodes(); ++n)
      ASSERT_EQ(meter.NodeScaled(c, n), ScaledReference(c, n, dist)) << "round " << round;
  }
}

TEST(TaskClasses, OfWorkloadCountsJobsPerShape) {
  Workload w;
  auto add = [&](int gpus, int milli, std::vector<std::string> models, int tasks) {
    Job j;
    j.name = "j" + std::to_string(w.jobs.size());
    j.tasks = tasks;
    j.task.gpus = gpus;
    j.task.gpu_milli = milli;
    j.task.cpu_milli = 1000;
    j.task.mem_bytes = kGiB;
    j.gpu_models = std::move(models);
    j.runtime = Seconds(1);
    w.jobs.push_back(j);
  };
  add(1, 1000, {}, 1);
  add(1, 1000, {}, 4);  // a gang counts once, with its task's shape
  add(1, 500, {}, 1);
  add(1, 500, {"B", "A"}, 1);
  add(1, 500, {"A", "B"}, 1);  // same allowed set, other order
  add(0, 1000, {}, 1);
  const TaskClassDist dist = TaskClassesOf(w);
  ASSERT_EQ(dist.classes.size(), 4u);
  EXPECT_EQ(dist.total_weight(), 6);
  // Sorted by (gpus, milli, cpu, mem, gpu memory, models).
  EXPECT_EQ(dist.classes[0].demand.gpus, 0);
  EXPECT_EQ(dist.classes[1].demand.gpu_milli, 500);
  EXPECT_TRUE(dist.classes[1].gpu_models.empty());
  EXPECT_EQ(dist.classes[2].gpu_models, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(dist.classes[2].weight, 2);
  EXPECT_EQ(dist.classes[3].weight, 2);
}

// FGD vs best fit, whole GPUs. Classes {2 GPUs: 1}; task 1 GPU.
//   n0 (2 GPUs, idle): before [1000, 1000] fits, F = 0; after [0, 1000]
//      does not fit, F = 1000: delta +1000.
//   n1 (4 GPUs, one used): before [0, 1000, 1000, 1000] fits, F = 0;
//      after [0, 0, 1000, 1000] still fits, F = 0: delta 0.
// FGD: n1. Best fit: n0 (no whole GPU left).
TEST(Fgd, KeepsRoomForPopularShapes) {
  ClusterState c =
      Build({{"n0", 1, "A", 2, 16000, 64 * kGiB, 0}, {"n1", 1, "A", 4, 16000, 64 * kGiB, 0}});
  UseGpu(c, 1, 0, 1000);
  Job j;
  j.task = Class(1, 1000, 1).demand;
  auto fgd = MakeFgd(TaskClassDist{{Class(2, 1000, 1)}});
  EXPECT_EQ(fgd->id().name, "fgd");
  auto p = fgd->Place(j, kAnyModel, c);
  ASSERT_TRUE(p);
  EXPECT_EQ((*p)[0].node, 1u);
  EXPECT_EQ((*p)[0].gpu_mask, 0b0010u);  // the lowest whole-free GPU
  EXPECT_EQ((*MakeBestFit()->Place(j, kAnyModel, c))[0].node, 0u);
  // A given distribution is kept over Init: a workload of 1-GPU jobs only
  // (F would be 0 on both nodes, and n0 would win on index) changes nothing.
  Workload ones;
  ones.jobs.push_back(j);
  fgd->Init(ones);
  EXPECT_EQ((*fgd->Place(j, kAnyModel, c))[0].node, 1u);
  for (int empty = 0; empty < 2; ++empty) {  // MakeFgd(), and an empty distribution
    auto from_workload = empty ? MakeFgd(TaskClassDist{}) : MakeFgd();
    from_workload->Init(ones);
    EXPECT_EQ((*from_workload->Place(j, kAnyModel, c))[0].node, 0u);
  }
}

// FGD vs best fit, fractional. Classes {0.5 GPU: 1}; task 0.3 GPU.
//   n0 (1 GPU, 700 free): after [400]: 0.5 no longer fits, F 0 -> 400: +400
//   n1 (1 GPU, idle):     after [700]: still fits, F 0 -> 0: 0
// FGD: n1; best fit (tightest share): n0.
// Inside one node (2 GPUs, [700, 1000]) the GPU matters:
//   GPU0 -> [400, 1000]: 0.5 fits on GPU1, 400 is below it: F = 400
//   GPU1 -> [700, 700]:  F = 0
// FGD takes GPU1; the tightest-share rule would take GPU0.
TEST(Fgd, FractionalNodeAndGpu) {
  const TaskClassDist dist{{Class(1, 500, 1)}};
  Job j;
  j.task = Class(1, 300, 1).demand;
  ClusterState c =
      Build({{"n0", 1, "A", 1, 16000, 64 * kGiB, 0}, {"n1", 1, "A", 1, 16000, 64 * kGiB, 0}});
  UseGpu(c, 0, 0, 300);
  EXPECT_EQ((*MakeFgd(dist)->Place(j, kAnyModel, c))[0].node, 1u);
  EXPECT_EQ((*MakeBestFit()->Place(j, kAnyModel, c))[0].node, 0u);
  ClusterState one = Build({{"n", 1, "A", 2, 16000, 64 * kGiB, 0}});
  UseGpu(one, 0, 0, 300);
  auto p = MakeFgd(dist)->Place(j, kAnyModel, one);
  ASSERT_TRUE(p);
  EXPECT_EQ((*p)[0].gpu_mask, 0b10u);
  EXPECT_EQ(one.PickGpus(0, j.task), 0b01u);
}

// On random states with random class mixes, FGD's choice (node and GPU) is
// the argmin of F(after) - F(before) over every feasible option, ties to the
// lowest node then GPU, with F from the meter.
TEST(Fgd, ChoiceIsSteepestDescent) {
  Rng r(5, 0, "fgd-choice");
  for (int round = 0; round < 30; ++round) {
    TaskClassDist dist;
    for (int i = 0; i < 12; ++i) {
      const int gpus = static_cast<int>(r.UniformInt(0, 3));
      const int milli =
          gpus == 1 && r.Uniform01() < 0.5 ? 100 * static_cast<int>(r.UniformInt(1, 9)) : 1000;
      dist.classes.push_back(Class(gpus, milli, r.UniformInt(1, 9), {}, 1000 * r.UniformInt(1, 8),
                                   kGiB * r.UniformInt(1, 16)));
    }
    ClusterState c =
        Build({{"a", 4, "A", 4, 16000, 64 * kGiB, 0}, {"b", 3, "B", 8, 32000, 128 * kGiB, 0}});
    const bool whole_only = round % 2 == 0;  // (FGD's whole-GPU shortcuts)
    for (int k = 0; k < 25; ++k) {
      TaskDemand d;
      d.gpus = static_cast<int32_t>(r.UniformInt(1, 2));
      if (!whole_only && d.gpus == 1 && r.Uniform01() < 0.6)
        d.gpu_milli = 100 * static_cast<int32_t>(r.UniformInt(1, 9));
      d.cpu_milli = 1000 * r.UniformInt(0, 4);
      d.mem_bytes = kGiB * r.UniformInt(0, 8);
      const NodeIndex n = static_cast<NodeIndex>(r.UniformInt(0, 6));
      if (c.CanHost(n, d, kAnyModel)) {
        ASSERT_TRUE(c.Allocate({n, c.PickGpus(n, d)}, d).ok());
      }
    }
    const FragmentationMeter meter(dist, c);
    auto fgd = MakeFgd(dist);
    for (int t = 0; t < 10; ++t) {
      Job j;
      j.task = dist.classes[static_cast<size_t>(r.UniformInt(0, 11))].demand;
      int64_t best = -1, best_delta = INT64_MAX;
      uint64_t best_gpus = 0;
      for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
        if (!c.CanHost(n, j.task, kAnyModel)) continue;
        std::vector<uint64_t> options;
        if (j.task.fractional()) {
          for (int g = 0; g < c.node(n).gpus; ++g)
            if (c.gpu_free_milli(n, g) >= j.task.gpu_milli) options.push_back(uint64_t{1} << g);
        } else {
          options.push_back(c.PickGpus(n, j.task));
        }
        const int64_t before = meter.NodeScaled(c, n);
        for (uint64_t gpus : options) {
          ASSERT_TRUE(c.Allocate({n, gpus}, j.task).ok());
          const int64_t delta = meter.NodeScaled(c, n) - before;
          c.Release({n, gpus}, j.task);
          if (delta < best_delta) {
            best = n;
            best_delta = delta;
            best_gpus = gpus;
          }
        }
      }
      SCOPED_TRACE("round " + std::to_string(round) + " task " + std::to_string(t));
      auto p = fgd->Place(j, kAnyModel, c);
      ASSERT_EQ(p.has_value(), best >= 0);
      if (!p) continue;
      EXPECT_EQ((*p)[0].node, static_cast<NodeIndex>(best));
      EXPECT_EQ((*p)[0].gpu_mask, best_gpus);
    }
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
