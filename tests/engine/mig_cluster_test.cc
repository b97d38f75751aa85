// MIG in the simulation with static layouts (mig_cluster.h): the cluster
// expansion (ExpandMig) and the right-sizing (RightSizeMig). Every expected
// value is computed by hand in the comments.
#include "utilsim/engine/mig_cluster.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;

bool Has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

ClusterSpec H100(std::vector<std::string> mig, int32_t gpus, int64_t cpu_milli, int64_t mem_bytes,
                 int32_t count = 2) {
  ClusterSpec c;
  c.name = "c";
  c.models.push_back(GpuModelSpec{"H100-80GB", 80 * kGiB, 1.0});
  c.groups.push_back(NodeGroup{"h", count, "H100-80GB", gpus, cpu_milli, mem_bytes, 0, mig});
  return c;
}

const NodeGroup* Group(const ClusterSpec& c, const std::string& name) {
  for (const NodeGroup& g : c.groups)
    if (g.name == name) return &g;
  return nullptr;
}

const GpuModelSpec* Model(const ClusterSpec& c, const std::string& name) {
  const int i = c.FindModel(name);
  return i < 0 ? nullptr : &c.models[static_cast<size_t>(i)];
}

const std::string k1g7 = "1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb";

TEST(ExpandMig, OneGroupPerProfileWithInstanceCountsModelsAndSplit) {
  // Two GPUs per node: 3g + 2g + 2g, and seven 1g. Instances per node:
  // 3g x1 (3 slices), 2g x2 (4 slices), 1g x7 (7 slices): 14 slices.
  ClusterSpec spec = H100({"3g.40gb,2g.20gb,2g.20gb", k1g7}, 2, 96000, 1024 * kGiB);
  spec.groups.push_back(NodeGroup{"cpu", 3, "", 0, 32000, 64 * kGiB, 0});
  auto r = ExpandMig(spec);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ClusterSpec& x = r.value();
  ASSERT_EQ(x.groups.size(), 4u);
  // Largest profile first, then the untouched group.
  EXPECT_EQ(x.groups[0].name, "h/3g.40gb");
  EXPECT_EQ(x.groups[1].name, "h/2g.20gb");
  EXPECT_EQ(x.groups[2].name, "h/1g.10gb");
  EXPECT_EQ(x.groups[3].name, "cpu");
  EXPECT_EQ(x.groups[3].cpu_milli, 32000);
  EXPECT_EQ(x.groups[0].gpus, 1);
  EXPECT_EQ(x.groups[1].gpus, 2);
  EXPECT_EQ(x.groups[2].gpus, 7);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(x.groups[i].count, 2);
    EXPECT_EQ(x.groups[i].nvlink_domain, 0);
    EXPECT_TRUE(x.groups[i].mig.empty());
  }
  EXPECT_EQ(x.groups[0].gpu_model, "H100-80GB/3g.40gb");
  EXPECT_EQ(x.groups[2].gpu_model, "H100-80GB/1g.10gb");
  // Models: the physical one kept, the instances appended with memory
  // 80 GiB x memory slices / 8: 3g (4 slices) 40 GiB, 2g 20 GiB, 1g 10 GiB.
  ASSERT_EQ(x.models.size(), 4u);
  EXPECT_EQ(x.models[0].name, "H100-80GB");
  ASSERT_NE(Model(x, "H100-80GB/3g.40gb"), nullptr);
  EXPECT_EQ(Model(x, "H100-80GB/3g.40gb")->memory_bytes, 40 * kGiB);
  EXPECT_EQ(Model(x, "H100-80GB/2g.20gb")->memory_bytes, 20 * kGiB);
  EXPECT_EQ(Model(x, "H100-80GB/1g.10gb")->memory_bytes, 10 * kGiB);
  // CPU 96000 by slices 3:4:7 of 14: 96000 / 14 = 6857 rest 2; 3g 6857x3 =
  // 20571, 2g 27428, 1g 47999 + floor(2x7/14) = 48000; leftover 96000 -
  // 95999 = 1 to the first (3g): 20572.
  EXPECT_EQ(x.groups[0].cpu_milli, 20572);
  EXPECT_EQ(x.groups[1].cpu_milli, 27428);
  EXPECT_EQ(x.groups[2].cpu_milli, 48000);
  // Memory 2^40 / 14 = 78536544841 rest 2: 3g 235609634523 + 1 leftover,
  // 2g 314146179364, 1g 549755813887 + 1 = 512 GiB.
  EXPECT_EQ(x.groups[0].mem_bytes, 235609634524);
  EXPECT_EQ(x.groups[1].mem_bytes, 314146179364);
  EXPECT_EQ(x.groups[2].mem_bytes, 512 * kGiB);
  EXPECT_EQ(x.groups[0].mem_bytes + x.groups[1].mem_bytes + x.groups[2].mem_bytes, 1024 * kGiB);
  // The expanded models parse back.
  auto im = ParseMigInstanceModel("H100-80GB/2g.20gb");
  ASSERT_TRUE(im.has_value());
  EXPECT_EQ(im->prof().compute_slices, 2);
  EXPECT_FALSE(ParseMigInstanceModel("H100-80GB").has_value());
  EXPECT_FALSE(ParseMigInstanceModel("V100/1g.5gb").has_value());
  EXPECT_FALSE(ParseMigInstanceModel("H100-80GB/1g.5gb").has_value());  // an A100-40GB name
}

