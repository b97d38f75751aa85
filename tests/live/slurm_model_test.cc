// The Slurm advisor's model (slurm_model.h), hand-computed: where each
// pending job goes and when it could start, on the real 22.05 snapshot and
// on small clusters written here.
#include "utilsim/live/slurm_model.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "testutil/testutil.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

std::map<std::string, SlurmAdvice> ByJob(const std::vector<SlurmAdvice>& v) {
  std::map<std::string, SlurmAdvice> out;
  for (const auto& a : v) out[a.job] = a;
  return out;
}

std::vector<SlurmNodeInfo> Nodes(const std::string& json) {
  auto n = ParseSlurmNodes(json);
  EXPECT_TRUE(n.ok()) << n.status().message();
  return n.ok() ? n.value() : std::vector<SlurmNodeInfo>{};
}
std::vector<SlurmJobInfo> Jobs(const std::string& json) {
  auto j = ParseSlurmJobs(json);
  EXPECT_TRUE(j.ok()) << j.status().message();
  return j.ok() ? j.value() : std::vector<SlurmJobInfo>{};
}

std::unique_ptr<SlurmModel> Model(const std::vector<SlurmNodeInfo>& nodes,
                                  const std::vector<SlurmJobInfo>& jobs,
                                  const std::string& policy = "best-fit") {
  SlurmAdviceOptions o;
  o.policy = policy;
  auto m = SlurmModel::Build(nodes, jobs, o);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m.value()) : nullptr;
}

// The recorded snapshot: jobs 9-11 hold all 12 v100s until 1827724665
// (start 1796188665 + 525,600 min); pending in priority order: 12, 13, 14
// (4 x v100, no time limit), the het job 15 (15+0: 1 x a100, 15+1: 1 x
// v100, 10 min), the array 17_[0-2] (2 x v100, no limit).
TEST(SlurmModel, RecordedSnapshotUnderBestFit) {
  auto nodes = Nodes(testutil::ReadFile(testutil::Fixture("slurm/live/sinfo_22.05.json")));
  auto jobs = Jobs(testutil::ReadFile(testutil::Fixture("slurm/live/squeue_22.05.json")));
  auto m = Model(nodes, jobs);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->modelled(), 3u);  // 9, 10, 11
  EXPECT_EQ(m->unmodelled(), 0u);
  const int64_t now = 1796188666;
  auto advice = m->Advise(now);
  ASSERT_EQ(advice.size(), 6u);
  // Priority order.
  EXPECT_EQ(advice[0].job, "12");
  EXPECT_EQ(advice[5].job, "17_[0-2]");
  auto a = ByJob(advice);
  // 12, 13, 14 start when 9, 10, 11 end, on b1, b2, b3: all three free at
  // once, best fit ties to the lowest node, each taking a whole node. This
  // is also Slurm's own estimate (start_time 1827724665).
  const int64_t t = 1827724665;
  EXPECT_FALSE(a["12"].now);
  EXPECT_EQ(a["12"].est_start_unix, t);
  EXPECT_EQ(a["12"].slurm_start_unix, t);
  EXPECT_EQ(a["12"].nodes, (std::vector<std::string>{"b1"}));
  EXPECT_EQ(a["12"].placement, "b1:0,1,2,3");
  EXPECT_EQ(a["13"].nodes, (std::vector<std::string>{"b2"}));
  EXPECT_EQ(a["14"].nodes, (std::vector<std::string>{"b3"}));
  // The het job starts together or not at all: its v100 component never
  // finds a v100 (12-14 have no time limit), so neither component starts,
  // although an a100 is free now.
  EXPECT_TRUE(a["15+0"].nodes.empty());
  EXPECT_EQ(a["15+0"].why, "no start while the jobs without a time limit run");
  EXPECT_TRUE(a["15+1"].nodes.empty());
  EXPECT_TRUE(a["17_[0-2]"].nodes.empty());
  EXPECT_EQ(a["12"].task.gpus, 4);
  EXPECT_EQ(a["12"].task.mem_bytes, 1000LL << 20);
  EXPECT_EQ(a["12"].gpu_model, "v100");
  // Usage: 12 of 20 GPUs allocated, none measured.
  SlurmUsage u = m->Usage(nullptr);
  EXPECT_EQ(u.gpus_total, 20);
  EXPECT_EQ(u.gpus_allocated, 12);
  EXPECT_EQ(u.gpus_measured, 0);
}

