// Slurm's JSON nodes and jobs (slurm_objects.h): the real squeue --json and
// sinfo --json of Slurm 22.05 (tests/fixtures/slurm/live, recorded from the
// test cluster of tests/live/slurm: a1-a2 with 4 x a100, b1-b3 with 4 x
// v100), the v0.0.40 shapes (hand-written from domain.md §4.3: numbers as
// {set, infinite, number}, states as flag arrays), and bad input.
#include "utilsim/live/slurm_objects.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "testutil/testutil.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

std::map<std::string, SlurmJobInfo> ById(const std::vector<SlurmJobInfo>& jobs) {
  std::map<std::string, SlurmJobInfo> out;
  for (const auto& j : jobs) out[j.display_id] = j;
  return out;
}

TEST(SlurmObjects, RealSqueueOf2205) {
  const std::string text = testutil::ReadFile(testutil::Fixture("slurm/live/squeue_22.05.json"));
  SlurmMeta meta;
  auto jobs = ParseSlurmJobs(text, &meta);
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  EXPECT_EQ(meta.data_parser, "v0.0.38");
  EXPECT_EQ(meta.release, "22.05.8");
  ASSERT_EQ(jobs.value().size(), 17u);
  auto by = ById(jobs.value());
  // Job 9: running on b1 with GPUs 0-3 (gres_detail "gpu:v100:4(IDX:0-3)"),
  // one core and 1000 MiB (job_resources).
  const SlurmJobInfo& r = by.at("9");
  EXPECT_TRUE(r.Running());
  EXPECT_EQ(r.start_time, 1796188665);
  EXPECT_EQ(r.end_time, 1827724665);  // start + 525600 min
  EXPECT_EQ(r.time_limit_min, 525600);
  ASSERT_EQ(r.allocs.size(), 1u);
  EXPECT_EQ(r.allocs[0].node, "b1");
  EXPECT_EQ(r.allocs[0].gpus, 4);
  EXPECT_EQ(r.allocs[0].gpu_indices, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(r.allocs[0].cpus, 1);
  EXPECT_EQ(r.allocs[0].memory_mib, 1000);
  EXPECT_EQ(r.TotalGpus(), 4);
  // Job 12: pending for resources, 4 x v100 per node, 1000 MiB, no limit.
  const SlurmJobInfo& p = by.at("12");
  EXPECT_TRUE(p.Pending());
  EXPECT_EQ(p.reason, "Resources");
  EXPECT_EQ(p.gpus_per_node, 4);
  EXPECT_EQ(p.gpu_type, "v100");
  EXPECT_EQ(p.memory_per_node_mib, 1000);
  EXPECT_EQ(p.time_limit_min, -1);
  EXPECT_EQ(p.partition, "gpu");
  EXPECT_EQ(p.priority, 4294901751);
  EXPECT_TRUE(p.allocs.empty());
  // The het job's components and the array: ids as Slurm prints them.
  EXPECT_EQ(by.at("15+0").het_job_id, 15);
  EXPECT_EQ(by.at("15+1").job_id, 16);
  EXPECT_EQ(by.at("15+1").gpu_type, "v100");
  EXPECT_EQ(by.at("17_[0-2]").gpus_per_node, 2);
  EXPECT_EQ(by.at("5_0").job_id, 6);
  EXPECT_EQ(by.at("5_0").state, "COMPLETED");
  // Job 4: two nodes, 4 x v100 each (tres_per_node gres:gpu:v100:4).
  EXPECT_EQ(by.at("4").node_count, 2);
  EXPECT_EQ(by.at("4").nodes, (std::vector<std::string>{"b1", "b2"}));
}

TEST(SlurmObjects, RealSinfoOf2205) {
  const std::string text = testutil::ReadFile(testutil::Fixture("slurm/live/sinfo_22.05.json"));
  auto nodes = ParseSlurmNodes(text);
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  ASSERT_EQ(nodes.value().size(), 5u);
  const SlurmNodeInfo& a1 = nodes.value()[0];
  EXPECT_EQ(a1.name, "a1");
  EXPECT_EQ(a1.cpus, 16);
  EXPECT_EQ(a1.real_memory_mib, 64000);
  EXPECT_EQ(a1.gpus, 4);
  EXPECT_EQ(a1.gpu_type, "a100");
  EXPECT_EQ(a1.state, (std::vector<std::string>{"IDLE"}));
  EXPECT_TRUE(a1.Schedulable());
  EXPECT_EQ(a1.partitions, (std::vector<std::string>{"gpu"}));
  EXPECT_EQ(nodes.value()[4].name, "b3");
  EXPECT_EQ(nodes.value()[4].gpu_type, "v100");
  EXPECT_EQ(nodes.value()[4].cpus, 8);
}

// v0.0.40 and later (domain.md §4.3): NO_VAL numbers, flag arrays.
TEST(SlurmObjects, LaterDataParserShapes) {
  const std::string nodes_text = R"js({"meta":{"plugin":{"type":"openapi/slurmctld",
      "data_parser":"v0.0.40"},"slurm":{"release":"24.11.7"}},"errors":[],"nodes":[
      {"name":"n1","cpus":32,"real_memory":256000,"gres":"gpu:h100:8(S:0-1)",
       "gres_used":"gpu:h100:2(IDX:0-1)","state":["MIXED","DRAIN"],"partitions":["gpu","debug"],
       "alloc_cpus":4,"alloc_memory":1000}]})js";
  SlurmMeta meta;
  auto nodes = ParseSlurmNodes(nodes_text, &meta);
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  EXPECT_EQ(meta.data_parser, "v0.0.40");
  EXPECT_EQ(meta.release, "24.11.7");
  const SlurmNodeInfo& n = nodes.value()[0];
  EXPECT_EQ(n.gpus, 8);
  EXPECT_EQ(n.gpus_used, 2);
  EXPECT_EQ(n.state, (std::vector<std::string>{"MIXED", "DRAIN"}));
  EXPECT_FALSE(n.Schedulable());
  EXPECT_EQ(n.partitions, (std::vector<std::string>{"gpu", "debug"}));

  const std::string jobs_text = R"({"jobs":[{"job_id":{"set":true,"infinite":false,"number":42},
      "job_state":["PENDING"],"state_reason":"Priority","partition":"gpu",
      "priority":{"set":true,"infinite":false,"number":1000},
      "time_limit":{"set":false,"infinite":true,"number":0},
      "submit_time":{"set":true,"infinite":false,"number":1700000000},
      "node_count":{"set":true,"infinite":false,"number":2},
      "cpus":{"set":true,"infinite":false,"number":16},
      "memory_per_node":{"set":true,"infinite":false,"number":64000},
      "memory_per_cpu":{"set":false,"infinite":false,"number":0},
      "tres_per_node":"gres/gpu:h100:8","tres_req_str":"cpu=16,mem=125G,node=2,gres/gpu=16",
      "array_task_id":{"set":false,"infinite":false,"number":0},"user_name":"ann"}]})";
  auto jobs = ParseSlurmJobs(jobs_text);
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  const SlurmJobInfo& j = jobs.value()[0];
  EXPECT_EQ(j.job_id, 42);
  EXPECT_EQ(j.display_id, "42");
  EXPECT_TRUE(j.Pending());
  EXPECT_EQ(j.priority, 1000);
  EXPECT_EQ(j.time_limit_min, -1);  // infinite
  EXPECT_EQ(j.node_count, 2);
  EXPECT_EQ(j.memory_per_node_mib, 64000);
  EXPECT_EQ(j.memory_per_cpu_mib, -1);  // not set
  EXPECT_EQ(j.gpus_per_node, 8);
  EXPECT_EQ(j.gpu_type, "h100");
  EXPECT_EQ(j.array_task_id, -1);
  EXPECT_EQ(j.TotalGpus(), 16);
}

