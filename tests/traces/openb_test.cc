// openb (Alibaba cluster-trace-gpu-v2023) reader: hand-made fixtures for each
// file shape, every bad input with its exact message, and the real files
// (skipped when absent) against the counts in SOURCE.md.
#include "utilsim/traces/openb.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "testutil/testutil.h"
#include "utilsim/traces/csv.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::TempDir;
using testutil::TracePath;
using testutil::WriteFile;

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;
const char* const kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

const Job& ByName(const Workload& w, const std::string& name) {
  for (const Job& j : w.jobs)
    if (j.name == name) return j;
  ADD_FAILURE() << "no job " << name;
  return w.jobs.front();
}

TEST(OpenbNodes, GroupsIdenticalShapesInOrderOfFirstAppearance) {
  auto r = ReadOpenbNodes(Fixture("openb/nodes.csv"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ClusterSpec& c = r.value();
  EXPECT_EQ(c.name, "nodes");
  EXPECT_EQ(c.total_nodes(), 9);
  EXPECT_EQ(c.total_gpus(), 8 * 3 + 2 + 8 + 2 + 1);
  ASSERT_EQ(c.groups.size(), 6u);
  const std::pair<const char*, int> want[] = {{"cpu-32c-256g", 2},      {"G2x8-96c-384g", 3},
                                              {"P100x2-64c-256g", 1},   {"V100M16x8-82c-336g", 1},
                                              {"T4x2-16500mc-120g", 1}, {"A10x1-8c-1536m", 1}};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(c.groups[i].name, want[i].first);
    EXPECT_EQ(c.groups[i].count, want[i].second) << want[i].first;
  }
  EXPECT_EQ(c.groups[0].gpu_model, "");
  EXPECT_EQ(c.groups[0].gpus, 0);
  EXPECT_EQ(c.groups[0].cpu_milli, 32000);
  EXPECT_EQ(c.groups[0].mem_bytes, 256 * kGiB);
  EXPECT_EQ(c.groups[4].cpu_milli, 16500);
  EXPECT_EQ(c.groups[5].mem_bytes, 1536 * kMiB);
  ASSERT_EQ(c.models.size(), 5u);
  const std::pair<const char*, int64_t> models[] = {{"G2", 0},
                                                    {"P100", 16 * kGiB},
                                                    {"V100M16", 16 * kGiB},
                                                    {"T4", 16 * kGiB},
                                                    {"A10", 24 * kGiB}};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(c.models[i].name, models[i].first);
    EXPECT_EQ(c.models[i].memory_bytes, models[i].second);
    EXPECT_EQ(c.models[i].speed, 1.0);
  }
  EXPECT_EQ(OpenbGpuMemoryBytes("V100M32"), 32 * kGiB);
  EXPECT_EQ(OpenbGpuMemoryBytes("G3"), 0);
}

