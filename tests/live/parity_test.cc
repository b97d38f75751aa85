// Decision parity: for a recorded sequence of pods, the extender's top node
// equals the simulator's placement under the same policy and state. The
// simulator runs a workload; each start becomes a prioritize request (every
// node a candidate) and then the binding the watch would report; each end a
// deletion; the pods' utilization reaches the extender as a measured
// snapshot, as it would from Prometheus.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "live_fixtures.h"
#include "utilsim/engine/rng.h"
#include "utilsim/engine/simulator.h"
#include "utilsim/live/extender.h"
#include "utilsim/policies/registry.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

using nlohmann::json;

constexpr int kNodes = 6;

// The cluster the extender builds from GpuNode(g-k, 8): one group per node.
ClusterSpec Cluster() {
  ClusterSpec c;
  c.name = "kubernetes";
  c.models = {{"NVIDIA-A100-SXM4-80GB", int64_t{81920} << 20, 1.0}};
  for (int k = 0; k < kNodes; ++k)
    c.groups.push_back(
        {"g-" + std::to_string(k), 1, "NVIDIA-A100-SXM4-80GB", 8, 64000, int64_t{512} << 30, 0});
  return c;
}

Workload Pods(uint32_t seed) {
  Rng rng(seed, 0, "parity");
  auto pick = [&](int lo, int hi) { return static_cast<int>(rng.UniformInt(lo, hi)); };
  Workload w;
  for (int i = 0; i < 240; ++i) {
    Job j;
    j.name = "p" + std::to_string(i);
    j.submit = Seconds(pick(0, 4000));
    j.task.cpu_milli = 4000;
    j.task.mem_bytes = int64_t{16} << 30;
    if (pick(0, 3) == 0) {
      j.task.gpus = 1;
      j.task.gpu_milli = pick(1, 9) * 100;  // a HAMi share, nvidia.com/gpucores
    } else {
      j.task.gpus = pick(1, 8);
    }
    j.runtime = Seconds(pick(60, 3000));
    j.util = static_cast<float>(pick(1, 20) / 20.0);
    j.util_known = true;
    w.jobs.push_back(j);
  }
  w.Finalize();
  return w;
}

json PodOf(const Job& j, const std::string& node) {
  json req = {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", std::to_string(j.task.gpus)}};
  if (j.task.fractional()) req["nvidia.com/gpucores"] = std::to_string(j.task.gpu_milli / 10);
  return testing_live::PodWithRequests("default", j.name, req, "uid-" + j.name, node);
}

TEST(DecisionParity, ExtenderTopNodeIsTheSimulatorsPlacement) {
  for (const char* policy : {"least-loaded", "best-fit", "colocate"}) {
    SCOPED_TRACE(policy);
    const Workload w = Pods(7);
    auto sched = BuiltinPolicies().Make(std::string("fifo+") + policy);
    ASSERT_TRUE(sched.ok());
    struct Ev {
      bool start;
      JobIndex job;
    };
    std::vector<Ev> log;
    SimConfig cfg;
    cfg.observer = [&](const EngineEvent& e, RunControl&) {
      if (e.kind == EventKind::kStart || e.kind == EventKind::kFinish)
        log.push_back({e.kind == EventKind::kStart, e.job});
    };
    auto r = Simulate(Cluster(), w, *sched.value(), cfg);
    ASSERT_TRUE(r.ok()) << r.status().message();
    std::map<JobIndex, std::string> node_of;
    for (const JobRecord& rec : r.value().jobs)
      node_of[rec.job] = rec.placement.substr(0, rec.placement.find(':'));

    LiveStateOptions o;
    o.policy = policy;
    auto state = LiveState::Create(o);
    ASSERT_TRUE(state.ok());
    LiveState& s = *state.value();
    std::vector<std::string> names;
    for (int k = 0; k < kNodes; ++k) {
      names.push_back("g-" + std::to_string(k));
      s.OnNode(WatchEvent::Type::kAdded, ParseNode(testing_live::GpuNode(names.back(), 8)).value());
    }
    s.OnSynced();
    auto measured = std::make_shared<MeasuredSnapshot>();
    for (const Job& j : w.jobs) measured->pods["default/" + j.name] = j.util;
    s.SetMeasured(measured);
    Extender ext(&s, ExtenderOptions{{"nvidia.com/gpu"}, true});
    size_t decided = 0;
    for (const Ev& e : log) {
      const Job& j = w.jobs[e.job];
      if (!e.start) {
        s.OnPod(WatchEvent::Type::kDeleted, ParsePod(PodOf(j, node_of[e.job])).value());
        continue;
      }
      VerbRecord rec;
      const json body = {{"Pod", PodOf(j, "")}, {"NodeNames", names}};
      const HttpReply reply = ext.Prioritize(body.dump(), LiveState::Deadline::max(), &rec);
      ASSERT_EQ(reply.status, 200) << reply.body;
      ASSERT_TRUE(rec.opinion) << rec.reason;
      ASSERT_EQ(rec.top, node_of[e.job]) << j.name << " after " << decided << " decisions";
      ++decided;
      s.OnPod(WatchEvent::Type::kAdded, ParsePod(PodOf(j, node_of[e.job])).value());
    }
    EXPECT_EQ(decided, w.jobs.size());
    EXPECT_EQ(s.unmodelled_pods(), 0u);
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
