// PAI (cluster-trace-gpu-v2020) readers on hand-written header-less tables
// in the published schema: the task -> job mapping, the instance and sensor
// joins with hand-computed util, bad inputs, and the real machine spec.
#include "utilsim/traces/pai.h"

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

PaiPaths FixturePaths() {
  PaiPaths p;
  for (auto [field, table] : {std::pair{&p.job, "job_table"},
                              {&p.task, "task_table"},
                              {&p.instance, "instance_table"},
                              {&p.sensor, "sensor_table"},
                              {&p.group_tag, "group_tag_table"},
                              {&p.machine_spec, "machine_spec"}}) {
    *field = Fixture(std::string("pai/pai_") + table + ".csv");
  }
  return p;
}

const Job& Get(const Workload& w, const std::string& name) {
  for (const Job& j : w.jobs)
    if (j.name == name) return j;
  ADD_FAILURE() << "no job " << name;
  static const Job kNone;
  return kNone;
}

TEST(PaiReader, JoinsTablesWithHandComputedUtil) {
  auto r = ReadPai(FixturePaths());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& t = r.value();
  const Workload& w = t.workload;
  EXPECT_EQ(t.rows_read, 6);
  EXPECT_EQ(w.signal, UtilSignal::kGpuUtil);
  std::vector<std::string> names;
  for (const Job& j : w.jobs) names.push_back(j.name);
  EXPECT_EQ(names, (std::vector<std::string>{"jobE/worker", "jobA/worker", "jobA/ps",
                                             "jobB/tensorflow", "jobD/worker"}));
  // jobA/worker: 2 instances of half a GPU; gpu_wrk_util 20 and 30 (% of a
  // GPU) -> 20/50 and 30/50 of the share -> util (0.4 + 0.6) / 2 = 0.5.
  const Job& aw = Get(w, "jobA/worker");
  EXPECT_EQ(aw.submit, Seconds(100));  // the job's submission
  EXPECT_EQ(aw.recorded_start, Seconds(110));
  EXPECT_EQ(aw.runtime, Seconds(300));
  EXPECT_EQ(aw.tasks, 2);
  EXPECT_EQ(aw.task.gpus, 1);
  EXPECT_EQ(aw.task.gpu_milli, 500);
  EXPECT_EQ(aw.task.cpu_milli, 6000);
  EXPECT_EQ(aw.task.mem_bytes, int64_t{30000} << 20);  // 29.296875 GiB
  EXPECT_TRUE(aw.util_known);
  EXPECT_FLOAT_EQ(aw.util, 0.5f);
  EXPECT_EQ(aw.host_cpu_used_milli, 1500);     // mean(140, 160) % of a core
  EXPECT_EQ(aw.gpu_mem_used_bytes, 2 * kGiB);  // mean(1, 3) GB
  EXPECT_EQ(aw.recorded_hosts, (std::vector<std::string>{"mB", "mB"}));
  EXPECT_TRUE(aw.gpu_models.empty());
  EXPECT_EQ(w.tenants[aw.tenant], "userX");
  const Job& ps = Get(w, "jobA/ps");
  EXPECT_EQ(ps.task.gpus, 0);
  EXPECT_FALSE(ps.util_known);
  EXPECT_EQ(ps.host_cpu_used_milli, 3000);
  EXPECT_EQ(ps.gpu_mem_used_bytes, -1);
  const Job& b = Get(w, "jobB/tensorflow");
  EXPECT_EQ(b.task.gpus, 2);
  EXPECT_EQ(b.task.gpu_milli, 1000);
  EXPECT_FLOAT_EQ(b.util, 0.75f);                             // 150 / 200
  EXPECT_EQ(b.gpu_models, std::vector<std::string>{"V100"});  // group tag gpu_type_spec
  const Job& d = Get(w, "jobD/worker");
  EXPECT_EQ(d.task.gpus, 2);      // 150 % rounded up
  EXPECT_FLOAT_EQ(d.util, 1.0f);  // 400 / 150 capped
  const Job& e = Get(w, "jobE/worker");
  EXPECT_EQ(e.submit, Seconds(50));
  EXPECT_EQ(e.task.gpu_milli, 250);
  EXPECT_EQ(w.tenants[e.tenant], "default");
  EXPECT_EQ(t.warnings.count(kPaiWarnNoTimes), 1);        // jobC
  EXPECT_EQ(t.warnings.count(kPaiWarnGpuRoundedUp), 1);   // jobD
  EXPECT_EQ(t.warnings.count(kPaiWarnUnknownJob), 1);     // jobE
  EXPECT_EQ(t.warnings.count(kPaiWarnUnknownTask), 1);    // jobZ instance
  EXPECT_EQ(t.warnings.count(kPaiWarnInstanceCount), 2);  // jobD, jobE
  EXPECT_EQ(t.warnings.count(kPaiWarnUtilAbovePlan), 1);  // jobD
  ASSERT_TRUE(t.cluster.has_value());
  EXPECT_EQ(t.cluster->total_gpus(), 12);
}

