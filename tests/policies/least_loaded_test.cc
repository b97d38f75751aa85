// least-loaded (least_loaded.h) in a simulation, hand-computed: jobs spread
// by the recorded utilization of what runs, where best fit packs.
#include "utilsim/policies/least_loaded.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "utilsim/engine/simulator.h"
#include "utilsim/policies/registry.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

// Two nodes of 2 GPUs: t-0, t-1.
ClusterSpec TwoNodes() {
  ClusterSpec c;
  c.name = "two";
  c.models = {{"G", 0, 1.0}};
  c.groups = {{"t", 2, "G", 2, 16000, 64LL << 30, 0}};
  return c;
}

Job OneGpu(const std::string& name, int64_t submit_s, float util, int32_t milli = 1000) {
  Job j;
  j.name = name;
  j.submit = Seconds(submit_s);
  j.task.gpus = 1;
  j.task.gpu_milli = milli;
  j.task.cpu_milli = 1000;
  j.runtime = Seconds(100);
  j.util = util;
  j.util_known = true;
  return j;
}

std::map<std::string, std::string> Placements(const std::string& policy, const Workload& w) {
  auto s = BuiltinPolicies().Make(policy);
  EXPECT_TRUE(s.ok()) << s.status().message();
  std::map<std::string, std::string> out;
  if (!s.ok()) return out;
  auto r = Simulate(TwoNodes(), w, *s.value(), SimConfig{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return out;
  for (const auto& j : r.value().jobs) out[j.name] = j.placement;
  return out;
}

TEST(LeastLoaded, SpreadsByMeasuredUtilizationWhereBestFitPacks) {
  Workload w;
  // a (busy) and b (nearly idle) arrive together, c a second later.
  w.jobs = {OneGpu("a", 0, 0.9f), OneGpu("b", 0, 0.2f), OneGpu("c", 1, 0.5f)};
  w.Finalize();
  // a: both nodes load 0, 2 whole-free each -> t-0. b: t-0 now has load
  // 0.9 / 2 = 0.45, t-1 0 -> t-1. c: t-0 0.45 > t-1 0.1 -> t-1.
  auto ll = Placements("fifo+least-loaded", w);
  EXPECT_EQ(ll["a"], "t-0:0");
  EXPECT_EQ(ll["b"], "t-1:0");
  EXPECT_EQ(ll["c"], "t-1:1");
  // Best fit packs a and b on t-0 and c on t-1 regardless of utilization.
  auto bf = Placements("fifo+best-fit", w);
  EXPECT_EQ(bf["a"], "t-0:0");
  EXPECT_EQ(bf["b"], "t-0:1");
  EXPECT_EQ(bf["c"], "t-1:0");
}

TEST(LeastLoaded, FractionalTasksTakeTheLeastLoadedGpu) {
  Workload w;
  // Two half-GPU jobs at once: x on t-0 GPU 0 (all idle; least free share
  // ties, lowest node and GPU). y: GPU t-0:0 has load 0.8 x 0.5 = 0.4, every
  // other GPU 0; of those, the least free share (all 1000): t-0 GPU 1.
  // z (quarter GPU, later): loads t-0:0 0.4, t-0:1 0.1 (y: 0.2 x 0.5), t-1:* 0
  // -> t-1 GPU 0.
  w.jobs = {OneGpu("x", 0, 0.8f, 500), OneGpu("y", 0, 0.2f, 500), OneGpu("z", 5, 1.0f, 250)};
  w.Finalize();
  auto ll = Placements("fifo+least-loaded", w);
  EXPECT_EQ(ll["x"], "t-0:0");
  EXPECT_EQ(ll["y"], "t-0:1");
  EXPECT_EQ(ll["z"], "t-1:0");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
