// Philly readers on the real philly-derived files: counts from SOURCE.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "testutil/testutil.h"
#include "utilsim/traces/philly.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

std::string Real(const std::string& rel) { return testutil::TracePath("philly-derived/" + rel); }
#define REQUIRE_TRACE(path) \
  if ((path).empty()) GTEST_SKIP() << "philly-derived trace file not present"

TEST(PhillyReal, MachineList) {
  const std::string p = Real("machine_list/cluster_machine_list.csv");
  REQUIRE_TRACE(p);
  auto r = ReadPhillyMachines(p);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // SOURCE.md: 552 machines = 321 x 2 GPUs (12 GB) + 231 x 8 GPUs (24 GB).
  EXPECT_EQ(r.value().total_nodes(), 552);
  EXPECT_EQ(r.value().total_gpus(), 2490);
  PhillyOptions opt;
  opt.group_machines = true;
  auto g = ReadPhillyMachines(p, opt);
  ASSERT_TRUE(g.ok());
  std::map<std::string, int32_t> groups;
  for (const NodeGroup& n : g.value().groups) groups[n.name] = n.count;
  EXPECT_EQ(groups, (std::map<std::string, int32_t>{{"GPU-12GBx2", 321}, {"GPU-24GBx8", 231}}));
}

TEST(PhillyReal, JobsAndWindows) {
  PhillyPaths paths;
  paths.machines = Real("machine_list/cluster_machine_list.csv");
  paths.jobs = Real("dre_job_windows/sampled_jobs.json");
  paths.gpu_window = Real("dre_job_windows/gpu_util_window.csv");
  paths.cpu_window = Real("dre_job_windows/cpu_util_window.csv");
  paths.mem_free_window = Real("dre_job_windows/mem_free_pct_window.csv");
  REQUIRE_TRACE(paths.machines);
  REQUIRE_TRACE(paths.jobs);
  REQUIRE_TRACE(paths.gpu_window);
  REQUIRE_TRACE(paths.cpu_window);
  REQUIRE_TRACE(paths.mem_free_window);
  auto r = ReadPhilly(paths);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& t = r.value();
  // SOURCE.md: 5,910 jobs, Pass 3,172 / Failed 2,738; GPUs 4 -> 2,569,
  // 8 -> 2,361, 2 -> 507, 16 -> 336, 32 -> 100, up to 128.
  EXPECT_EQ(t.rows_read, 5910);
  ASSERT_EQ(t.workload.jobs.size(), 5910u);
  EXPECT_NE(std::find(t.notes.begin(), t.notes.end(), "status: Failed 2,738 Pass 3,172"),
            t.notes.end());
  std::map<int32_t, int64_t> gpus;
  int64_t with_util = 0, with_cpu = 0;
  double util_sum = 0;
  for (const Job& j : t.workload.jobs) {
    ++gpus[j.tasks * j.task.gpus];
    EXPECT_EQ(j.recorded_hosts.size(), static_cast<size_t>(j.tasks));
    EXPECT_GE(*j.recorded_start, j.submit);
    if (j.util_known) {
      ++with_util;
      util_sum += j.util;
    }
    if (j.host_cpu_used_milli >= 0) ++with_cpu;
  }
  EXPECT_EQ(gpus[4], 2569);
  EXPECT_EQ(gpus[8], 2361);
  EXPECT_EQ(gpus[2], 507);
  EXPECT_EQ(gpus[16], 336);
  EXPECT_EQ(gpus[32], 100);
  EXPECT_EQ(gpus.rbegin()->first, 128);
  EXPECT_EQ(t.workload.tenants.size(), 11u);
  EXPECT_EQ(t.workload.signal, UtilSignal::kGpuUtil);
  // 72 jobs have no GPU sample at minutes 0..3, 3 jobs no CPU sample there.
  EXPECT_EQ(with_util, 5910 - 72);
  EXPECT_EQ(t.warnings.count(kPhillyWarnNoJobSamples), 72);
  EXPECT_EQ(with_cpu, 5910 - 3);
  const double mean_util = util_sum / static_cast<double>(with_util);
  EXPECT_GT(mean_util, 0.2);
  EXPECT_LT(mean_util, 0.8);
  // 80 cells of cpu_util_window.csv hold pandas Series dumps (16 rows).
  EXPECT_EQ(t.warnings.count(kPhillyWarnMultiSample), 80);
  EXPECT_EQ(t.warnings.count(kPhillyWarnUnknownJob), 0);

  auto tel = ReadPhillyWindows(paths.gpu_window, t.workload);
  ASSERT_TRUE(tel.ok());
  EXPECT_EQ(tel.value().rows_read, 40202);  // one per job x GPU
  // SOURCE.md: 0.06 % of samples are -1 and 1.1 % empty (of 40,202 x 14).
  EXPECT_EQ(tel.value().warnings.count(kPhillyWarnMissingSample), 336 + 6428);
  Warnings w;
  auto cpu = ReadPhillyHostWindows(paths.cpu_window, &w);
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  EXPECT_EQ(cpu.value().size(), 9726u);
  auto mem = ReadPhillyHostWindows(paths.mem_free_window, &w);
  ASSERT_TRUE(mem.ok()) << mem.status().message();
  EXPECT_EQ(mem.value().size(), 9726u);
}

