// The extender verbs (extender.h) on the upstream JSON shapes, decided by a
// LiveState fed the way the Kubernetes cache feeds it: hand-computed
// filters and scores in both nodeCacheCapable forms, managed resources,
// measured utilization moving the scores, preemption, binding, malformed
// bodies. (No API server runs here: the objects are in the core/v1 shapes.)
#include "utilsim/live/extender.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "live_fixtures.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

using nlohmann::json;
using testing_live::BoundPod;
using testing_live::GpuNode;
using testing_live::PendingPod;

class ExtenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LiveStateOptions o;
    o.policy = "least-loaded";
    auto s = LiveState::Create(o);
    ASSERT_TRUE(s.ok()) << s.status().message();
    state = std::move(s).value();
    for (const char* n : {"g-0", "g-1"}) Node(GpuNode(n, 8));
    Node(GpuNode("cpu-0", 0));
    Pod(BoundPod("default", "busy", "uid-busy", "g-0", 4));
    state->OnSynced();
    ext = std::make_unique<Extender>(state.get(), ExtenderOptions{{"nvidia.com/gpu"}, true});
  }
  void Node(const json& j) {
    auto n = ParseNode(j);
    ASSERT_TRUE(n.ok()) << n.status().message();
    state->OnNode(WatchEvent::Type::kAdded, n.value());
  }
  void Pod(const json& j, WatchEvent::Type t = WatchEvent::Type::kAdded) {
    auto p = ParsePod(j);
    ASSERT_TRUE(p.ok()) << p.status().message();
    state->OnPod(t, p.value());
  }
  void Measure(double busy_g0, double busy_g1) {
    auto m = std::make_shared<MeasuredSnapshot>();
    m->taken_unix_ms = 1;
    for (int g = 0; g < 8; ++g) {
      m->gpus["g-0"][g] = {busy_g0, 1};
      m->gpus["g-1"][g] = {busy_g1, 1};
    }
    m->pods["default/busy"] = busy_g0;
    state->SetMeasured(m);
  }
  static json Args(const json& pod, const std::vector<std::string>& names) {
    return {{"Pod", pod}, {"Nodes", nullptr}, {"NodeNames", names}};
  }
  json Call(const std::string& verb, const json& body, int want_status = 200) {
    VerbRecord rec;
    HttpReply r;
    const std::string b = body.dump();
    const auto none = LiveState::Deadline::max();
    if (verb == "filter") r = ext->Filter(b, none, &rec);
    if (verb == "prioritize") r = ext->Prioritize(b, none, &rec);
    if (verb == "preempt") r = ext->Preempt(b, none, &rec);
    EXPECT_EQ(r.status, want_status) << r.body;
    last = rec;
    return json::parse(r.body);
  }

  std::unique_ptr<LiveState> state;
  std::unique_ptr<Extender> ext;
  VerbRecord last;
};

TEST_F(ExtenderTest, FilterNodeNamesForm) {
  // 8 GPUs: g-0 has 4 free (busy holds 4), g-1 8, cpu-0 none; "x" unknown.
  const json r = Call(
      "filter", Args(PendingPod("default", "big", "uid-big", 8), {"g-0", "g-1", "cpu-0", "x"}));
  EXPECT_TRUE(r["Nodes"].is_null());
  EXPECT_EQ(r["NodeNames"], json({"g-1", "x"}));
  ASSERT_EQ(r["FailedNodes"].size(), 2u);
  EXPECT_EQ(r["FailedNodes"]["g-0"], "utilsim: 4 whole GPUs free, 8 asked");
  EXPECT_EQ(r["FailedNodes"]["cpu-0"], "utilsim: node has 0 GPUs");
  EXPECT_EQ(r["FailedAndUnresolvableNodes"], json::object());
  EXPECT_EQ(r["Error"], "");
  EXPECT_TRUE(last.opinion);
  EXPECT_EQ(last.failed, 2u);
}