TEST(OpenbPods, DefaultShapeMapsEveryField) {
  auto r = ReadOpenbPods(Fixture("openb/pods_default.csv"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& t = r.value();
  const Workload& w = t.workload;
  EXPECT_EQ(t.rows_read, 7);
  EXPECT_EQ(t.bytes_read,
            static_cast<int64_t>(std::filesystem::file_size(Fixture("openb/pods_default.csv"))));
  EXPECT_EQ(w.source, Fixture("openb/pods_default.csv"));
  ASSERT_EQ(w.jobs.size(), 7u);
  const char* order[] = {"p0", "p4", "p5", "p6", "p2", "p1", "p3"};  // by creation_time
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(w.jobs[i].name, order[i]);
  EXPECT_EQ(w.tenants, (std::vector<std::string>{"LS", "BE", "Guaranteed", "Burstable"}));

  const Job& p1 = ByName(w, "p1");
  EXPECT_EQ(p1.submit, Seconds(100));
  EXPECT_EQ(p1.recorded_start, Seconds(102));
  EXPECT_EQ(p1.runtime, Seconds(4898));
  EXPECT_EQ(p1.task, (TaskDemand{1, 460, 6000, 12288 * kMiB, 0}));
  EXPECT_EQ(p1.tasks, 1);
  EXPECT_EQ(w.tenants[p1.tenant], "LS");
  EXPECT_EQ(p1.priority, 3);
  EXPECT_TRUE(p1.gpu_models.empty());
  const Job& p2 = ByName(w, "p2");  // CPU-only: gpu_milli 0 ignored
  EXPECT_EQ(p2.task, (TaskDemand{0, 1000, 4000, 8192 * kMiB, 0}));
  EXPECT_EQ(p2.priority, 0);
  EXPECT_EQ(ByName(w, "p3").runtime, Seconds(1));  // deletion == scheduled: clamped
  EXPECT_EQ(ByName(w, "p3").priority, 2);
  const Job& p4 = ByName(w, "p4");
  EXPECT_EQ(p4.task.mem_bytes, 1024 * kMiB + kMiB / 2);
  EXPECT_EQ(p4.priority, 1);
  const Job& p5 = ByName(w, "p5");  // pending: runs from creation
  EXPECT_FALSE(p5.recorded_start.has_value());
  EXPECT_EQ(p5.submit, Seconds(30));
  EXPECT_EQ(p5.runtime, Seconds(60));
  EXPECT_EQ(ByName(w, "p6").runtime, Seconds(1));

  EXPECT_EQ(t.warnings.count("runtime <= 0 (clamped to 1 s)"), 2);
  EXPECT_EQ(t.warnings.total(), 2);
  const auto d = OpenbScheduleDelays(w);
  EXPECT_EQ(d,
            (std::vector<Micros>{Seconds(0), Seconds(2), Seconds(5), Seconds(10), Seconds(100)}));
  const OpenbDelayStats s = SummarizeDelays(d);
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.mean_s, 23.4);
  EXPECT_EQ(s.median_s, 5);
  EXPECT_EQ(s.max_s, 100);
  const std::vector<std::string> notes = {
      "pods: 7 rows, 7 jobs (6 GPU pods, 1 CPU-only, 2 sharing a GPU with gpu_milli < 1000); "
      "num_gpu: 0 -> 1, 1 -> 3, 2 -> 1, 4 -> 1, 8 -> 1",
      "pod_phase: Running 3, Pending 2, Failed 1, Succeeded 1",
      "qos (tenants): BE 3, LS 2, Burstable 1, Guaranteed 1; priority LS 3 > Guaranteed 2 > "
      "Burstable 1 > BE 0",
      "times: seconds relative to the trace start; creation_time 0 .. 200 s (0.0 days), "
      "deletion_time max 5000 s",
      "never scheduled (empty scheduled_time): 2 pods, run from creation_time to deletion_time "
      "without a recorded start",
      "recorded scheduling delay (scheduled_time - creation_time) of 5 scheduled pods: mean 23.4 "
      "s, median 5 s, max 100 s"};
  EXPECT_EQ(t.notes, notes);
}

TEST(OpenbPods, SkipPendingDropsThemWithAWarning) {
  auto r = ReadOpenbPods(Fixture("openb/pods_default.csv"), {OpenbPending::kSkip, 3600});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().rows_read, 7);
  EXPECT_EQ(r.value().workload.jobs.size(), 5u);
  EXPECT_EQ(r.value().warnings.count("pending pod skipped"), 2);
  EXPECT_EQ(r.value().warnings.count("runtime <= 0 (clamped to 1 s)"), 1);  // p3; p6 skipped
  EXPECT_EQ(r.value().workload.tenants,
            (std::vector<std::string>{"LS", "BE", "Guaranteed", "Burstable"}));
  EXPECT_EQ(r.value().warnings.examples().at("pending pod skipped").front(),
            Fixture("openb/pods_default.csv") + ":7: pod 'p5' never scheduled");
}

