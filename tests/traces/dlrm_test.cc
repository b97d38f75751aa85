// Alibaba cluster-trace-gpu-v2025 DLRM reader: demands, lifecycle rules,
// side data (RDMA, disk, spread limit), exact errors and the real row count.
#include "utilsim/traces/dlrm.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "testutil/testutil.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::TempDir;
using testutil::WriteFile;

constexpr int64_t kGiB = int64_t{1} << 30;

TEST(DlrmReader, MapsInstances) {
  std::vector<DlrmInstance> extra;
  auto r = ReadDlrm(Fixture("dlrm/instances.csv"), {}, &extra);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& t = r.value();
  const Workload& w = t.workload;
  EXPECT_EQ(t.rows_read, 6);
  ASSERT_EQ(w.jobs.size(), 5u);
  ASSERT_EQ(extra.size(), 5u);
  std::vector<std::string> names;
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    names.push_back(w.jobs[i].name);
    EXPECT_EQ(extra[i].name, w.jobs[i].name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"i0", "i1", "i2", "i3", "i5"}));
  const Job& i0 = w.jobs[0];  // existed before the trace, alive at its end (5000 s)
  EXPECT_EQ(i0.submit, Micros(0));
  EXPECT_EQ(i0.recorded_start, Micros(0));
  EXPECT_EQ(i0.runtime, Seconds(5000));
  EXPECT_EQ(i0.task.gpus, 1);
  EXPECT_EQ(i0.task.cpu_milli, 12000);
  EXPECT_EQ(i0.task.mem_bytes, 120 * kGiB);
  EXPECT_EQ(w.tenants[i0.tenant], "app_0");
  EXPECT_FALSE(i0.util_known);
  EXPECT_EQ(w.jobs[1].runtime, Seconds(5000));  // deleted at 5000
  EXPECT_EQ(w.jobs[1].task.gpus, 0);
  const Job& i2 = w.jobs[2];
  EXPECT_EQ(i2.submit, Micros(100500000));
  EXPECT_EQ(i2.recorded_start, Micros(110500000));
  EXPECT_EQ(i2.runtime, Seconds(3000));
  EXPECT_EQ(extra[2].role, "HN");
  EXPECT_EQ(extra[2].rdma_pct, 50);
  EXPECT_EQ(extra[2].disk_bytes, 85 * kGiB);
  EXPECT_EQ(extra[2].max_per_node, 2);
  EXPECT_EQ(w.jobs[3].runtime, Seconds(1));            // zero lifetime
  EXPECT_EQ(w.jobs[4].runtime, Seconds(4540));         // alive: 460 .. 5000
  EXPECT_EQ(w.jobs[4].task.mem_bytes, 1006632960000);  // 937.5 GiB
  EXPECT_EQ(t.warnings.count(kDlrmWarnZeroRuntime), 1);
  EXPECT_EQ(t.warnings.count(kDlrmWarnNeverScheduled), 1);
  EXPECT_EQ(t.warnings.total(), 2);
}

