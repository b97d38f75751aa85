// Right-sizing for dynamic MIG (RightSizeMigDynamic, mig_cluster.h): every
// plain profile of the model is a candidate, no per-instance CPU share, the
// profile goes into TaskDemand::mig_profile. Expected values by hand; speeds
// as in mig_cluster_test.cc (w = 0.41, u_sat = 0.44).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "utilsim/engine/mig_cluster.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;
// H100 profile indices (mig.h order): 1g.10gb 0, 1g.20gb 2, 2g.20gb 3,
// 3g.40gb 4, 4g.40gb 5, 7g.80gb 6.
constexpr int k1g = 0, k1g20 = 2, k2g = 3, k3g = 4, k4g = 5, k7g = 6;

ClusterSpec Dynamic() {
  ClusterSpec c;
  c.name = "c";
  c.models.push_back(GpuModelSpec{"H100-80GB", 80 * kGiB, 1.0});
  c.models.push_back(GpuModelSpec{"V100", 32 * kGiB, 1.0});
  c.groups.push_back(NodeGroup{"h", 2, "H100-80GB", 8, 96000, 1024 * kGiB, 0, {"7g.80gb"}});
  c.groups.push_back(NodeGroup{"v", 1, "V100", 8, 96000, 1024 * kGiB, 0});
  return c;
}

Job GpuJob(const std::string& name, float util, int64_t cpu_milli = 1000) {
  Job j;
  j.name = name;
  j.runtime = Micros{3600'000'000};
  j.task.gpus = 1;
  j.task.cpu_milli = cpu_milli;
  j.task.mem_bytes = kGiB;
  j.util = util;
  j.util_known = true;
  return j;
}

TEST(RightSizeMigDynamic, ChoosesProfilesByHand) {
  Workload w;
  // 0: util 0, memory unknown (10 GiB assumed): 1g.10gb; milli 125, the
  // instance's 10 GiB, only the MIG model.
  w.jobs.push_back(GpuJob("idle", 0.0f));
  // 1: 15 GiB measured: 1g.10gb too small, 1g.20gb (1 compute, 2 memory
  // slices, 20 GiB) is next in (compute, memory) order (the static sizer
  // only sees present profiles).
  w.jobs.push_back(GpuJob("mem15", 0.0f));
  w.jobs.back().gpu_mem_used_bytes = 15 * kGiB;
  // 2: 20 cores: no per-instance CPU share here: still 1g.10gb.
  w.jobs.push_back(GpuJob("cpu20", 0.0f, 20000));
  // 3: util 0.1: demand 0.2273; 1g speed 0.594, 1g.20gb capacity
  // 1/(0.59 x 7 + 0.41 x 4) = 0.1761 -> 0.775, 2g 0.2699 -> 1: 2g.
  w.jobs.push_back(GpuJob("u10", 0.1f));
  // 4: 500 milli -> 4 compute slices: 4g (4 memory slices: milli 500).
  w.jobs.push_back(GpuJob("frac500", 1.0f));
  w.jobs.back().task.gpu_milli = 500;
  // 5: util 0.3: only 7g at tol 0.9: milli 1000, models unchanged.
  w.jobs.push_back(GpuJob("u30", 0.3f));
  // 6: two GPUs: 7g.
  w.jobs.push_back(GpuJob("multi", 0.0f));
  w.jobs.back().task.gpus = 2;
  // 7: allowed only on V100: untouched.
  w.jobs.push_back(GpuJob("onlyV", 0.0f));
  w.jobs.back().gpu_models = {"V100"};
  // 8: CPU-only: untouched.
  w.jobs.push_back(GpuJob("cpuonly", 0.0f));
  w.jobs.back().task.gpus = 0;

  auto r = RightSizeMigDynamic(Dynamic(), RightSizeParams{}, &w);
  ASSERT_TRUE(r.ok()) << r.status().message();
  using V = std::vector<std::string>;
  const int want[] = {k1g, k1g20, k1g, k2g, k4g, k7g, k7g, -1, -1};
  const int milli[] = {125, 250, 125, 250, 500, 1000, 1000, 1000, 1000};
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(w.jobs[i].task.mig_profile, want[i]) << w.jobs[i].name;
    EXPECT_EQ(w.jobs[i].task.gpu_milli, milli[i]) << w.jobs[i].name;
  }
  EXPECT_EQ(w.jobs[0].gpu_models, V{"H100-80GB"});
  EXPECT_EQ(w.jobs[0].task.gpu_mem_bytes, 10 * kGiB);
  EXPECT_EQ(w.jobs[1].task.gpu_mem_bytes, 20 * kGiB);
  EXPECT_EQ(w.jobs[4].task.gpu_mem_bytes, 40 * kGiB);
  EXPECT_TRUE(w.jobs[5].gpu_models.empty());  // 7g: a whole GPU anywhere
  EXPECT_EQ(w.jobs[5].task.gpu_mem_bytes, 0);
  EXPECT_EQ(w.jobs[7].gpu_models, V{"V100"});
  const RightSizeStats& s = r.value();
  EXPECT_EQ(s.jobs, 7);
  EXPECT_EQ(s.multi_gpu, 1);
  EXPECT_EQ(s.fractional, 1);
  EXPECT_EQ(s.by_util, 5);
  EXPECT_EQ(s.by_profile.at("1g.10gb"), 2);
  EXPECT_EQ(s.by_profile.at("7g.80gb"), 2);
}