TEST(PhillyReal, SideFiles) {
  const std::string rt = Real("alibaba_analysis/philly_runtime.csv");
  const std::string seq = Real("helios_artifact/philly_node_sequence.csv");
  const std::string vc = Real("helios_artifact/philly_vc.csv");
  REQUIRE_TRACE(rt);
  REQUIRE_TRACE(seq);
  REQUIRE_TRACE(vc);
  auto runtimes = ReadPhillyRuntimes(rt);
  ASSERT_TRUE(runtimes.ok()) << runtimes.status().message();
  ASSERT_EQ(runtimes.value().size(), 83154u);
  double sum = 0;
  for (double v : runtimes.value()) sum += v;
  EXPECT_NEAR(sum / 83154.0, 14613, 1);  // SOURCE.md: mean 14,613 s
  EXPECT_EQ(*std::max_element(runtimes.value().begin(), runtimes.value().end()), 4628239.0);
  auto nodes = ReadPhillyNodeSequence(seq);
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  ASSERT_EQ(nodes.value().size(), 105644u);
  EXPECT_EQ(nodes.value().front().unix_s, *ParsePhillyTime("2017-10-03 00:00:00"));
  EXPECT_EQ(nodes.value().back().unix_s, *ParsePhillyTime("2017-12-15 18:42:00"));
  auto vcs = ReadPhillyVcs(vc);
  ASSERT_TRUE(vcs.ok()) << vcs.status().message();
  ASSERT_EQ(vcs.value().size(), 11u);
  int32_t total = 0;
  for (const PhillyVc& v : vcs.value()) total += v.nodes;
  EXPECT_EQ(total, 352);
}

TEST(PhillyReal, SideFileErrors) {
  const std::string dir = testutil::TempDir();
  std::string p = testutil::WriteFile(dir + "/r.csv", "runtime\n10\n-1\n");
  EXPECT_EQ(ReadPhillyRuntimes(p).status().message(),
            p + ":3: field 'runtime': expected seconds >= 0, got '-1'");
  p = testutil::WriteFile(dir + "/s.csv", "time,active,total\n2017-10-03 00:00:00,5,4\n");
  EXPECT_EQ(ReadPhillyNodeSequence(p).status().message(),
            p + ":2: field 'active': expected at most 'total' nodes, got '5'");
  p = testutil::WriteFile(dir + "/v.csv", "vc,node num\na,x\n");
  EXPECT_EQ(ReadPhillyVcs(p).status().message(),
            p + ":2: field 'node num': expected an integer 0..1000000, got 'x'");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