TEST(SlurmObjects, HeldAndDrainedWords) {
  auto jobs = ParseSlurmJobs(R"({"jobs":[
      {"job_id":1,"job_state":"PENDING","state_reason":"JobHeldUser","priority":0},
      {"job_id":2,"job_state":"PENDING","state_reason":"Dependency","priority":5}]})");
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  EXPECT_TRUE(jobs.value()[0].Held());
  EXPECT_FALSE(jobs.value()[1].Held());
  auto nodes = ParseSlurmNodes(R"({"nodes":[{"name":"x","cpus":1,"state":"idle+drain"},
      {"name":"y","cpus":1,"state":"down*"},{"name":"z","cpus":1,"state":"allocated"}]})");
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  EXPECT_FALSE(nodes.value()[0].Schedulable());
  EXPECT_TRUE(nodes.value()[0].HasState("DRAIN"));
  EXPECT_FALSE(nodes.value()[2].HasState("DOWN"));
  EXPECT_TRUE(nodes.value()[2].Schedulable());
}

TEST(SlurmObjects, BadInputNamesThePath) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case jobs[] = {
      {"not json", "not a JSON object"},
      {"[1,2]", "not a JSON object"},
      {R"({"meta":{}})", "no \"jobs\" array in the response"},
      {R"({"jobs":[{"job_id":"x"}]})", "jobs[0].job_id: expected a number, got \"x\""},
      {R"({"jobs":[{"name":"a"}]})", "jobs[0].job_id: expected a job id > 0"},
      {R"({"jobs":[{"job_id":3,"nodes":"a[2-1]"}]})", "jobs[0].nodes: "},
      {R"({"jobs":[{"job_id":3,"tres_per_node":"gpu:a:b:c:d"}]})", "jobs[0].tres_per_node: "},
      {R"({"jobs":[{"job_id":3,"cpus":-4}]})", "jobs[0].cpus: expected a count"},
      {R"({"errors":[{"error":"Unable to contact slurm controller","error_number":1}],"jobs":[]})",
       "Slurm answered with an error: Unable to contact slurm controller"},
  };
  for (const Case& c : jobs) {
    auto r = ParseSlurmJobs(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.message), std::string::npos)
        << c.text << " -> " << r.status().message();
  }
  auto n = ParseSlurmNodes(R"({"nodes":[{"cpus":4}]})");
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("nodes[0].name"), std::string::npos);
  n = ParseSlurmNodes(R"({"nodes":[{"name":"a","state":7}]})");
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("nodes[0].state: expected a state string"),
            std::string::npos);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