// The fuzzer's seed (tests/fixtures/slurm/live/snapshot_small.json): a cut of
// the same snapshot, jobs and nodes in one document, with only job 9 running
// (on b1): 12 fits b2 now (best fit: b2 and b3 tie, lowest first); the het
// job 15 starts together, 15+0 on a1 and 15+1 on b3; 17_[0-2]'s next task
// (2 x v100) then fits b3's 3 free GPUs, the tightest.
TEST(SlurmModel, CombinedSnapshotDocument) {
  const std::string doc = testutil::ReadFile(testutil::Fixture("slurm/live/snapshot_small.json"));
  auto m = Model(Nodes(doc), Jobs(doc));
  ASSERT_TRUE(m);
  auto a = ByJob(m->Advise(1796188666));
  ASSERT_EQ(a.size(), 4u);  // 12, 15+0, 15+1, 17_[0-2]
  EXPECT_EQ(a["12"].nodes, (std::vector<std::string>{"b2"}));
  EXPECT_TRUE(a["12"].now);
  EXPECT_EQ(a["15+0"].placement, "a1:0");
  EXPECT_EQ(a["15+1"].placement, "b3:0");
  EXPECT_EQ(a["17_[0-2]"].placement, "b3:1,2");
  EXPECT_TRUE(a["17_[0-2]"].now);
}

// Two nodes of 4 GPUs "g". R1 holds n1's 4 GPUs until now+100, R2 holds
// n2's GPUs 0-1 until now+50.
constexpr char kTwoNodes[] = R"({"nodes":[
  {"name":"n1","cpus":8,"real_memory":1000,"gres":"gpu:g:4","state":"allocated","partitions":["p"]},
  {"name":"n2","cpus":8,"real_memory":1000,"gres":"gpu:g:4","state":"mixed","partitions":["p"]}]})";

std::string Running(int id, const std::string& node, const std::string& idx, int gpus, int end) {
  return R"({"job_id":)" + std::to_string(id) + R"(,"job_state":"RUNNING","partition":"p",)" +
         R"("nodes":")" + node + R"(","cpus":1,"end_time":)" + std::to_string(end) +
         R"(,"job_resources":{"allocated_nodes":[{"nodename":")" + node +
         R"(","memory_allocated":100}]},"gres_detail":["gpu:g:)" + std::to_string(gpus) +
         "(IDX:" + idx + R"x()"]})x";
}

std::string PendingJob(int id, int gpus, int prio, int limit_min, const std::string& extra = "") {
  return R"({"job_id":)" + std::to_string(id) + R"(,"job_state":"PENDING","partition":"p",)" +
         R"("state_reason":"Resources","cpus":1,"memory_per_node":100,"priority":)" +
         std::to_string(prio) + R"(,"time_limit":)" + std::to_string(limit_min) +
         R"(,"tres_per_node":"gres:gpu:)" + std::to_string(gpus) + "\"" + extra + "}";
}

TEST(SlurmModel, ListScheduleEstimatesHandComputed) {
  const int64_t now = 1000000;
  // P1 (4 GPUs, priority 9) cannot start now; P2 (2 GPUs, priority 5) fits
  // n2's GPUs 2-3 now. At now+50 R2 ends, but P2 keeps n2 half full, so P1
  // waits for R1: n1 at now+100.
  auto jobs = Jobs(R"({"jobs":[)" + Running(1, "n1", "0-3", 4, now + 100) + "," +
                   Running(2, "n2", "0-1", 2, now + 50) + "," + PendingJob(11, 4, 9, 60) + "," +
                   PendingJob(12, 2, 5, 60) + "]}");
  auto m = Model(Nodes(kTwoNodes), jobs);
  ASSERT_TRUE(m);
  auto a = ByJob(m->Advise(now));
  EXPECT_FALSE(a["11"].now);
  EXPECT_EQ(a["11"].est_start_unix, now + 100);
  EXPECT_EQ(a["11"].nodes, (std::vector<std::string>{"n1"}));
  EXPECT_TRUE(a["12"].now);
  EXPECT_EQ(a["12"].est_start_unix, now);
  EXPECT_EQ(a["12"].placement, "n2:2,3");
  // Worst fit would spread P2 too, but only n2 has free GPUs now.
  auto w = Model(Nodes(kTwoNodes), jobs, "worst-fit");
  EXPECT_EQ(ByJob(w->Advise(now))["12"].placement, "n2:2,3");
}

