// The indexed built-in placements must choose exactly what the scan-based
// framework profiles with the matching score plugin choose, on random
// heterogeneous clusters and workloads (whole, fractional, CPU-only and gang
// jobs, GPU-model constraints).
#include <gtest/gtest.h>

#include "utilsim/engine/rng.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

ClusterSpec RandomCluster(Rng& r) {
  ClusterSpec s;
  s.name = "random";
  s.models = {{"A", 80LL << 30, 1.0}, {"B", 16LL << 30, 1.0}};
  const int groups = 3 + static_cast<int>(r.UniformInt(0, 3));
  for (int g = 0; g < groups; ++g) {
    NodeGroup ng;
    ng.name = "g" + std::to_string(g);
    ng.count = 1 + static_cast<int>(r.UniformInt(0, 4));
    ng.gpu_model = r.Uniform01() < 0.5 ? "A" : "B";
    const int sizes[] = {1, 2, 4, 8};
    ng.gpus = sizes[r.UniformInt(0, 3)];
    ng.cpu_milli = 1000 * r.UniformInt(8, 64);
    ng.mem_bytes = r.UniformInt(64, 512) << 30;
    s.groups.push_back(ng);
  }
  s.groups.push_back({"cpu", 2, "", 0, 64000, 256LL << 30, 0});
  return s;
}

enum class Kinds { kMixed, kWhole, kFractional, kCpu };

Workload RandomJobs(Rng& r, int n, Kinds kinds) {
  Workload w;
  int64_t t = 0;
  for (int i = 0; i < n; ++i) {
    Job j;
    j.name = "j" + std::to_string(i);
    t += static_cast<int64_t>(r.Exponential(20e6));
    j.submit = Micros(t);
    j.runtime = Seconds(r.UniformInt(10, 2000));
    double kind = r.Uniform01();
    if (kinds == Kinds::kWhole) kind = 0.5;
    if (kinds == Kinds::kFractional) kind = 0.2;
    if (kinds == Kinds::kCpu) kind = 0.0;
    if (kind < 0.15) {
      j.task.gpus = 0;
    } else if (kind < 0.35) {
      j.task.gpus = 1;
      j.task.gpu_milli = static_cast<int32_t>(r.UniformInt(1, 19)) * 50;
    } else {
      const int sizes[] = {1, 1, 2, 4, 8};
      j.task.gpus = sizes[r.UniformInt(0, 4)];
      if (r.Uniform01() < 0.1) j.tasks = static_cast<int32_t>(r.UniformInt(2, 3));
    }
    j.task.cpu_milli = 1000 * r.UniformInt(1, 8);
    j.task.mem_bytes = r.UniformInt(1, 32) << 30;
    if (r.Uniform01() < 0.2) j.gpu_models = {r.Uniform01() < 0.5 ? "A" : "B"};
    j.util = static_cast<float>(r.Uniform01());
    w.jobs.push_back(j);
  }
  w.Finalize();
  return w;
}

void ExpectSameSchedule(const std::string& builtin, const std::string& profile_scores,
                        Kinds kinds) {
  PolicyRegistry reg = BuiltinPolicies();
  const std::string yaml =
      "profiles:\n  - name: framework-twin\n    queue: fifo-skip\n"
      "    filters: [resources-fit, gpu-model]\n" +
      profile_scores;
  ASSERT_TRUE(LoadProfilesFromString(yaml, "twin.yaml", &reg).ok());
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    Rng r(seed, 0, "equivalence");
    ClusterSpec c = RandomCluster(r);
    Workload w = RandomJobs(r, 300, kinds);
    auto a = reg.Make("fifo-skip+" + builtin);
    auto b = reg.Make("framework-twin");
    ASSERT_TRUE(a.ok() && b.ok());
    auto ra = Simulate(c, w, *a.value(), SimConfig{});
    auto rb = Simulate(c, w, *b.value(), SimConfig{});
    ASSERT_TRUE(ra.ok() && rb.ok());
    for (size_t i = 0; i < w.jobs.size(); ++i) {
      SCOPED_TRACE(builtin + " seed " + std::to_string(seed) + " job " + w.jobs[i].name);
      ASSERT_EQ(ra.value().jobs[i].placement, rb.value().jobs[i].placement);
      ASSERT_EQ(ra.value().jobs[i].start, rb.value().jobs[i].start);
    }
  }
}

TEST(Equivalence, FirstFitEqualsFiltersOnly) { ExpectSameSchedule("first-fit", "", Kinds::kMixed); }

TEST(Equivalence, BestFitWholeGpusEqualsLeastLeftover) {
  ExpectSameSchedule("best-fit", "    scores: [{plugin: gpu-least-leftover}]\n", Kinds::kWhole);
}

TEST(Equivalence, WorstFitWholeGpusEqualsMostLeftover) {
  ExpectSameSchedule("worst-fit", "    scores: [{plugin: gpu-most-leftover}]\n", Kinds::kWhole);
}

TEST(Equivalence, BestFitFractionalEqualsTightestShare) {
  ExpectSameSchedule("best-fit", "    scores: [{plugin: share-tightest}]\n", Kinds::kFractional);
}

TEST(Equivalence, CpuOnlyTasksFollowCpuLeftover) {
  ExpectSameSchedule("best-fit", "    scores: [{plugin: cpu-least-leftover}]\n", Kinds::kCpu);
  ExpectSameSchedule("worst-fit", "    scores: [{plugin: cpu-most-leftover}]\n", Kinds::kCpu);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