TEST(ExpandMig, OneLayoutForEveryGpuAndNoMigUnchanged) {
  // One layout for all 8 GPUs: 4g + 3g each -> 8 4g and 8 3g instances,
  // CPU 4:3 (32 and 24 slices of 56): 96000 x 32/56 = 54857.14 -> 54857
  // (+1 leftover), 3g 41142.86 -> 41142.
  auto r = ExpandMig(H100({"4g.40gb,3g.40gb"}, 8, 96000, 1024 * kGiB, 1));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().groups.size(), 2u);
  EXPECT_EQ(r.value().groups[0].name, "h/4g.40gb");
  EXPECT_EQ(r.value().groups[0].gpus, 8);
  EXPECT_EQ(r.value().groups[1].gpus, 8);
  EXPECT_EQ(r.value().groups[0].cpu_milli, 54858);
  EXPECT_EQ(r.value().groups[1].cpu_milli, 41142);
  // All 7g: one group of whole-GPU instances with the node's CPU.
  r = ExpandMig(H100({"7g.80gb"}, 8, 96000, 1024 * kGiB, 60));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.value().groups.size(), 1u);
  EXPECT_EQ(r.value().groups[0].name, "h/7g.80gb");
  EXPECT_EQ(r.value().groups[0].count, 60);
  EXPECT_EQ(r.value().groups[0].gpus, 8);
  EXPECT_EQ(r.value().groups[0].cpu_milli, 96000);
  EXPECT_EQ(Model(r.value(), "H100-80GB/7g.80gb")->memory_bytes, 80 * kGiB);
  // Without MIG: unchanged.
  const ClusterSpec plain = H100({}, 8, 96000, 1024 * kGiB);
  EXPECT_FALSE(HasMig(plain));
  r = ExpandMig(plain);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.value().groups.size(), 1u);
  EXPECT_EQ(r.value().groups[0].name, "h");
  EXPECT_EQ(r.value().models.size(), 1u);
}

TEST(ExpandMig, NoInstancesIsCpuOnly) {
  auto r = ExpandMig(H100({""}, 8, 96000, 1024 * kGiB));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().groups.size(), 1u);
  const NodeGroup& g = r.value().groups[0];
  EXPECT_EQ(g.name, "h");
  EXPECT_EQ(g.gpus, 0);
  EXPECT_EQ(g.gpu_model, "");
  EXPECT_EQ(g.cpu_milli, 96000);
  EXPECT_EQ(g.mem_bytes, 1024 * kGiB);
  EXPECT_TRUE(g.mig.empty());
}

