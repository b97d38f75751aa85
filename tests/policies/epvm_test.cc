// E-PVM and the stranding hybrid (packing.h): hand-computed choices that
// differ from best fit, and the indexed E-PVM search against a brute-force
// reference of the same fixed-point formula on random cluster states.
#include <gtest/gtest.h>

#include <cmath>

#include "utilsim/engine/rng.h"
#include "utilsim/policies/packing.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;

ClusterState Nodes(int count, int gpus, int64_t cpu, int64_t mem) {
  ClusterSpec s;
  s.name = "t";
  s.models = {{"G", 80 * kGiB, 1.0}};
  for (int i = 0; i < count; ++i)
    s.groups.push_back({"n" + std::to_string(i), 1, "G", gpus, cpu, mem, 0});
  return ClusterState::Build(s).value();
}

// Claims `gpus` whole GPUs (lowest whole-free), cpu and memory on node n.
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

// Nodes of 4 GPUs, 32 cores, 256 GiB; 3 nodes, so B = 3. Task: 1 GPU,
// 4 cores, 32 GiB, i.e. delta = (0.25, 0.125, 0.125);
// 3^0.25 - 1 = 0.316074, 3^0.125 - 1 = 0.147203.
//   n0 used (2, 8, 64):  u = (0.5, 0.25, 0.25)
//      1.732051 x 0.316074 + 2 x 1.316074 x 0.147203          = 0.934919
//   n1 used (1, 24, 32): u = (0.25, 0.75, 0.125)
//      1.316074 x 0.316074 + (2.279507 + 1.147203) x 0.147203 = 0.920400
//   n2 used (3, 0, 0):   u = (0.75, 0, 0)
//      2.279507 x 0.316074 + 2 x 0.147203                     = 1.014903
// E-PVM: n1 (least marginal cost). Best fit: n2 (leaves 0 whole GPUs).
TEST(Epvm, HandComputedMarginalCost) {
  ClusterState c = Nodes(3, 4, 32000, 256 * kGiB);
  Use(c, 0, 2, 8000, 64 * kGiB);
  Use(c, 1, 1, 24000, 32 * kGiB);
  Use(c, 2, 3, 0, 0);
  const Job j = OneTask(1, 4000, 32 * kGiB);
  EXPECT_EQ(Chosen(*MakeEpvm(), j, c), 1);
  EXPECT_EQ(Chosen(*MakeBestFit(), j, c), 2);
  EXPECT_EQ(MakeEpvm()->id().name, "epvm");
}

// Worst fit looks at GPUs only; E-PVM weighs CPU too. Same nodes and task:
//   n0 used (1, 28, 0): u = (0.25, 0.875, 0)
//      1.316074 x 0.316074 + 2.615056 x 0.147203 + 0.147203 = 0.948123
//   n1 used (2, 0, 0):  u = (0.5, 0, 0)
//      1.732051 x 0.316074 + 0.147203 + 0.147203            = 0.841862
//   n2 used (2, 0, 0): ties n1 and loses on index.
// E-PVM: n1; worst fit: n0 (3 whole GPUs left).
TEST(Epvm, WeighsCpuAgainstGpus) {
  ClusterState c = Nodes(3, 4, 32000, 256 * kGiB);
  Use(c, 0, 1, 28000, 0);
  Use(c, 1, 2, 0, 0);
  Use(c, 2, 2, 0, 0);
  const Job j = OneTask(1, 4000, 32 * kGiB);
  EXPECT_EQ(Chosen(*MakeEpvm(), j, c), 1);
  EXPECT_EQ(Chosen(*MakeWorstFit(), j, c), 0);
}

// The fixed-point cost exactly as documented, computed per node; base 0:
// the default, max(2, number of nodes).
int64_t EpvmReference(const ClusterState& c, NodeIndex n, const TaskDemand& d, double base = 0) {
  const double lb =
      std::log(base > 0 ? base : std::max<double>(2.0, static_cast<double>(c.num_nodes())));
  auto term = [&](int64_t used, int64_t demand, int64_t cap) -> int64_t {
    const double inv = 10000 / static_cast<double>(cap);
    const int64_t step =
        std::min<int64_t>(10000, static_cast<int64_t>(static_cast<double>(used) * inv + 0.5));
    const double factor =
        std::expm1(lb * (static_cast<double>(demand) / static_cast<double>(cap))) * 1e6;
    return static_cast<int64_t>(std::exp(lb * static_cast<double>(step) / 10000) * factor + 0.5);
  };
  const NodeInfo& info = c.node(n);
  int64_t cost = term(info.cpu_milli - c.free_cpu(n), d.cpu_milli, info.cpu_milli) +
                 term(info.mem_bytes - c.free_mem(n), d.mem_bytes, info.mem_bytes);
  if (info.gpus > 0) {
    int64_t free = 0;
    for (int g = 0; g < info.gpus; ++g) free += c.gpu_free_milli(n, g);
    cost += term(1000 * info.gpus - free, d.gpus > 0 ? d.total_gpu_milli() : 0, 1000 * info.gpus);
  }
  return cost;
}