TEST(DlrmReader, LimitsAndEnd) {
  DlrmOptions opt;
  opt.use_limits = true;
  opt.end_s = 10000;
  auto r = ReadDlrm(Fixture("dlrm/instances.csv"), opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Job& i2 = r.value().workload.jobs[2];
  EXPECT_EQ(i2.task.cpu_milli, 16000);
  EXPECT_EQ(i2.task.mem_bytes, 80 * kGiB);
  EXPECT_EQ(r.value().workload.jobs[0].runtime, Seconds(10000));
  opt.end_s = 4999;
  EXPECT_EQ(ReadDlrm(Fixture("dlrm/instances.csv"), opt).status().message(),
            Fixture("dlrm/instances.csv") +
                ": option end_s: expected seconds >= the latest time in the file (5000), got "
                "'4999'");
}

TEST(DlrmReader, LooksLike) {
  const std::string header = testutil::ReadFile(Fixture("dlrm/instances.csv"));
  std::vector<std::string> cols;
  const std::string first = header.substr(0, header.find('\n'));
  for (size_t s = 0, e; s <= first.size(); s = e + 1) {
    e = first.find(',', s);
    if (e == std::string::npos) e = first.size();
    cols.push_back(first.substr(s, e - s));
  }
  EXPECT_TRUE(LooksLikeDlrm(cols));
  EXPECT_FALSE(LooksLikeDlrm({"job_id", "submission_time", "duration", "num_gpu"}));
}

TEST(DlrmReader, BadInputsNameFileLineAndField) {
  const std::string head =
      "instance_sn,role,app_name,cpu_request,gpu_request,rdma_request,memory_request,"
      "disk_request,max_instance_per_node,creation_time,scheduled_time,deletion_time\n";
  const std::string cases[][3] = {
      {"non-numeric cpu", "a,CN,x,many,0,1,16,80,-1,,,\n",
       "2: field 'cpu_request': expected vCPUs >= 0, got 'many'"},
      {"negative memory", "a,CN,x,2,0,1,-16,80,-1,,,\n",
       "2: field 'memory_request': expected GiB >= 0, got '-16'"},
      {"rdma above 100", "a,HN,x,2,1,101,16,80,-1,,,\n",
       "2: field 'rdma_request': expected a percentage 0..100, got '101'"},
      {"spread zero", "a,HN,x,2,1,1,16,80,0,,,\n",
       "2: field 'max_instance_per_node': expected -1 or an integer 1..1000000, got '0'"},
      {"bad role", "a,GN,x,2,1,1,16,80,-1,,,\n", "2: field 'role': expected CN or HN, got 'GN'"},
      {"negative time", "a,CN,x,2,0,1,16,80,-1,-5,1,2\n",
       "2: field 'creation_time': expected seconds >= 0 (or empty), got '-5'"},
      {"scheduled before creation", "a,CN,x,2,0,1,16,80,-1,10,5,20\n",
       "2: field 'scheduled_time': expected a time >= creation_time, got '5'"},
      {"deleted before scheduled", "a,CN,x,2,0,1,16,80,-1,1,5,4\n",
       "2: field 'deletion_time': expected a time >= scheduled_time, got '4'"},
      {"wrong field count", "a,CN,x,2,0,1,16,80,-1,,\n",
       "2: expected 12 fields (as in the header), got 11"},
      {"repeated id", "a,CN,x,2,0,1,16,80,-1,,,\na,CN,x,2,0,1,16,80,-1,,,\n",
       "3: field 'instance_sn': expected an instance id not already used on line 2, got 'a'"},
  };
  const std::string dir = TempDir();
  for (const auto& c : cases) {
    const std::string p = WriteFile(dir + "/d.csv", head + c[1]);
    auto r = ReadDlrm(p);
    ASSERT_FALSE(r.ok()) << c[0];
    EXPECT_EQ(r.status().message(), p + ":" + c[2]) << c[0];
  }
  const std::string p = WriteFile(dir + "/m.csv", "instance_sn,role,app_name\na,CN,x\n");
  EXPECT_EQ(ReadDlrm(p).status().message(), p + ":1: missing required column 'cpu_request'");
}

TEST(DlrmReader, RealTraceMatchesSource) {
  const std::string p = testutil::TracePath("alibaba-gpu-v2025-dlrm/disaggregated_DLRM_trace.csv");
  if (p.empty()) GTEST_SKIP() << "alibaba-gpu-v2025-dlrm trace not present";
  std::vector<DlrmInstance> extra;
  auto r = ReadDlrm(p, {}, &extra);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& t = r.value();
  // SOURCE.md: 23,871 instances of 156 services, 16,485 CN and 7,386 HN;
  // creation_time NaN for 7,280 rows, deletion_time NaN for 8,878.
  EXPECT_EQ(t.rows_read, 23871);
  ASSERT_EQ(t.workload.jobs.size(), 23871u);
  EXPECT_EQ(t.workload.tenants.size(), 156u);
  std::map<std::string, int64_t> roles;
  std::map<int32_t, int64_t> spread;
  int64_t gpus_hn = 0;
  for (size_t i = 0; i < extra.size(); ++i) {
    ++roles[extra[i].role];
    ++spread[extra[i].max_per_node];
    if (extra[i].role == "HN") gpus_hn += t.workload.jobs[i].task.gpus;
  }
  EXPECT_EQ(roles, (std::map<std::string, int64_t>{{"CN", 16485}, {"HN", 7386}}));
  EXPECT_EQ(gpus_hn, 7386);
  EXPECT_EQ(spread[-1], 12248);
  EXPECT_EQ(spread[2], 6778);
  bool lifecycle = false, delay = false;
  for (const std::string& n : t.notes) {
    lifecycle |= n ==
                 "7,280 instances existed before the trace (submit = start = 0), 8,878 alive "
                 "at its end (run cut at 2677541 s)";
    delay |= n.find("of 16,591 instances: mean 187.9 s, median 0 s, max 238116 s") != n.npos;
  }
  EXPECT_TRUE(lifecycle);
  EXPECT_TRUE(delay);
  EXPECT_EQ(t.warnings.count(kDlrmWarnZeroRuntime), 16);
  EXPECT_EQ(t.warnings.count(kDlrmWarnNeverScheduled), 0);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
