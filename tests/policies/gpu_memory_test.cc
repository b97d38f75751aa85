// GPU memory is a hard limit for co-location under every placement (issue 6,
// docs/sharing.md "GPU memory"). One node of two 40 GiB GPUs; three
// fractional jobs of 300 milli and 30 GiB each arrive together and run 100 s.
// Two 30 GiB jobs never fit one GPU (60 > 40 GiB), although their shares do
// (600 <= 1000): a and b take one GPU each, c waits until one of them ends
// (100 s). Without the limit best fit would start all three on GPU 0 at 0 s.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/framework.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

constexpr int64_t kGiB = int64_t{1} << 30;

ClusterSpec TwoGpus(int64_t gpu_mem) {
  ClusterSpec spec;
  spec.name = "m";
  spec.models = {{"G", gpu_mem, 1.0}};
  spec.groups = {{"n", 1, "G", 2, 16000, 64 * kGiB, 0}};
  return spec;
}

Workload ThreeJobs(int64_t gpu_mem) {
  Workload w;
  for (const char* name : {"a", "b", "c"}) {
    Job j;
    j.name = name;
    j.runtime = Seconds(100);
    j.task.gpus = 1;
    j.task.gpu_milli = 300;
    j.task.gpu_mem_bytes = gpu_mem;
    j.util = 1;
    j.util_known = true;
    w.jobs.push_back(j);
  }
  w.Finalize();
  return w;
}

// A registry with the built-ins and one framework profile per score plugin.
PolicyRegistry Registry() {
  PolicyRegistry reg = BuiltinPolicies();
  std::string yaml = "profiles:\n";
  for (const std::string& p : ScorePluginNames())
    yaml += "  - {name: mem-" + p +
            ", filters: [resources-fit, gpu-model], scores: [{plugin: " + p + "}]}\n";
  const Status s = LoadProfilesFromString(yaml, "test.yaml", &reg);
  EXPECT_TRUE(s.ok()) << s.message();
  return reg;
}

Result<RunResult> RunThree(const PolicyRegistry& reg, const std::string& name, int64_t gpu_mem,
                           int64_t model_mem = 40 * kGiB) {
  auto s = reg.Make(name);
  if (!s.ok()) return s.status();
  return Simulate(TwoGpus(model_mem), ThreeJobs(gpu_mem), *s.value(), SimConfig{});
}

TEST(GpuMemory, EveryPlacementKeepsTheLimit) {
  const PolicyRegistry reg = Registry();
  int policies = 0;
  for (const PolicyInfo& info : reg.List()) {
    if (info.kind != "placement" && info.kind != "profile") continue;
    ++policies;
    SCOPED_TRACE(info.name);
    auto r = RunThree(reg, info.name, 30 * kGiB);
    if (!r.ok()) {
      ADD_FAILURE() << r.status().message();
      continue;
    }
    const std::vector<JobRecord>& jobs = r.value().jobs;
    ASSERT_EQ(jobs.size(), 3u);
    for (const JobRecord& j : jobs) EXPECT_EQ(j.outcome, JobOutcome::kFinished) << j.name;
    // No GPU holds two of them at once.
    for (size_t x = 0; x < 3; ++x) {
      for (size_t y = x + 1; y < 3; ++y) {
        if (jobs[x].placement != jobs[y].placement) continue;
        EXPECT_TRUE(jobs[x].finish <= jobs[y].start || jobs[y].finish <= jobs[x].start)
            << jobs[x].name << " and " << jobs[y].name << " share " << jobs[x].placement;
      }
    }
    EXPECT_NE(jobs[0].placement, jobs[1].placement);
    EXPECT_EQ(jobs[0].start, Seconds(0));
    EXPECT_EQ(jobs[1].start, Seconds(0));
    EXPECT_EQ(jobs[2].start, Seconds(100));
  }
  EXPECT_GE(policies, 12 + static_cast<int>(ScorePluginNames().size()));
}

TEST(GpuMemory, EveryQueueRunsWithoutOverCommit) {
  // The engine refuses a memory over-commit (the run fails), so a finished
  // run under each scheduler kept the limit.
  const PolicyRegistry reg = BuiltinPolicies();
  for (const PolicyInfo& info : reg.List()) {
    if (info.kind != "queue" || info.name == "as-recorded") continue;
    SCOPED_TRACE(info.name);
    auto r = RunThree(reg, info.name + "+best-fit", 30 * kGiB);
    if (!r.ok()) {
      ADD_FAILURE() << r.status().message();
      continue;
    }
    EXPECT_EQ(r.value().summary.finished, 3);
  }
}

TEST(GpuMemory, UnknownMemoryCoLocatesFreely) {
  // gpu_mem_bytes 0 (unknown): best fit puts all three on GPU 0 at 0 s
  // (900 milli); so does a GPU model of unknown memory (0) with 30 GiB jobs.
  const PolicyRegistry reg = BuiltinPolicies();
  for (const auto& [job_mem, model_mem] :
       {std::pair{int64_t{0}, 40 * kGiB}, std::pair{30 * kGiB, int64_t{0}}}) {
    auto r = RunThree(reg, "best-fit", job_mem, model_mem);
    ASSERT_TRUE(r.ok()) << r.status().message();
    for (const JobRecord& j : r.value().jobs) {
      EXPECT_EQ(j.placement, "n:0") << j.name;
      EXPECT_EQ(j.start, Seconds(0)) << j.name;
    }
  }
}

TEST(GpuMemory, MoreThanAnyGpuHasIsRejectedAtArrival) {
  const PolicyRegistry reg = BuiltinPolicies();
  auto r = RunThree(reg, "best-fit", 41 * kGiB);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const JobRecord& j : r.value().jobs) {
    EXPECT_EQ(j.outcome, JobOutcome::kRejected) << j.name;
    EXPECT_EQ(j.reason,
              "no node can host one task (1 GPU x 300 milli, 0 milli-CPU, 0 MiB, 41984 MiB GPU "
              "memory per GPU)");
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