TEST_F(ExtenderTest, FilterNodesFormPassesTheNodeObjectsBack) {
  const json g0 = GpuNode("g-0", 8), g1 = GpuNode("g-1", 8);
  const json body = {{"Pod", PendingPod("default", "big", "uid-big", 8)},
                     {"Nodes", {{"metadata", json::object()}, {"items", {g0, g1}}}}};
  const json r = Call("filter", body);
  EXPECT_TRUE(r["NodeNames"].is_null());
  ASSERT_EQ(r["Nodes"]["items"].size(), 1u);
  EXPECT_EQ(r["Nodes"]["items"][0], g1);  // the object as sent
  EXPECT_EQ(r["FailedNodes"].size(), 1u);
  EXPECT_FALSE(last.node_cache_capable);
}

TEST_F(ExtenderTest, PrioritizeFollowsMeasuredUtilization) {
  // Unmeasured: busy's utilization is the fallback 1.0, so g-0's load is
  // 4 GPUs x 1.0 / 8 = 0.5 and g-1's 0: g-1 first (10), g-0 second (8).
  json r = Call("prioritize", Args(PendingPod("default", "one", "uid-1", 1), {"g-0", "g-1"}));
  EXPECT_EQ(r, json::parse(R"([{"Host":"g-0","Score":8},{"Host":"g-1","Score":10}])"));
  EXPECT_EQ(last.top, "g-1");
  // Measured: busy runs at 0.05 on g-0, and a new pod on g-1 at 0.9 makes
  // g-1 the busy one.
  Pod(BoundPod("default", "hot", "uid-hot", "g-1", 2));
  auto snap = std::make_shared<MeasuredSnapshot>();
  snap->taken_unix_ms = 2;
  snap->pods["default/busy"] = 0.05;
  snap->pods["default/hot"] = 0.9;
  state->SetMeasured(snap);
  // g-0: 4 x 0.05 / 8 = 0.025; g-1: 2 x 0.9 / 8 = 0.225: g-0 first now.
  r = Call("prioritize", Args(PendingPod("default", "one", "uid-1", 1), {"g-0", "g-1", "cpu-0"}));
  EXPECT_EQ(
      r, json::parse(
             R"([{"Host":"g-0","Score":10},{"Host":"g-1","Score":8},{"Host":"cpu-0","Score":0}])"));
  EXPECT_EQ(last.top, "g-0");
}

TEST_F(ExtenderTest, PrioritizeNodesFormAndPreemptWithFullVictims) {
  // nodeCacheCapable false: whole Node objects in, the same scores out.
  const json body = {{"Pod", PendingPod("default", "one", "uid-1", 1)},
                     {"Nodes", {{"items", {GpuNode("g-0", 8), GpuNode("g-1", 8)}}}}};
  json r = Call("prioritize", body);
  EXPECT_EQ(r, json::parse(R"([{"Host":"g-0","Score":8},{"Host":"g-1","Score":10}])"));
  EXPECT_FALSE(last.node_cache_capable);
  // Preempt in the NodeNameToVictims form (whole victim pods): the reply
  // is always NodeNameToMetaVictims with the victims' UIDs.
  const json pre = {{"Pod", PendingPod("default", "big", "uid-big", 8)},
                    {"NodeNameToVictims",
                     {{"g-0",
                       {{"Pods", {BoundPod("default", "busy", "uid-busy", "g-0", 4)}},
                        {"NumPDBViolations", 0}}}}}};
  r = Call("preempt", pre);
  EXPECT_EQ(
      r,
      json::parse(
          R"({"NodeNameToMetaVictims":{"g-0":{"Pods":[{"UID":"uid-busy"}],"NumPDBViolations":0}}})"));
}