TEST(ExpandMig, ErrorsNameGroupAndEntry) {
  auto r = ExpandMig(H100({"7g.80gb", "3g.40gb@1"}, 2, 96000, 1024 * kGiB));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "cluster 'c', node group 'h': mig[1]: entry 1 '3g.40gb@1': start 1 is not a valid "
            "placement (valid starts: 0, 4)");
  r = ExpandMig(H100({"7g.80gb", "7g.80gb", "7g.80gb"}, 2, 96000, 1024 * kGiB));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "cluster 'c', node group 'h': mig: expected 1 or 2 layouts (one per GPU), got 3");
  ClusterSpec v100 = H100({"7g.80gb"}, 2, 96000, 1024 * kGiB);
  v100.models[0].name = "V100";
  v100.groups[0].gpu_model = "V100";
  r = ExpandMig(v100);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(
      Has(r.status().message(),
          "cluster 'c', node group 'h': gpu_model 'V100' has no MIG profiles (MIG models: "))
      << r.status().message();
  ClusterSpec racks = H100({"7g.80gb"}, 2, 96000, 1024 * kGiB);
  racks.topology.nodes_per_rack = 2;
  r = ExpandMig(racks);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.status().message(), "node group 'h': MIG layouts with a rack topology"))
      << r.status().message();
  // 1 milli-core cannot be divided among two profiles.
  r = ExpandMig(H100({"4g.40gb,3g.40gb"}, 1, 1, 1024 * kGiB));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.status().message(), "node group 'h': too little CPU or memory"));
}

// Right-sizing on one node of 4 GPUs: 7g | 4g + 3g | 3g + 2g + 2g | 7 x 1g.
// Slices: 7g 7, 4g 4, 3g 2x3 = 6, 2g 2x2 = 4, 1g 7: 28. CPU 112 cores =
// 4 cores per slice, memory 448 GiB = 16 GiB per slice, so per instance:
// 1g 4 cores / 16 GiB, 2g 8 / 32, 3g 12 / 48, 4g 16 / 64 (exact: 28 | both).
ClusterSpec RightSizeCluster() {
  auto r = ExpandMig(H100({"7g.80gb", "4g.40gb,3g.40gb", "3g.40gb,2g.20gb,2g.20gb", k1g7}, 4,
                          112000, 448 * kGiB, 1));
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : ClusterSpec{};
}

Job GpuJob(const std::string& name, float util, int64_t cpu_milli = 1000,
           int64_t mem_bytes = kGiB) {
  Job j;
  j.name = name;
  j.runtime = Micros{3600'000'000};
  j.task.gpus = 1;
  j.task.cpu_milli = cpu_milli;
  j.task.mem_bytes = mem_bytes;
  j.util = util;
  j.util_known = true;
  return j;
}