TEST(SlurmModel, MeasuredUsageJoinsByNodeAndGpuIndex) {
  const int64_t now = 1000000;
  auto jobs = Jobs(R"({"jobs":[)" + Running(1, "n1", "0-3", 4, now + 100) + "," +
                   Running(2, "n2", "0-1", 2, now + 50) + "]}");
  auto m = Model(Nodes(kTwoNodes), jobs);
  ASSERT_TRUE(m);
  MeasuredSnapshot snap;
  snap.gpus["n1"] = {{0, {0.5, 0}}, {1, {0.5, 0}}, {2, {0.0, 0}}, {3, {1.0, 0}}};
  snap.gpus["n2"] = {{0, {0.25, 0}}, {3, {0.9, 0}}};  // GPU 1 unknown, 3 not job 2's
  SlurmUsage u = m->Usage(&snap);
  EXPECT_EQ(u.gpus_allocated, 6);
  EXPECT_EQ(u.gpus_measured, 5);              // n1: 4, n2: GPU 0 only
  EXPECT_DOUBLE_EQ(u.gpus_busy, 2.0 + 0.25);  // 0.5+0.5+0+1 and 0.25
  ASSERT_EQ(u.holdings.size(), 2u);
  EXPECT_EQ(u.holdings[0].job, "1");
  EXPECT_DOUBLE_EQ(u.holdings[0].busy, 2.0);  // idle allocated: 4 - 2 = 2 GPUs
  EXPECT_EQ(u.holdings[1].measured, 1);
  EXPECT_EQ(u.nodes[1].allocated, 2);
}

TEST(SlurmModel, DrainedHeldWholeMemoryAndPartitions) {
  const int64_t now = 1000000;
  const std::string nodes = R"({"nodes":[
    {"name":"n1","cpus":8,"real_memory":1000,"gres":"gpu:g:4","state":"idle+drain","partitions":["p"]},
    {"name":"n2","cpus":8,"real_memory":1000,"gres":"gpu:g:4","state":"idle","partitions":["p"]},
    {"name":"n3","cpus":8,"real_memory":2000,"gres":"gpu:g:4","state":"mixed","partitions":["q"]}]})";
  const std::string held = R"({"job_id":21,"job_state":"PENDING","partition":"p",)"
                           R"("state_reason":"JobHeldUser","priority":0,"cpus":1,)"
                           R"("memory_per_node":10,"tres_per_node":"gres:gpu:1"})";
  // 22: no memory asked: whole nodes; in p only n2 (n1 is drained).
  const std::string whole = R"({"job_id":22,"job_state":"PENDING","partition":"p",)"
                            R"("priority":7,"cpus":2,"time_limit":5,"tres_per_node":"gres:gpu:1"})";
  // 23: partition q holds n3, where job 3 holds memory: whole-node jobs
  // cannot go there, this one asks 100 MiB and can.
  const std::string q = PendingJob(23, 1, 6, 5, R"(,"partition":"q")");
  auto jobs = Jobs(R"({"jobs":[)" + Running(3, "n3", "0", 1, now + 10) + "," + held + "," + whole +
                   "," + q + "]}");
  // PendingJob's own "partition":"p" comes first; JSON keeps the last.
  auto m = Model(Nodes(nodes), jobs);
  ASSERT_TRUE(m);
  auto a = ByJob(m->Advise(now));
  EXPECT_TRUE(a["21"].held);
  EXPECT_EQ(a["21"].why, "held (JobHeldUser)");
  EXPECT_TRUE(a["21"].nodes.empty());
  EXPECT_TRUE(a["22"].whole_node_memory);
  EXPECT_EQ(a["22"].nodes, (std::vector<std::string>{"n2"}));
  EXPECT_EQ(a["22"].task.mem_bytes, 1000LL << 20);  // the whole node's memory
  EXPECT_EQ(a["23"].nodes, (std::vector<std::string>{"n3"}));
  EXPECT_EQ(a["23"].placement, "n3:1");
  // Only partition q advised.
  SlurmAdviceOptions o;
  o.partitions = {"q"};
  auto mq = SlurmModel::Build(Nodes(nodes), jobs, o);
  ASSERT_TRUE(mq.ok());
  auto only = mq.value()->Advise(now);
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(only[0].job, "23");
}

TEST(SlurmModel, JobsThatFitNowhereSaySo) {
  const int64_t now = 1000000;
  auto jobs = Jobs(R"({"jobs":[)" + PendingJob(31, 8, 5, 5) + "," +
                   PendingJob(32, 1, 4, 5, R"(,"tres_per_node":"gres:gpu:h100:1")") + "]}");
  auto m = Model(Nodes(kTwoNodes), jobs);
  ASSERT_TRUE(m);
  auto a = ByJob(m->Advise(now));
  EXPECT_EQ(a["31"].why, "fits on no node of its partition, even empty");
  EXPECT_EQ(a["32"].why, "no node has GPUs of type h100");
  EXPECT_EQ(a["32"].est_start_unix, -1);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