TEST_F(ExtenderTest, PodsOutsideManagedResourcesGetNoOpinion) {
  const json cpu_pod = PendingPod("default", "web", "uid-web", 0);
  json r = Call("filter", Args(cpu_pod, {"g-0", "cpu-0"}));
  EXPECT_EQ(r["NodeNames"], json({"g-0", "cpu-0"}));
  EXPECT_EQ(r["FailedNodes"], json::object());
  EXPECT_FALSE(last.opinion);
  EXPECT_EQ(last.reason, "pod requests none of the managed resources");
  r = Call("prioritize", Args(cpu_pod, {"g-0", "cpu-0"}));
  EXPECT_EQ(r, json::parse(R"([{"Host":"g-0","Score":0},{"Host":"cpu-0","Score":0}])"));
}

TEST_F(ExtenderTest, NotSyncedMeansNoOpinion) {
  LiveStateOptions o;
  auto s = LiveState::Create(o);
  ASSERT_TRUE(s.ok());
  Extender e(s.value().get(), {});
  VerbRecord rec;
  const auto r = e.Filter(Args(PendingPod("default", "big", "u", 8), {"g-0"}).dump(),
                          LiveState::Deadline::max(), &rec);
  EXPECT_EQ(json::parse(r.body)["NodeNames"], json({"g-0"}));
  EXPECT_FALSE(rec.opinion);
  EXPECT_EQ(rec.reason, "cluster state not synced yet");
}

TEST_F(ExtenderTest, PreemptKeepsNodesWhereTheVictimsMakeRoom) {
  // 8 GPUs: on g-0 evicting busy (4 GPUs) frees all 8; on g-1 nothing is
  // needed; on g-2 (unknown) utilsim has no opinion; evicting an unknown
  // UID on g-0 alone would not make room.
  const json body = {{"Pod", PendingPod("default", "big", "uid-big", 8)},
                     {"NodeNameToMetaVictims",
                      {{"g-0", {{"Pods", {{{"UID", "uid-busy"}}}}, {"NumPDBViolations", 1}}},
                       {"g-1", {{"Pods", json::array()}, {"NumPDBViolations", 0}}},
                       {"g-2", {{"Pods", {{{"UID", "uid-z"}}}}, {"NumPDBViolations", 0}}}}}};
  json r = Call("preempt", body);
  EXPECT_EQ(r["NodeNameToMetaVictims"]["g-0"]["Pods"], json::parse(R"([{"UID":"uid-busy"}])"));
  EXPECT_EQ(r["NodeNameToMetaVictims"]["g-0"]["NumPDBViolations"], 1);
  EXPECT_TRUE(r["NodeNameToMetaVictims"].contains("g-1"));
  EXPECT_TRUE(r["NodeNameToMetaVictims"].contains("g-2"));
  const json wrong = {{"Pod", PendingPod("default", "big", "uid-big", 8)},
                      {"NodeNameToMetaVictims", {{"g-0", {{"Pods", {{{"UID", "uid-z"}}}}}}}}};
  r = Call("preempt", wrong);
  EXPECT_FALSE(r["NodeNameToMetaVictims"].contains("g-0"));
  // The victims are back where they were: g-0 still has 4 GPUs free.
  r = Call("filter", Args(PendingPod("default", "big", "uid-big", 8), {"g-0"}));
  EXPECT_EQ(r["NodeNames"], json::array());
}

TEST_F(ExtenderTest, BindCallsTheBinder) {
  std::string seen;
  Extender::Binder b = [&](const std::string& ns, const std::string& name, const std::string& uid,
                           const std::string& node) {
    seen = ns + "/" + name + "/" + uid + "@" + node;
    return std::string();
  };
  VerbRecord rec;
  auto r = ext->Bind(R"({"PodName":"p","PodNamespace":"ns","PodUID":"u1","Node":"g-1"})", b, &rec);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body), json::parse(R"({"Error":""})"));
  EXPECT_EQ(seen, "ns/p/u1@g-1");
  r = ext->Bind(R"({"PodName":"p","PodNamespace":"ns","PodUID":"u1"})", b, &rec);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["Error"], "Node: expected a string");
}

