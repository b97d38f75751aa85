// Microsoft ITP (ElasticFlow raw traces) reader: mapping, gangs, warnings,
// exact error messages, and the real traces' job counts from SOURCE.md.
#include "utilsim/traces/itp.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "testutil/testutil.h"

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;
using testutil::TempDir;
using testutil::WriteFile;

const Job* FindJob(const Workload& w, const std::string& name) {
  for (const Job& j : w.jobs)
    if (j.name == name) return &j;
  return nullptr;
}

TEST(ItpReader, MapsFixtureRows) {
  auto r = ReadItp({Fixture("itp/clusterA.csv"), Fixture("itp/clusterB.csv")});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& t = r.value();
  EXPECT_EQ(t.rows_read, 8);
  EXPECT_GT(t.bytes_read, 100);
  EXPECT_FALSE(t.cluster.has_value());
  const Workload& w = t.workload;
  ASSERT_EQ(w.jobs.size(), 6u);
  std::vector<std::string> order;
  for (const Job& j : w.jobs) order.push_back(j.name);
  EXPECT_EQ(order, (std::vector<std::string>{"clusterA:a1", "clusterB:b1", "clusterA:a2",
                                             "clusterB:b2", "clusterA:a3", "clusterA:a4"}));
  const Job* a2 = FindJob(w, "clusterA:a2");
  ASSERT_NE(a2, nullptr);
  EXPECT_EQ(a2->submit, Micros(10500000));
  EXPECT_EQ(a2->runtime, Seconds(1200));
  EXPECT_EQ(a2->tasks, 1);
  EXPECT_EQ(a2->task.gpus, 8);
  EXPECT_EQ(a2->task.gpu_milli, 1000);
  EXPECT_EQ(a2->task.cpu_milli, 0);
  EXPECT_FALSE(a2->recorded_start.has_value());
  EXPECT_FALSE(a2->util_known);
  const Job* a3 = FindJob(w, "clusterA:a3");
  EXPECT_EQ(a3->tasks, 2);
  EXPECT_EQ(a3->task.gpus, 8);
  const Job* a4 = FindJob(w, "clusterA:a4");
  EXPECT_EQ(a4->tasks, 8);
  EXPECT_EQ(a4->task.gpus, 8);
  const Job* b2 = FindJob(w, "clusterB:b2");
  EXPECT_EQ(b2->tasks, 2);
  EXPECT_EQ(b2->task.gpus, 6);
  EXPECT_EQ(w.tenants[a2->tenant], "clusterA");
  EXPECT_EQ(w.tenants[b2->tenant], "clusterB/vc2");
  EXPECT_EQ(w.tenants[FindJob(w, "clusterB:b1")->tenant], "clusterB/vc1");
  EXPECT_EQ(t.warnings.count(kItpWarnZeroDuration), 1);
  EXPECT_EQ(t.warnings.count(kItpWarnNoGpus), 1);
  EXPECT_EQ(t.warnings.total(), 2);
  EXPECT_EQ(t.warnings.examples().at(kItpWarnNoGpus).front(),
            Fixture("itp/clusterB.csv") + ":4: job 'clusterB:b3'");
}