TEST(OpenbPods, GpuSpecSplitsOnBarAndDropsDuplicates) {
  auto r = ReadOpenbPods(Fixture("openb/pods_gpuspec.csv"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Workload& w = r.value().workload;
  EXPECT_EQ(ByName(w, "s0").gpu_models, (std::vector<std::string>{"T4"}));
  EXPECT_EQ(ByName(w, "s1").gpu_models, (std::vector<std::string>{"V100M16", "V100M32"}));
  EXPECT_TRUE(ByName(w, "s2").gpu_models.empty());  // CPU-only: ignored
  EXPECT_EQ(ByName(w, "s3").gpu_models, (std::vector<std::string>{"A10", "G2"}));
  EXPECT_TRUE(ByName(w, "s4").gpu_models.empty());
  EXPECT_EQ(r.value().warnings.count("duplicate model in gpu_spec (dropped)"), 1);
  EXPECT_EQ(r.value().warnings.count("gpu_spec on a CPU-only pod (ignored)"), 1);
}

TEST(OpenbPods, MultigpuShapeHasNoTimes) {
  auto r = ReadOpenbPods(Fixture("openb/pods_multigpu.csv"), {OpenbPending::kRunFromCreation, 60});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& t = r.value();
  ASSERT_EQ(t.workload.jobs.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    const Job& j = t.workload.jobs[i];
    EXPECT_EQ(j.name, "m" + std::to_string(i));  // file order kept
    EXPECT_EQ(j.submit, Seconds(0));
    EXPECT_EQ(j.runtime, Seconds(60));
    EXPECT_FALSE(j.recorded_start.has_value());
    EXPECT_EQ(j.priority, 0);
  }
  EXPECT_EQ(t.workload.tenants, (std::vector<std::string>{"default"}));
  EXPECT_EQ(t.workload.jobs[1].task.gpu_milli, 460);
  EXPECT_EQ(t.workload.jobs[4].task, (TaskDemand{2, 1000, 16000, 65536 * kMiB, 0}));
  EXPECT_EQ(t.warnings.count("gpu_milli != 1000 with num_gpu > 1 (set to 1000)"), 1);
  EXPECT_EQ(t.warnings.examples().at("gpu_milli != 1000 with num_gpu > 1 (set to 1000)").front(),
            Fixture("openb/pods_multigpu.csv") + ":6: gpu_milli 500 with num_gpu 2");
  ASSERT_EQ(t.notes.size(), 3u);
  EXPECT_EQ(t.notes[1], "no qos column: every pod is tenant 'default', priority 0");
  EXPECT_EQ(t.notes[2],
            "no creation/deletion/scheduled times in the file: every pod submits at 0 in file "
            "order with an assumed runtime of 60 s (option assumed_runtime_s); meant for "
            "arrival-only packing (FGD), not for time replay");
}

TEST(OpenbPods, PhaseDisagreeingWithScheduledTimeIsCounted) {
  const std::string path = WriteFile(TempDir() + "/p.csv", std::string(kPodHeader) +
                                                               "a,1,1,0,0,,BE,Pending,0,9,3\n"
                                                               "b,1,1,0,0,,BE,Running,0,9,\n"
                                                               "c,1,1,0,0,,BE,Failed,0,9,1\n");
  auto r = ReadOpenbPods(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().warnings.count("pod_phase disagrees with scheduled_time"), 2);
  EXPECT_EQ(r.value().warnings.examples().at("pod_phase disagrees with scheduled_time")[1],
            path + ":3: pod_phase 'Running', scheduled_time ''");
  EXPECT_EQ(r.value().workload.jobs[1].runtime, Seconds(9));  // b: pending by its times
}

TEST(OpenbDetect, ByHeader) {
  auto header = [](const std::string& path) {
    auto csv = CsvReader::Open(path);
    return csv.ok() ? csv.value().columns() : std::vector<std::string>{};
  };
  for (const char* f : {"pods_default.csv", "pods_gpuspec.csv", "pods_multigpu.csv"}) {
    EXPECT_TRUE(LooksLikeOpenbPods(header(Fixture(std::string("openb/") + f)))) << f;
    EXPECT_FALSE(LooksLikeOpenbNodes(header(Fixture(std::string("openb/") + f)))) << f;
  }
  EXPECT_TRUE(LooksLikeOpenbNodes(header(Fixture("openb/nodes.csv"))));
  EXPECT_FALSE(LooksLikeOpenbPods(header(Fixture("openb/nodes.csv"))));
  EXPECT_TRUE(LooksLikeOpenbNodes({" model", "gpu ", "memory_mib", "cpu_milli", "sn", "x"}));
  EXPECT_FALSE(LooksLikeOpenbPods({"name", "cpu_milli", "memory_mib", "num_gpu"}));
  EXPECT_FALSE(LooksLikeOpenbPods(header(Fixture("canonical/jobs.csv"))));
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