TEST(PaiReader, OptionsAndHeaderRow) {
  PaiPaths p = FixturePaths();
  const std::string dir = TempDir();
  p.task = WriteFile(dir + "/task.csv",
                     "job_name,task_name,inst_num,status,start_time,end_time,"
                     "plan_cpu,plan_mem,plan_gpu,gpu_type\n" +
                         testutil::ReadFile(p.task));
  PaiOptions opt;
  opt.constrain_gpu_type = true;
  auto r = ReadPai(p, opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().rows_read, 6);
  EXPECT_EQ(Get(r.value().workload, "jobA/worker").gpu_models, std::vector<std::string>{"T4"});
  EXPECT_TRUE(Get(r.value().workload, "jobA/ps").gpu_models.empty());
  PaiPaths only_spec;
  only_spec.machine_spec = p.machine_spec;
  opt.group_machines = true;
  auto s = ReadPai(only_spec, opt);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s.value().workload.jobs.empty());
  ASSERT_EQ(s.value().cluster->groups.size(), 4u);
  EXPECT_EQ(s.value().cluster->groups[0].name, "V100x8-96c-512g");
  EXPECT_EQ(s.value().cluster->groups[2].name, "cpu-96c-512g");
  PaiPaths no_task = FixturePaths();
  no_task.task.clear();
  EXPECT_EQ(ReadPai(no_task).status().message(),
            "PAI: pai_task_table is required to read jobs (task path is empty)");
}

TEST(PaiReader, DetectsTables) {
  EXPECT_EQ(DetectPaiTable({"mA", "V100", "96", "512", "8"}), PaiTable::kMachineSpec);
  EXPECT_EQ(DetectPaiTable({"inst", "user", "V100", "grp", "bert"}), PaiTable::kGroupTag);
  EXPECT_EQ(DetectPaiTable({"j", "i", "u", "Terminated", "1.0", ""}), PaiTable::kJob);
  EXPECT_EQ(DetectPaiTable({"j", "t", "1.0", "Terminated", "1", "2", "600", "2", "50", "T4"}),
            PaiTable::kTask);
  EXPECT_EQ(DetectPaiTable({"j", "t", "i", "w", "id", "Running", "1", "", "m"}),
            PaiTable::kInstance);
  EXPECT_EQ(DetectPaiTable(PaiColumns(PaiTable::kSensor)), PaiTable::kSensor);
  EXPECT_TRUE(LooksLikePai(PaiColumns(PaiTable::kMachineMetric)));
  EXPECT_FALSE(LooksLikePai({"job_id", "submission_time", "duration", "num_gpu"}));
  EXPECT_EQ(PaiGpuMemoryBytes("V100M32"), 32 * kGiB);
  EXPECT_EQ(PaiGpuMemoryBytes("A100"), 0);
}