TEST(RightSizeMig, ChoosesProfilesByHand) {
  const ClusterSpec x = RightSizeCluster();
  const NodeGroup* g1 = Group(x, "h/1g.10gb");
  ASSERT_NE(g1, nullptr);
  EXPECT_EQ(g1->cpu_milli / g1->gpus, 4000);
  EXPECT_EQ(g1->mem_bytes / g1->gpus, 16 * kGiB);
  EXPECT_EQ(Group(x, "h/3g.40gb")->cpu_milli / 2, 12000);

  Workload w;
  // 0: 300 milli -> ceil(7 x 0.3) = ceil(2.1) = 3 slices: 3g.
  w.jobs.push_back(GpuJob("frac300", 1.0f));
  w.jobs.back().task.gpu_milli = 300;
  // 1: 100 milli -> ceil(0.7) = 1: 1g.
  w.jobs.push_back(GpuJob("frac100", 1.0f));
  w.jobs.back().task.gpu_milli = 100;
  // 2: 500 milli -> ceil(3.5) = 4: 4g.
  w.jobs.push_back(GpuJob("frac500", 1.0f));
  w.jobs.back().task.gpu_milli = 500;
  // 3: two GPUs, idle: kept whole (7g).
  w.jobs.push_back(GpuJob("multi", 0.0f));
  w.jobs.back().task.gpus = 2;
  // 4: util unknown: kept whole.
  w.jobs.push_back(GpuJob("unknown", 1.0f));
  w.jobs.back().util_known = false;
  // 5: util 0 (speed 1 anywhere), memory unknown -> 10 GiB <= 1g's 10 GiB: 1g.
  w.jobs.push_back(GpuJob("idle", 0.0f));
  // 6: util 0 but 15 GiB measured: 1g (10) too small, 2g (20): 2g.
  w.jobs.push_back(GpuJob("mem15", 0.0f));
  w.jobs.back().gpu_mem_used_bytes = 15 * kGiB;
  // 7: util 0, requests 30 GiB GPU memory: 3g (40).
  w.jobs.push_back(GpuJob("req30", 0.0f));
  w.jobs.back().task.gpu_mem_bytes = 30 * kGiB;
  // 8: util 0.3: demand 0.3 / 0.44 = 0.6818; speeds 1g 0.198, 2g 0.396,
  // 3g 0.668, 4g 0.792, 7g 1: at tol 0.9 only 7g.
  w.jobs.push_back(GpuJob("u30", 0.3f));
  // 9: util 0.05: demand 0.1136; 1g capacity 0.1349 -> speed 1: 1g.
  w.jobs.push_back(GpuJob("u05", 0.05f));
  // 10: util 0.1: demand 0.2273; 1g 0.594, 2g 0.2699 / 0.2273 -> 1: 2g.
  w.jobs.push_back(GpuJob("u10", 0.1f));
  // 11: util 0, 6 cores: 1g has 4, 2g 8: 2g (CPU rule).
  w.jobs.push_back(GpuJob("cpu6", 0.0f, 6000));
  // 12: util 0, 40 GiB host memory: 1g 16, 2g 32, 3g 48: 3g.
  w.jobs.push_back(GpuJob("host40", 0.0f, 1000, 40 * kGiB));
  // 13: util 0, 20 cores: no profile below 7g has that: 7g (not a fallback,
  // 7g qualifies).
  w.jobs.push_back(GpuJob("cpu20", 0.0f, 20000));
  // 14: a CPU-only job is not touched.
  w.jobs.push_back(GpuJob("cpuonly", 0.0f));
  w.jobs.back().task.gpus = 0;

  auto r = RightSizeMig(x, RightSizeParams{}, &w);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto models = [&](size_t i) { return w.jobs[i].gpu_models; };
  using V = std::vector<std::string>;
  EXPECT_EQ(models(0), V{"H100-80GB/3g.40gb"});
  EXPECT_EQ(w.jobs[0].task.gpu_milli, 1000);
  EXPECT_EQ(models(1), V{"H100-80GB/1g.10gb"});
  EXPECT_EQ(models(2), V{"H100-80GB/4g.40gb"});
  EXPECT_EQ(models(3), V{"H100-80GB/7g.80gb"});
  EXPECT_EQ(w.jobs[3].task.gpus, 2);
  EXPECT_EQ(models(4), V{"H100-80GB/7g.80gb"});
  EXPECT_EQ(models(5), V{"H100-80GB/1g.10gb"});
  EXPECT_EQ(models(6), V{"H100-80GB/2g.20gb"});
  EXPECT_EQ(models(7), V{"H100-80GB/3g.40gb"});
  EXPECT_EQ(models(8), V{"H100-80GB/7g.80gb"});
  EXPECT_EQ(models(9), V{"H100-80GB/1g.10gb"});
  EXPECT_EQ(models(10), V{"H100-80GB/2g.20gb"});
  EXPECT_EQ(models(11), V{"H100-80GB/2g.20gb"});
  EXPECT_EQ(models(12), V{"H100-80GB/3g.40gb"});
  EXPECT_EQ(models(13), V{"H100-80GB/7g.80gb"});
  EXPECT_TRUE(models(14).empty());

  const RightSizeStats& s = r.value();
  EXPECT_EQ(s.jobs, 14);
  EXPECT_EQ(s.multi_gpu, 1);
  EXPECT_EQ(s.unknown_util, 1);
  EXPECT_EQ(s.fractional, 3);
  EXPECT_EQ(s.by_util, 9);
  // Memory unknown: the 3 fractional jobs and the util jobs without a
  // measurement or request (all but mem15 and req30): 3 + 7.
  EXPECT_EQ(s.mem_unknown, 10);
  EXPECT_EQ(s.fallback, 0);
  EXPECT_EQ(s.by_profile.at("1g.10gb"), 3);
  EXPECT_EQ(s.by_profile.at("2g.20gb"), 3);
  EXPECT_EQ(s.by_profile.at("3g.40gb"), 3);
  EXPECT_EQ(s.by_profile.at("4g.40gb"), 1);
  EXPECT_EQ(s.by_profile.at("7g.80gb"), 4);
  const std::string line = FormatRightSizeStats(s, RightSizeParams{});
  EXPECT_TRUE(Has(line, "mig right-size tol=0.9 (derived")) << line;
  EXPECT_TRUE(Has(line, "1g.10gb 3, 2g.20gb 3, 3g.40gb 3, 4g.40gb 1, 7g.80gb 4")) << line;
  EXPECT_TRUE(Has(line, "kept whole: 1 multi-GPU, 1 without measured util")) << line;
}