TEST_F(ExtenderTest, MalformedBodiesAre400WithAReason) {
  const std::string pod = PendingPod("default", "one", "uid-1", 1).dump();
  const std::string good = R"({"Pod":)" + pod + R"(,"NodeNames":["g-0"]})";
  struct Case {
    std::string body, reason_part;
  };
  const Case cases[] = {
      {"", "not JSON"},
      {"{", "not JSON"},
      {good.substr(0, good.size() / 2), "not JSON"},  // truncated
      {"[]", "expected a JSON object"},
      {R"({"Pod":5,"NodeNames":[]})", "Pod: expected a v1.Pod object"},
      {R"({"NodeNames":["g-0"]})", "Pod: expected a v1.Pod object"},
      {R"({"Pod":)" + pod + "}", "neither NodeNames nor Nodes given"},
      {R"({"Pod":)" + pod + R"(,"NodeNames":"g-0"})", "NodeNames: expected an array"},
      {R"({"Pod":)" + pod + R"(,"NodeNames":[1]})", "NodeNames[0]: expected a string"},
      {R"({"Pod":)" + pod + R"(,"Nodes":{"items":[{"metadata":{}}]}})",
       "Nodes.items[0].metadata.name: expected a string"},
      // Invalid UTF-8 (found by the fuzzer: quoting it in the reason made
      // the JSON writer throw; now replaced by U+FFFD).
      {"{\"Pod\":\"\xff\xfe\"}", "not JSON"},
      {"\xff{", "not JSON"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body);
    for (const char* verb : {"filter", "prioritize"}) {
      VerbRecord rec;
      const auto r = std::string(verb) == "filter"
                         ? ext->Filter(c.body, LiveState::Deadline::max(), &rec)
                         : ext->Prioritize(c.body, LiveState::Deadline::max(), &rec);
      EXPECT_EQ(r.status, 400);
      const json j = json::parse(r.body);
      EXPECT_NE(j["Error"].get<std::string>().find(c.reason_part), std::string::npos) << r.body;
    }
  }
  // Keys match case-insensitively, as Go's decoder does.
  VerbRecord rec;
  const auto r = ext->Filter(R"({"pod":)" + pod + R"(,"nodenames":["g-1"]})",
                             LiveState::Deadline::max(), &rec);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body)["NodeNames"], json({"g-1"}));
}

TEST(DemandOf, SharesOfTheDevicePlugins) {
  ResourceNames names;
  auto demand = [&](const json& req) {
    auto p = ParsePod(testing_live::PodWithRequests("ns", "p", req));
    EXPECT_TRUE(p.ok()) << p.status().message();
    return DemandOf(p.value(), names, int64_t{80} << 30);
  };
  // HAMi: one vGPU at 30 % of a GPU and 3000 MiB.
  auto d = demand(
      {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpucores", "30"}, {"nvidia.com/gpumem", "3000"}});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value().gpus, 1);
  EXPECT_EQ(d.value().gpu_milli, 300);
  EXPECT_EQ(d.value().gpu_mem_bytes, int64_t{3000} << 20);
  // gpushare: 20 GiB of an 80 GiB GPU: share 250, memory 20 GiB.
  d = demand({{"aliyun.com/gpu-mem", "20"}});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value().gpu_milli, 250);
  EXPECT_EQ(d.value().gpu_mem_bytes, int64_t{20} << 30);
  // Koordinator: 200 % = two whole GPUs.
  d = demand({{"koordinator.sh/gpu-core", "200"}});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value().gpus, 2);
  EXPECT_EQ(d.value().gpu_milli, 1000);
  // Whole GPUs, cpu and memory.
  d = demand({{"nvidia.com/gpu", "4"}, {"cpu", "500m"}, {"memory", "2Gi"}});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value().gpus, 4);
  EXPECT_EQ(d.value().cpu_milli, 500);
  EXPECT_EQ(d.value().mem_bytes, int64_t{2} << 30);
  // A share of each of two GPUs is not modelled: an error, not a guess.
  d = demand({{"nvidia.com/gpu", "2"}, {"nvidia.com/gpucores", "50"}});
  EXPECT_FALSE(d.ok());
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