// The demand by kind and tokens (mig.h MigDemand): an inference job of 160
// tokens per step has d = 160 / 3200 = 0.05, so 1g.10gb runs it at full
// speed (>= the 0.9 tolerance) although its utilization 0.3 alone would need
// the 7g; with tokens but no measured utilization it is sized the same; a
// training job at util 0.3 has d = 0.3 / 0.9: 1g 0.405, 1g.20gb 0.528,
// 2g 0.810, 3g 1/(0.59 x 7/3 + 0.41 x 8/4) = 0.4552 / 0.3333 -> 1: 3g.
TEST(RightSizeMigDynamic, DemandByKindAndTokens) {
  Workload w;
  w.jobs.push_back(GpuJob("infer", 0.3f));
  w.jobs.back().kind = JobKind::kInference;
  w.jobs.back().tokens_per_step = 160;
  w.jobs.push_back(GpuJob("tokens-only", 1.0f));
  w.jobs.back().util_known = false;
  w.jobs.back().tokens_per_step = 160;
  w.jobs.push_back(GpuJob("train", 0.3f));
  w.jobs.back().kind = JobKind::kTraining;
  auto r = RightSizeMigDynamic(Dynamic(), RightSizeParams{}, &w);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(w.jobs[0].task.mig_profile, k1g);
  EXPECT_EQ(w.jobs[1].task.mig_profile, k1g);
  EXPECT_EQ(w.jobs[2].task.mig_profile, k3g);
}

TEST(RightSizeMigDynamic, Errors) {
  Workload w;
  RightSizeParams p;
  p.tolerance = 0;
  EXPECT_EQ(RightSizeMigDynamic(Dynamic(), p, &w).status().message(),
            "--mig dynamic: tolerance must be in (0, 1], got 0.000000");
  ClusterSpec none = Dynamic();
  none.groups[0].mig.clear();
  EXPECT_EQ(RightSizeMigDynamic(none, RightSizeParams{}, &w).status().message(),
            "--mig dynamic: the cluster declares no MIG layouts (node group key 'mig')");
  ClusterSpec v = Dynamic();
  v.groups[1].mig = {"7g.80gb"};
  EXPECT_EQ(RightSizeMigDynamic(v, RightSizeParams{}, &w).status().message(),
            "cluster 'c', node group 'v': gpu_model 'V100' has no MIG profiles (MIG models: "
            "A100-40GB, A100-80GB, H100-80GB, H200-141GB)");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
