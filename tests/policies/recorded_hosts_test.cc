// recorded-hosts (recorded_hosts.h), hand-computed: a history replayed with
// the as-recorded queue lands on its recorded nodes, so each job starts at
// its recorded time even where first fit would have blocked it.
#include "utilsim/policies/recorded_hosts.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// Nodes a (2 x A), b (2 x B), c (2 x B), named as a trace names them.
ClusterSpec ThreeNodes() {
  ClusterSpec c;
  c.name = "three";
  c.models = {{"A", 0, 1.0}, {"B", 0, 1.0}};
  c.groups = {{"a", 1, "A", 2, 8000, 64LL << 30, 0},
              {"b", 1, "B", 2, 8000, 64LL << 30, 0},
              {"c", 1, "B", 2, 8000, 64LL << 30, 0}};
  return c;
}

Job Recorded(const std::string& name, int64_t start_s, int64_t run_s, int32_t gpus,
             std::vector<std::string> hosts) {
  Job j;
  j.name = name;
  j.submit = Seconds(0);
  j.recorded_start = Seconds(start_s);
  j.runtime = Seconds(run_s);
  j.tasks = static_cast<int32_t>(hosts.empty() ? 1 : hosts.size());
  j.task.gpus = gpus;
  j.task.cpu_milli = 1000;
  j.recorded_hosts = std::move(hosts);
  return j;
}

struct Row {
  std::string placement;
  int64_t start_s;
};

std::map<std::string, Row> Replay(const std::string& policy, const Workload& w) {
  auto s = BuiltinPolicies().Make(policy);
  EXPECT_TRUE(s.ok()) << s.status().message();
  std::map<std::string, Row> out;
  if (!s.ok()) return out;
  auto r = Simulate(ThreeNodes(), w, *s.value(), SimConfig{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return out;
  for (const auto& j : r.value().jobs) out[j.name] = {j.placement, j.start.us / 1000000};
  return out;
}

TEST(RecordedHosts, AsRecordedReplaysOnTheRecordedNodes) {
  Workload w;
  // Recorded: x (2 GPUs, any model) on b from 0 to 100, y (2 GPUs of model
  // A) on a from 10 to 110. A first-fit replay puts x on a, the lowest
  // node, so y (model A only) waits for x and starts at 100, 90 s late. On
  // the recorded nodes y starts at 10, as recorded.
  w.jobs = {Recorded("x", 0, 100, 2, {"b"}), Recorded("y", 10, 100, 2, {"a"})};
  w.jobs[1].gpu_models = {"A"};
  w.Finalize();
  auto rec = Replay("as-recorded", w);
  EXPECT_EQ(rec["x"].placement, "b:0,1");
  EXPECT_EQ(rec["y"].placement, "a:0,1");
  EXPECT_EQ(rec["y"].start_s, 10);
  auto ff = Replay("as-recorded+first-fit", w);
  EXPECT_EQ(ff["x"].placement, "a:0,1");
  EXPECT_EQ(ff["y"].placement, "a:0,1");
  EXPECT_EQ(ff["y"].start_s, 100);
}

TEST(RecordedHosts, GangsUnknownHostsAndBusyHostsFallBackToFirstFit) {
  Workload w;
  // g: a gang of 2 x 1 GPU recorded on c and b -> exactly there (task order).
  // u: recorded on a node the cluster lacks -> first fit (a).
  // m: 1 task but 2 hosts recorded -> not used -> first fit (a, GPU 1).
  // h: recorded on c at 0 while g holds c:0 -> c:1 still fits -> c:1.
  w.jobs = {Recorded("g", 0, 50, 1, {"c", "b"}), Recorded("u", 0, 50, 1, {"nowhere"}),
            Recorded("m", 0, 50, 1, {}), Recorded("h", 0, 50, 1, {"c"})};
  w.jobs[2].recorded_hosts = {"b", "c"};
  w.Finalize();
  auto rec = Replay("as-recorded", w);
  EXPECT_EQ(rec["g"].placement, "c:0;b:0");
  EXPECT_EQ(rec["u"].placement, "a:0");
  EXPECT_EQ(rec["m"].placement, "a:1");
  EXPECT_EQ(rec["h"].placement, "c:1");
}

TEST(RecordedHosts, NamedAndVersioned) {
  auto p = MakeRecordedHosts(MakeFirstFit());
  EXPECT_EQ(p->id().name, "recorded-hosts");
  EXPECT_EQ(p->id().version, "1");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