TEST(PaiReader, BadInputsNameFileLineAndField) {
  const std::string ok_task = "j1,w,1.0,Terminated,10,20,100,1,50,T4\n";
  const std::string cases[][4] = {
      {"task", "non-numeric plan_cpu", ok_task + "j2,w,1,Terminated,10,20,lots,1,50,T4\n",
       "2: field 'plan_cpu': expected a number >= 0, got 'lots'"},
      {"task", "negative plan_gpu", "j2,w,1,Terminated,10,20,100,1,-50,T4\n",
       "1: field 'plan_gpu': expected a number >= 0, got '-50'"},
      {"task", "negative start", "j2,w,1,Terminated,-10,20,100,1,50,T4\n",
       "1: field 'start_time': expected seconds >= 0, got '-10'"},
      {"task", "fractional inst_num", "j2,w,1.5,Terminated,10,20,100,1,50,T4\n",
       "1: field 'inst_num': expected an integer 0..1000000, got '1.5'"},
      {"task", "missing column", "j2,w,1,Terminated,10,20,100,1,50\n",
       "1: expected 10 fields, got 9"},
      {"task", "extra field", ok_task + "j2,w,1,Terminated,10,20,100,1,50,T4,x\n",
       "2: expected 10 fields, got 11"},
      {"task", "repeated task", ok_task + ok_task,
       "2: field 'task_name': expected a task not already listed on line 1 for this job, got 'w'"},
      {"sensor", "non-numeric util", "j1,w,w1,i,m,g,1,busy,1,1,1,1,1,1,1,1\n",
       "1: field 'gpu_wrk_util': expected a number >= 0, got 'busy'"},
      {"job", "repeated job", "j1,i,u,Terminated,1,2\nj1,i,u,Terminated,1,2\n",
       "2: field 'job_name': expected a job name not already used on line 1, got 'j1'"},
      {"machine_spec", "negative cpu", "m1,T4,-96,512,2\n",
       "1: field 'cap_cpu': expected cores > 0, got '-96'"},
      {"machine_spec", "non-numeric gpus", "m1,T4,96,512,two\n",
       "1: field 'cap_gpu': expected an integer 0..64, got 'two'"},
      {"machine_spec", "GPUs without type", "m1,CPU,96,512,2\n",
       "1: field 'gpu_type': expected a GPU type for GPU machines, got 'CPU'"},
  };
  const std::string dir = TempDir();
  for (const auto& c : cases) {
    PaiPaths p;
    const std::string path = WriteFile(dir + "/" + c[0] + ".csv", c[2]);
    p.task = c[0] == "task" ? path : WriteFile(dir + "/t.csv", ok_task);
    if (c[0] == "sensor") p.sensor = path;
    if (c[0] == "job") p.job = path;
    if (c[0] == "machine_spec") p.machine_spec = path;
    auto r = ReadPai(p);
    ASSERT_FALSE(r.ok()) << c[1];
    EXPECT_EQ(r.status().message(), path + ":" + c[3]) << c[1];
  }
}

TEST(PaiReader, RealMachineSpec) {
  const std::string p = testutil::TracePath("alibaba-gpu-v2020-partial/pai_machine_spec.csv");
  if (p.empty()) GTEST_SKIP() << "alibaba-gpu-v2020-partial/pai_machine_spec.csv not present";
  PaiOptions opt;
  opt.group_machines = true;
  auto r = ReadPaiMachineSpec(p, opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ClusterSpec& c = r.value();
  // SOURCE.md: 1897 machines, 6742 GPUs; P100 798, T4 497, MISC 280,
  // V100 104 (45 with 384 GB, 59 with 512 GB), V100M32 135, CPU 83.
  EXPECT_EQ(c.total_nodes(), 1897);
  EXPECT_EQ(c.total_gpus(), 6742);
  std::map<std::string, int32_t> by_group;
  for (const NodeGroup& g : c.groups) by_group[g.name] = g.count;
  EXPECT_EQ(by_group, (std::map<std::string, int32_t>{{"P100x2-64c-512g", 798},
                                                      {"T4x2-96c-512g", 497},
                                                      {"MISCx8-96c-512g", 280},
                                                      {"V100x8-96c-384g", 45},
                                                      {"V100x8-96c-512g", 59},
                                                      {"V100M32x8-96c-384g", 135},
                                                      {"cpu-96c-512g", 83}}));
  auto each = ReadPaiMachineSpec(p);
  ASSERT_TRUE(each.ok());
  EXPECT_EQ(each.value().groups.size(), 1897u);
  for (const std::string h : {"pai_job_table", "pai_task_table", "pai_instance_table",
                              "pai_sensor_table", "pai_machine_spec"}) {
    const std::string hp = testutil::TracePath("alibaba-gpu-v2020-partial/" + h + ".header");
    if (hp.empty()) continue;
    std::string line = testutil::ReadFile(hp);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    std::vector<std::string> cols;
    for (size_t s = 0, e; s <= line.size(); s = e + 1) {
      e = line.find(',', s);
      if (e == std::string::npos) e = line.size();
      cols.push_back(line.substr(s, e - s));
    }
    auto t = DetectPaiTable(cols);
    ASSERT_TRUE(t.has_value()) << h;
    EXPECT_EQ(PaiTableName(*t), h);
    EXPECT_EQ(PaiColumns(*t), cols) << h;
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