TEST(RightSizeMig, ToleranceMovesTheChoice) {
  // util 0.3 (demand 0.6818): speeds 4g 0.792, 3g 0.668 (see above).
  for (const auto& [tol, want] :
       std::vector<std::pair<double, std::string>>{{0.9, "H100-80GB/7g.80gb"},
                                                   {0.75, "H100-80GB/4g.40gb"},
                                                   {0.6, "H100-80GB/3g.40gb"},
                                                   {0.35, "H100-80GB/2g.20gb"},
                                                   {0.19, "H100-80GB/1g.10gb"}}) {
    Workload w;
    w.jobs.push_back(GpuJob("u30", 0.3f));
    RightSizeParams p;
    p.tolerance = tol;
    auto r = RightSizeMig(RightSizeCluster(), p, &w);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(w.jobs[0].gpu_models, std::vector<std::string>{want}) << tol;
  }
}

TEST(RightSizeMig, FallbackAndAllowedModels) {
  // Only 1g and 2g present (7 x 1g | 2g x 3 + 1g): a job at util 1 fits
  // neither at tol 0.9: the largest present (2g) as a fallback.
  auto x = ExpandMig(H100({k1g7, "2g.20gb,2g.20gb,2g.20gb,1g.10gb"}, 2, 96000, 1024 * kGiB, 1));
  ASSERT_TRUE(x.ok()) << x.status().message();
  x.value().models.push_back(GpuModelSpec{"A100-80GB", 80 * kGiB, 1.0});
  x.value().groups.push_back(NodeGroup{"a", 1, "A100-80GB", 8, 96000, 1024 * kGiB, 0});
  Workload w;
  w.jobs.push_back(GpuJob("busy", 1.0f));
  w.jobs.push_back(GpuJob("onlyA", 0.0f));
  w.jobs.back().gpu_models = {"A100-80GB"};
  auto r = RightSizeMig(x.value(), RightSizeParams{}, &w);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().fallback, 1);
  // The chosen instance and the whole-GPU model of the non-MIG group.
  EXPECT_EQ(w.jobs[0].gpu_models, (std::vector<std::string>{"H100-80GB/2g.20gb", "A100-80GB"}));
  // A job allowed only the non-MIG model keeps it.
  EXPECT_EQ(w.jobs[1].gpu_models, std::vector<std::string>{"A100-80GB"});
}

TEST(RightSizeMig, Errors) {
  Workload w;
  w.jobs.push_back(GpuJob("a", 0.0f));
  RightSizeParams p;
  for (double bad : {0.0, -0.5, 1.5}) {
    p.tolerance = bad;
    auto r = RightSizeMig(RightSizeCluster(), p, &w);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(Has(r.status().message(), "--mig right-size: tolerance must be in (0, 1]"))
        << r.status().message();
  }
  auto r = RightSizeMig(H100({}, 8, 96000, 1024 * kGiB), RightSizeParams{}, &w);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.status().message(), "declares no MIG layouts")) << r.status().message();
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