TEST(ItpReader, GangSplitFollowsGpusPerNode) {
  ItpOptions opt;
  opt.gpus_per_node = 5;
  auto r = ReadItp({Fixture("itp/clusterA.csv"), Fixture("itp/clusterB.csv")}, opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Workload& w = r.value().workload;
  EXPECT_EQ(FindJob(w, "clusterA:a2")->tasks, 2);  // 8 = 2 x 4
  EXPECT_EQ(FindJob(w, "clusterA:a2")->task.gpus, 4);
  EXPECT_EQ(FindJob(w, "clusterB:b2")->tasks, 3);  // 12 = 3 x 4
  const Job* a4 = FindJob(w, "clusterA:a4");       // 64 -> 13 tasks, 5 each
  EXPECT_EQ(a4->tasks, 13);
  EXPECT_EQ(a4->task.gpus, 5);
  EXPECT_EQ(r.value().warnings.count(kItpWarnUnevenGang), 1);
}

TEST(ItpReader, ReadsGzipLikePlain) {
  const std::string dir = TempDir();
  const std::string gz = dir + "/clusterA.csv.gz";
  const std::string cmd = "gzip -c '" + Fixture("itp/clusterA.csv") + "' > '" + gz + "'";
  if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "gzip not available";
  auto plain = ReadItp({Fixture("itp/clusterA.csv")});
  auto zipped = ReadItp({gz});
  ASSERT_TRUE(zipped.ok()) << zipped.status().message();
  EXPECT_EQ(zipped.value().workload.jobs.size(), plain.value().workload.jobs.size());
  EXPECT_EQ(zipped.value().workload.jobs[1].name, "clusterA:a2");  // stem without .csv.gz
  EXPECT_EQ(zipped.value().bytes_read, plain.value().bytes_read);  // uncompressed bytes
}

TEST(ItpReader, LooksLike) {
  EXPECT_TRUE(LooksLikeItp({"job_id", "submission_time", "duration", "num_gpu"}));
  EXPECT_TRUE(LooksLikeItp({"job_id", " num_gpu", "duration", "submission_time", "deadline"}));
  EXPECT_FALSE(LooksLikeItp({"job_id", "submission_time", "duration"}));
  EXPECT_FALSE(LooksLikeItp({"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"}));
}

struct BadCase {
  const char* label;
  const char* text;
  const char* message;  // after "<path>:"
};

TEST(ItpReader, BadInputsNameFileLineAndField) {
  const BadCase cases[] = {
      {"non-numeric duration", "job_id,submission_time,duration,num_gpu\nx,0,ten,1\n",
       "2: field 'duration': expected seconds >= 0, got 'ten'"},
      {"negative submit", "job_id,submission_time,duration,num_gpu\nx,-5,10,1\n",
       "2: field 'submission_time': expected seconds >= 0, got '-5'"},
      {"negative gpus", "job_id,submission_time,duration,num_gpu\nx,0,10,-1\n",
       "2: field 'num_gpu': expected an integer 0..1000000, got '-1'"},
      {"fractional gpus", "job_id,submission_time,duration,num_gpu\nx,0,10,1.5\n",
       "2: field 'num_gpu': expected an integer 0..1000000, got '1.5'"},
      {"missing column", "job_id,submission_time,num_gpu\nx,0,1\n",
       "1: missing required column 'duration'"},
      {"wrong field count", "job_id,submission_time,duration,num_gpu\nx,0,10,1\ny,0,10\n",
       "3: expected 4 fields (as in the header), got 3"},
      {"empty id", "job_id,submission_time,duration,num_gpu\n,0,10,1\n",
       "2: field 'job_id': expected a non-empty job id, got ''"},
  };
  const std::string dir = TempDir();
  for (const BadCase& c : cases) {
    const std::string path = WriteFile(dir + "/clusterX.csv", c.text);
    auto r = ReadItp({path});
    ASSERT_FALSE(r.ok()) << c.label;
    EXPECT_EQ(r.status().message(), path + ":" + c.message) << c.label;
  }
}

TEST(ItpReader, RepeatedJobAndBadOptions) {
  const std::string dir = TempDir();
  const std::string p =
      WriteFile(dir + "/c1.csv", "job_id,submission_time,duration,num_gpu\nx,0,10,1\nx,1,10,1\n");
  auto r = ReadItp({p});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().message(),
      p + ":3: field 'job_id': expected a job id not already used (c1 at " + p + ":2), got 'x'");
  EXPECT_EQ(ReadItp({}).status().message(), "ITP: no trace files given");
  ItpOptions opt;
  opt.gpus_per_node = 0;
  EXPECT_EQ(ReadItp({p}, opt).status().message(),
            "ITP: option gpus_per_node: expected an integer 1..64, got '0'");
  auto missing = ReadItp({dir + "/nope.csv"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message().rfind(dir + "/nope.csv: cannot open", 0), 0u)
      << missing.status().message();
}

TEST(ItpReader, RealTracesMatchSourceCounts) {
  // Per-file job counts from microsoft-itp-elasticflow/SOURCE.md.
  const std::map<std::string, int64_t> expected = {
      {"cluster01", 1595},  {"cluster02", 5778}, {"cluster03", 3011},  {"cluster04", 15802},
      {"cluster05", 3629},  {"cluster06", 2396}, {"cluster07", 12699}, {"cluster08", 13047},
      {"cluster09", 11134}, {"cluster10", 260}};
  std::vector<std::string> paths;
  for (const auto& [name, n] : expected) {
    std::string p = testutil::TracePath("microsoft-itp-elasticflow/raw-traces/" + name + ".csv");
    if (p.empty()) GTEST_SKIP() << "ITP raw traces not present under " << testutil::TracesDir();
    paths.push_back(p);
  }
  auto r = ReadItp(paths);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TraceData& t = r.value();
  EXPECT_EQ(t.rows_read, 69351);
  EXPECT_EQ(t.workload.jobs.size(), 69351u);
  EXPECT_EQ(t.warnings.total(), 0);
  std::map<std::string, int64_t> per_cluster;
  std::map<int32_t, int64_t> cluster04_gpus;
  double gpu_hours = 0;
  for (const Job& j : t.workload.jobs) {
    const std::string cluster = j.name.substr(0, j.name.find(':'));
    ++per_cluster[cluster];
    const int32_t g = j.tasks * j.task.gpus;
    if (cluster == "cluster04") ++cluster04_gpus[g];
    gpu_hours += j.runtime.seconds() * g / 3600.0;
    EXPECT_EQ(t.workload.tenants[j.tenant], cluster);
  }
  EXPECT_EQ(per_cluster, expected);
  // SOURCE.md: cluster04 num_gpu 1:11924 2:125 4:532 8:2779 16:182 32:254 64:6.
  EXPECT_EQ(cluster04_gpus,
            (std::map<int32_t, int64_t>{
                {1, 11924}, {2, 125}, {4, 532}, {8, 2779}, {16, 182}, {32, 254}, {64, 6}}));
  EXPECT_NEAR(gpu_hours, 1632719.7, 1.0);  // README: 1,632,719.7 GPU hours
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