// Random heterogeneous states (two node shapes, whole and fractional use),
// random tasks: the FindFirst sweep must pick the reference's argmin, with
// the default base and with a given one (epvm:base=B, near 1 and large).
TEST(Epvm, IndexedSearchEqualsBruteForce) {
  Rng r(7, 0, "epvm-test");
  for (int round = 0; round < 60; ++round) {
    ClusterSpec s;
    s.name = "r";
    s.models = {{"G", 80 * kGiB, 1.0}};
    s.groups = {{"a", 6, "G", 8, 64000, 512 * kGiB, 0},
                {"b", 5, "G", 4, 32000, 256 * kGiB, 0},
                {"cpu", 2, "", 0, 48000, 128 * kGiB, 0}};
    ClusterState c = ClusterState::Build(s).value();
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
    auto epvm = MakeEpvm();
    const double base = round % 2 == 0 ? 1.05 : 5000;
    auto given = MakeEpvm(base);
    for (int t = 0; t < 20; ++t) {
      Job j = OneTask(static_cast<int>(r.UniformInt(0, 4)), 1000 * r.UniformInt(1, 16),
                      kGiB * r.UniformInt(1, 96));
      if (fractions && j.task.gpus == 1) j.task.gpu_milli = 300;
      int64_t want = -1, want_cost = INT64_MAX, want_given = -1, given_cost = INT64_MAX;
      for (NodeIndex n = 0; n < c.num_nodes(); ++n) {
        if (!c.CanHost(n, j.task, kAnyModel)) continue;
        const int64_t cost = EpvmReference(c, n, j.task);
        if (cost < want_cost) {
          want = n;
          want_cost = cost;
        }
        const int64_t cost_given = EpvmReference(c, n, j.task, base);
        if (cost_given < given_cost) {
          want_given = n;
          given_cost = cost_given;
        }
      }
      SCOPED_TRACE("round " + std::to_string(round) + " task " + std::to_string(t));
      EXPECT_EQ(Chosen(*epvm, j, c), want);
      EXPECT_EQ(Chosen(*given, j, c), want_given) << "base " << base;
    }
  }
}

// Hybrid. Nodes of 8 GPUs, 64 cores, 512 GiB. Task: 1 GPU, 2 cores, 16 GiB.
// f_r = free fraction after placing (millionths); cost = f_gpu + sum(f_r - min).
//   n0 free (2, 4 cores, 400 GiB) -> after (1/8, 2/64, 384/512)
//      = (125000, 31250, 750000): 125000 + (93750 + 0 + 718750) = 937500
//   n1 free (3, 24 cores, 192 GiB) -> after (2/8, 22/64, 176/512)
//      = (250000, 343750, 343750): 250000 + (0 + 93750 + 93750) = 437500
// Hybrid: n1. Best fit: n0 (1 whole GPU left), which strands its memory
// behind an exhausted CPU.
TEST(StrandingHybrid, AvoidsStrandingWhereBestFitDoesNot) {
  ClusterState c = Nodes(2, 8, 64000, 512 * kGiB);
  Use(c, 0, 6, 60000, 112 * kGiB);
  Use(c, 1, 5, 40000, 320 * kGiB);
  const Job j = OneTask(1, 2000, 16 * kGiB);
  EXPECT_EQ(Chosen(*MakeStrandingHybrid(), j, c), 1);
  EXPECT_EQ(Chosen(*MakeBestFit(), j, c), 0);
  EXPECT_EQ(MakeStrandingHybrid()->id().name, "stranding-hybrid");
}

// Vice versa: a CPU-only task (primary = CPU). Task: 8 cores, 8 GiB.
//   n0 free (8 GPUs, 10 cores, 500 GiB) -> after (1, 2/64, 492/512)
//      = (1000000, 31250, 960937): 31250 + (968750 + 0 + 929687) = 1929687
//   n1 free (0 GPUs, 20 cores, 40 GiB) -> after (0, 12/64, 32/512)
//      = (0, 187500, 62500): 187500 + (0 + 187500 + 62500) = 437500
// Hybrid: n1 (the CPU-only task would strand n0's eight idle GPUs).
// Best fit (least CPU left): n0.
TEST(StrandingHybrid, KeepsCpuForIdleGpus) {
  ClusterState c = Nodes(2, 8, 64000, 512 * kGiB);
  Use(c, 0, 0, 54000, 12 * kGiB);
  Use(c, 1, 8, 44000, 472 * kGiB);
  const Job j = OneTask(0, 8000, 8 * kGiB);
  EXPECT_EQ(Chosen(*MakeStrandingHybrid(), j, c), 1);
  EXPECT_EQ(Chosen(*MakeBestFit(), j, c), 0);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
