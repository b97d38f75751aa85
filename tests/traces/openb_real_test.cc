// openb reader on the real Alibaba cluster-trace-gpu-v2023 files (skipped when
// absent): counts and recorded scheduling delays as in
// shared/traces/alibaba-gpu-v2023/SOURCE.md.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "testutil/testutil.h"
#include "utilsim/traces/openb.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::TracePath;

#define OPENB_PATH(var, file)                                   \
  const std::string var = TracePath("alibaba-gpu-v2023/" file); \
  if (var.empty())                                              \
  GTEST_SKIP() << "alibaba-gpu-v2023/" file << " not present under " << testutil::TracesDir()

struct PodCounts {
  int64_t gpu = 0, cpu_only = 0, sharing = 0, pending = 0;
  std::map<int32_t, int64_t> num_gpu;
  std::map<std::string, int64_t> tenant;
};

PodCounts Count(const Workload& w) {
  PodCounts c;
  for (const Job& j : w.jobs) {
    ++(j.task.gpus == 0 ? c.cpu_only : c.gpu);
    c.sharing += j.task.fractional();
    c.pending += !j.recorded_start.has_value();
    ++c.num_gpu[j.task.gpus];
    ++c.tenant[w.tenants[j.tenant]];
  }
  return c;
}

TEST(OpenbReal, DefaultPodList) {
  OPENB_PATH(path, "openb_pod_list_default.csv");
  auto r = ReadOpenbPods(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& t = r.value();
  EXPECT_EQ(t.rows_read, 8152);
  EXPECT_EQ(t.bytes_read, static_cast<int64_t>(std::filesystem::file_size(path)));
  const PodCounts c = Count(t.workload);
  EXPECT_EQ(t.workload.jobs.size(), 8152u);
  EXPECT_EQ(c.gpu, 7064);
  EXPECT_EQ(c.cpu_only, 1088);
  EXPECT_EQ(c.sharing, 3078);
  EXPECT_EQ(c.num_gpu,
            (std::map<int32_t, int64_t>{{0, 1088}, {1, 6989}, {2, 16}, {4, 15}, {8, 44}}));
  EXPECT_EQ(c.pending, 897);
  EXPECT_EQ(c.tenant, (std::map<std::string, int64_t>{
                          {"LS", 4647}, {"BE", 3398}, {"Burstable", 100}, {"Guaranteed", 7}}));
  // One pending pod (openb-pod-7285) has deletion_time == creation_time.
  EXPECT_EQ(t.warnings.count("runtime <= 0 (clamped to 1 s)"), 1);
  EXPECT_EQ(t.warnings.total(), 1);
  EXPECT_EQ(t.workload.jobs.front().submit, Seconds(0));
  EXPECT_EQ(t.workload.jobs.back().submit, Seconds(12901761));

  const OpenbDelayStats d = SummarizeDelays(OpenbScheduleDelays(t.workload));
  EXPECT_EQ(d.count, 8152 - 897);
  EXPECT_NEAR(d.mean_s, 61.30, 0.005);  // SOURCE.md: mean 61 s
  EXPECT_EQ(std::lround(d.mean_s), 61);
  EXPECT_EQ(d.median_s, 2.0);
  EXPECT_EQ(d.max_s, 14330.0);
  EXPECT_EQ(t.notes[1], "pod_phase: Running 5193, Failed 1870, Pending 897, Succeeded 192");

  auto skip = ReadOpenbPods(path, {OpenbPending::kSkip, 3600});
  ASSERT_TRUE(skip.ok()) << skip.status().message();
  EXPECT_EQ(skip.value().workload.jobs.size(), 8152u - 897u);
  EXPECT_EQ(skip.value().warnings.count("pending pod skipped"), 897);
  EXPECT_EQ(skip.value().warnings.total(), 897);  // the clamped pod is a skipped one
}

TEST(OpenbReal, NodeLists) {
  OPENB_PATH(all, "openb_node_list_all_node.csv");
  OPENB_PATH(gpu, "openb_node_list_gpu_node.csv");
  auto a = ReadOpenbNodes(all);
  auto g = ReadOpenbNodes(gpu);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(a.value().total_nodes(), 1523);
  EXPECT_EQ(a.value().total_gpus(), 6212);
  EXPECT_EQ(a.value().groups.size(), 27u);
  EXPECT_EQ(g.value().total_nodes(), 1213);
  EXPECT_EQ(g.value().total_gpus(), 6212);
  EXPECT_EQ(g.value().groups.size(), 15u);
  const std::map<std::string, int64_t> want = {{"G2", 4392},     {"T4", 842},      {"P100", 265},
                                               {"V100M16", 195}, {"V100M32", 204}, {"G3", 312},
                                               {"A10", 2}};
  for (const ClusterSpec* c : {&a.value(), &g.value()}) {
    std::map<std::string, int64_t> gpus;
    int64_t cpu_nodes = 0;
    for (const NodeGroup& grp : c->groups) {
      if (grp.gpu_model.empty())
        cpu_nodes += grp.count;
      else
        gpus[grp.gpu_model] += int64_t{grp.count} * grp.gpus;
    }
    EXPECT_EQ(gpus, want) << c->name;
    EXPECT_EQ(cpu_nodes, c == &a.value() ? 310 : 0) << c->name;
    EXPECT_EQ(c->models.size(), 7u);
  }
  EXPECT_EQ(a.value().groups[0].name, "cpu-32c-256g");
  EXPECT_EQ(a.value().groups[0].count, 129);
}

struct Variant {
  const char* file;
  int64_t rows;         // SOURCE.md table (cpuNNN, multigpuNN: counted here, within its range)
  int64_t sharing;      // pods with num_gpu 1 and gpu_milli < 1000
  int64_t constrained;  // pods with a gpu_spec
  bool times;
};

TEST(OpenbReal, EveryVariantParses) {
  const Variant kVariants[] = {
      {"openb_pod_list_cpu050.csv", 7439, 3078, 0, true},
      {"openb_pod_list_cpu200.csv", 8832, 3078, 0, true},
      {"openb_pod_list_gpushare20.csv", 8152, 2324, 0, true},
      {"openb_pod_list_gpushare60.csv", 8152, 5233, 0, true},
      {"openb_pod_list_gpushare100.csv", 8152, 7064, 0, true},
      {"openb_pod_list_gpuspec10.csv", 8152, 3078, 732, true},
      {"openb_pod_list_gpuspec33.csv", 8152, 3078, 2388, true},
      {"openb_pod_list_multigpu20.csv", 8324, 3078, 0, false},
      {"openb_pod_list_multigpu50.csv", 9061, 3078, 0, false},
  };
  int found = 0;
  for (const Variant& v : kVariants) {
    const std::string path = TracePath(std::string("alibaba-gpu-v2023/") + v.file);
    if (path.empty()) continue;
    ++found;
    auto r = ReadOpenbPods(path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const Workload& w = r.value().workload;
    EXPECT_EQ(r.value().rows_read, v.rows) << v.file;
    EXPECT_EQ(static_cast<int64_t>(w.jobs.size()), v.rows) << v.file;
    EXPECT_EQ(Count(w).sharing, v.sharing) << v.file;
    int64_t constrained = 0;
    for (const Job& j : w.jobs) constrained += !j.gpu_models.empty();
    EXPECT_EQ(constrained, v.constrained) << v.file;
    EXPECT_EQ(w.jobs.back().submit.us > 0, v.times) << v.file;
    if (!v.times) {
      EXPECT_EQ(w.jobs.front().runtime, Seconds(3600)) << v.file;
      EXPECT_EQ(r.value().warnings.total(), 0) << v.file;
    }
  }
  if (found == 0)
    GTEST_SKIP() << "no alibaba-gpu-v2023 pod list variants under " << testutil::TracesDir();
}

TEST(OpenbReal, Gpuspec33DuplicateModelsDropped) {
  OPENB_PATH(path, "openb_pod_list_gpuspec33.csv");
  auto r = ReadOpenbPods(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // 22 x "V100M16|V100M32|V100M32" and 3 x "A10|G2|P100|T4|V100M16|V100M32|V100M32".
  EXPECT_EQ(r.value().warnings.count("duplicate model in gpu_spec (dropped)"), 25);
  int64_t t4_only = 0;
  for (const Job& j : r.value().workload.jobs)
    t4_only += j.gpu_models == std::vector<std::string>{"T4"};
  EXPECT_EQ(t4_only, 1291);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
