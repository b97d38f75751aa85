// Kubernetes object readers (utilsim/live/k8s_objects.h): quantities, the
// taint rule, Pod and Node JSON in upstream's shapes (tests/fixtures/k8s),
// lists, watch lines, and errors that name the JSON path.
#include "utilsim/live/k8s_objects.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "testutil/testutil.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

using nlohmann::json;

json Load(const std::string& name) {
  return json::parse(testutil::ReadFile(testutil::Fixture("k8s/" + name)));
}

std::vector<std::string> Lines(const std::string& name) {
  std::istringstream in(testutil::ReadFile(testutil::Fixture("k8s/" + name)));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kMi = int64_t{1} << 20;

TEST(Quantity, Table) {
  struct Case {
    const char* in;
    int64_t milli;
  };
  const Case cases[] = {
      {"0", 0},
      {"2", 2000},
      {"500m", 500},
      {"1.5", 1500},
      {"0.1", 100},
      {".5", 500},
      {"1.", 1000},
      {"+3", 3000},
      {"-2", -2000},
      {"1u", 1},  // 0.001 milli, rounded up
      {"1n", 1},
      {"1500u", 2},         // 1.5 milli -> 2
      {"-1n", -1},          // away from zero, as upstream
      {"250000000n", 250},  // exact
      {"250000n", 1},       // 0.25 milli -> 1
      {"1k", 1000000},
      {"4Gi", 4 * kGi * 1000},
      {"1Ki", 1024000},
      {"1.5Gi", 1536 * kMi * 1000},
      {"128974848", 128974848000},
      {"129M", 129000000000},
      {"123Mi", 123 * kMi * 1000},
      {"1e3", 1000000},
      {"1E3", 1000000},
      {"5e-1", 500},
      {"2e-4", 1},  // 0.2 milli -> 1
      {"1.5e+2", 150000},
      {"8Ti", (int64_t{8} << 40) * 1000},
      {"1P", 1000000000000000000},
      {"1Pi", (int64_t{1} << 50) * 1000},
      {"9223372036854775807m", INT64_MAX},
      {"0.000000000000000000000000000001", 1},
      {"00012.50", 12500},
      {"0Ei", 0},
      {"1e-999999999999", 1},  // tiny, exponent saturated
  };
  for (const Case& c : cases) {
    Result<int64_t> r = ParseQuantityMilli(c.in);
    ASSERT_TRUE(r.ok()) << c.in << ": " << r.status().message();
    EXPECT_EQ(r.value(), c.milli) << c.in;
  }
}

TEST(Quantity, Errors) {
  struct Case {
    const char* in;
    const char* message;  // a part of the error message
  };
  const Case cases[] = {
      {"", "(empty)"},
      {"abc", "expected a quantity, got 'abc' (no digits)"},
      {".", "no digits"},
      {"+", "no digits"},
      {"--1", "no digits"},
      {"1-", "a sign is allowed only at the start"},
      {"1x", "unknown suffix 'x'"},
      {"1KiB", "unknown suffix 'KiB'"},
      {"1ki", "unknown suffix 'ki'"},
      {"1e", "unknown suffix 'e'"},
      {"1e3.5", "bad exponent 'e3.5'"},
      {"1e+", "bad exponent 'e+'"},
      {" 1", "no digits"},
      {"1 ", "unknown suffix ' '"},
      {"1.2.3", "unknown suffix '.3'"},
      {"9223372036854775808m", "out of range"},
      {"9223372036854776", "out of range"},  // * 1000 > int64
      {"10E", "out of range"},
      {"8Ei", "out of range"},
      {"1e30", "out of range"},
      {"1e999999999999", "out of range"},
      {"99999999999999999999999", "out of range"},
  };
  for (const Case& c : cases) {
    Result<int64_t> r = ParseQuantityMilli(c.in);
    ASSERT_FALSE(r.ok()) << "'" << c.in << "' read as " << r.value();
    EXPECT_NE(r.status().message().find(c.message), std::string::npos)
        << "'" << c.in << "': " << r.status().message();
  }
  // The largest value: exactly INT64_MAX, one more is out of range.
  EXPECT_TRUE(ParseQuantityMilli("9223372036854775.807").ok());
  EXPECT_FALSE(ParseQuantityMilli("9223372036854775.8071").ok());  // rounds up past INT64_MAX
}

TEST(K8sTaints, TolerationRules) {
  const Taint gpu{"nvidia.com/gpu", "present", "NoSchedule"};
  const Taint evict{"maintenance", "", "NoExecute"};
  const Taint soft{"team", "vision", "PreferNoSchedule"};
  EXPECT_TRUE(ToleratesAll({}, {}));
  EXPECT_TRUE(ToleratesAll({soft}, {}));  // PreferNoSchedule is not a filter
  EXPECT_FALSE(ToleratesAll({gpu}, {}));
  EXPECT_TRUE(ToleratesAll({gpu}, {{"nvidia.com/gpu", "Exists", "", "NoSchedule"}}));
  EXPECT_TRUE(ToleratesAll({gpu}, {{"nvidia.com/gpu", "Exists", "", ""}}));  // "" = all effects
  EXPECT_FALSE(ToleratesAll({gpu}, {{"nvidia.com/gpu", "Exists", "", "NoExecute"}}));
  EXPECT_TRUE(ToleratesAll({gpu}, {{"nvidia.com/gpu", "Equal", "present", "NoSchedule"}}));
  EXPECT_TRUE(ToleratesAll({gpu}, {{"nvidia.com/gpu", "", "present", ""}}));  // "" = Equal
  EXPECT_FALSE(ToleratesAll({gpu}, {{"nvidia.com/gpu", "Equal", "absent", ""}}));
  EXPECT_FALSE(ToleratesAll({gpu}, {{"other", "Exists", "", ""}}));
  EXPECT_FALSE(ToleratesAll({gpu}, {{"nvidia.com/gpu", "Lt", "present", ""}}));  // unknown op
  // An empty key with Exists tolerates every taint.
  EXPECT_TRUE(ToleratesAll({gpu, evict}, {{"", "Exists", "", ""}}));
  // ... of its effect only, when it names one.
  EXPECT_FALSE(ToleratesAll({gpu, evict}, {{"", "Exists", "", "NoSchedule"}}));
  // Every taint needs a toleration of its own.
  EXPECT_FALSE(ToleratesAll({gpu, evict}, {{"nvidia.com/gpu", "Exists", "", ""}}));
  EXPECT_TRUE(ToleratesAll({gpu, evict, soft}, {{"nvidia.com/gpu", "Exists", "", ""},
                                                {"maintenance", "Equal", "", "NoExecute"}}));
}

TEST(K8sObjects, PodFromFixture) {
  Result<K8sPod> r = ParsePod(Load("pod_gpu.json"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const K8sPod& p = r.value();
  EXPECT_EQ(p.name, "resnet50-train-x7k2p");
  EXPECT_EQ(p.namespace_name, "ml-team");
  EXPECT_EQ(p.key(), "ml-team/resnet50-train-x7k2p");
  EXPECT_EQ(p.uid, "6a8f2c0e-3d4b-4e9a-8f61-1c2d3e4f5a6b");
  EXPECT_EQ(p.resource_version, "4821937");
  EXPECT_EQ(p.node_name, "");
  EXPECT_EQ(p.phase, "Pending");
  EXPECT_FALSE(p.terminal());
  EXPECT_FALSE(p.deleting);
  EXPECT_EQ(p.scheduler_name, "utilsim");
  EXPECT_EQ(p.labels.at("team"), "vision");
  EXPECT_EQ(p.labels.size(), 3u);
  EXPECT_EQ(p.annotations.at("utilsim.io/expected-runtime"), "3600");
  EXPECT_EQ(p.node_selector.at("nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-80GB");
  ASSERT_EQ(p.tolerations.size(), 4u);
  EXPECT_EQ(p.tolerations[0].key, "nvidia.com/gpu");
  EXPECT_EQ(p.tolerations[0].op, "Exists");
  EXPECT_EQ(p.tolerations[0].effect, "NoSchedule");
  EXPECT_EQ(p.tolerations[3].value, "vision");
  EXPECT_EQ(p.tolerations[3].effect, "");
  // cpu: containers 7500m + 100m < init 10 -> 10, + overhead 250m.
  // memory: containers 48Gi + 128Mi > init 2Gi, + overhead 120Mi.
  // gpu: trainer's limit 2 (defaulted request) < check-gpu's limit 4.
  EXPECT_EQ(p.requests_milli.at("cpu"), 10250);
  EXPECT_EQ(p.requests_milli.at("memory"), (48 * kGi + 248 * kMi) * 1000);
  EXPECT_EQ(p.requests_milli.at("nvidia.com/gpu"), 4000);
  EXPECT_EQ(p.requests_milli.size(), 3u);
}

TEST(K8sObjects, PodRequestRules) {
  // Limits only: requests default to limits; a request given wins.
  json pod = json::parse(R"({"metadata": {"name": "p"}, "spec": {"containers": [
      {"name": "a", "resources": {"limits": {"cpu": "2", "nvidia.com/gpu": "1"},
                                  "requests": {"cpu": "500m"}}},
      {"name": "b", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}})");
  Result<K8sPod> r = ParsePod(pod);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().requests_milli.at("cpu"), 500);
  EXPECT_EQ(r.value().requests_milli.at("nvidia.com/gpu"), 2000);

  // A sidecar init container (restartPolicy: Always) adds to the sum and to
  // the later init containers (upstream's PodRequests).
  json side = json::parse(R"({"metadata": {"name": "s"}, "spec": {
      "containers": [{"name": "main", "resources": {"requests": {"cpu": "1"}}}],
      "initContainers": [
        {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "500m"}}},
        {"name": "setup", "resources": {"requests": {"cpu": "2"}}}]}})");
  r = ParsePod(side);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().requests_milli.at("cpu"), 2500);  // max(1 + 0.5, 2 + 0.5)

  // Terminal and deleting pods; nulls read as absent.
  json done = json::parse(R"({"metadata": {"name": "d", "labels": null,
                                          "deletionTimestamp": "2024-05-02T10:00:00Z"},
                             "spec": {"containers": null, "nodeName": "n1"},
                             "status": {"phase": "Succeeded"}})");
  r = ParsePod(done);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r.value().terminal());
  EXPECT_TRUE(r.value().deleting);
  EXPECT_EQ(r.value().node_name, "n1");
  EXPECT_TRUE(r.value().requests_milli.empty());
}

TEST(K8sObjects, NodeFromFixture) {
  Result<K8sNode> r = ParseNode(Load("node_gpu.json"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const K8sNode& n = r.value();
  EXPECT_EQ(n.name, "gpu-a100-07");
  EXPECT_EQ(n.uid, "c2a4f1de-55b0-4d7b-bb7e-98f0d1e2a3b4");
  EXPECT_EQ(n.resource_version, "4820511");
  EXPECT_EQ(n.gpu_product(), "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ(n.labels.at("topology.kubernetes.io/zone"), "us-east-1a");
  EXPECT_EQ(n.allocatable_milli.at("cpu"), 95690);
  EXPECT_EQ(n.allocatable_milli.at("memory"), int64_t{1176782512} * 1024 * 1000);
  EXPECT_EQ(n.allocatable_milli.at("nvidia.com/gpu"), 8000);
  EXPECT_EQ(n.allocatable_milli.at("pods"), 110000);
  EXPECT_EQ(n.allocatable_milli.at("hugepages-1Gi"), 0);
  EXPECT_EQ(n.allocatable_milli.at("ephemeral-storage"), int64_t{1869384157908} * 1000);
  ASSERT_EQ(n.taints.size(), 2u);
  EXPECT_EQ(n.taints[0].key, "nvidia.com/gpu");
  EXPECT_EQ(n.taints[0].value, "present");
  EXPECT_EQ(n.taints[0].effect, "NoSchedule");
  EXPECT_EQ(n.taints[1].effect, "PreferNoSchedule");
  EXPECT_FALSE(n.unschedulable);
  EXPECT_TRUE(n.ready);
  // The fixture pod tolerates this node's taints.
  EXPECT_TRUE(ToleratesAll(n.taints, ParsePod(Load("pod_gpu.json")).value().tolerations));

  json bare = {{"metadata", {{"name", "cpu-1"}}}};
  r = ParseNode(bare);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().gpu_product(), "");
  EXPECT_TRUE(r.value().ready);  // no Ready condition: ready
}

TEST(K8sObjects, ListsWithPages) {
  Result<NodeList> nodes = ParseNodeList(Load("nodes_page1.json"));
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  EXPECT_EQ(nodes.value().resource_version, "1000");
  EXPECT_EQ(nodes.value().continue_token.substr(0, 10), "eyJ2IjoibW");
  ASSERT_EQ(nodes.value().items.size(), 2u);
  EXPECT_EQ(nodes.value().items[1].name, "gpu-b01");
  EXPECT_EQ(nodes.value().items[1].gpu_product(), "Tesla-V100-SXM2-32GB");
  EXPECT_EQ(nodes.value().items[1].allocatable_milli.at("nvidia.com/gpu"), 4000);

  Result<NodeList> last = ParseNodeList(Load("nodes_page2.json"));
  ASSERT_TRUE(last.ok()) << last.status().message();
  EXPECT_EQ(last.value().continue_token, "");
  ASSERT_EQ(last.value().items.size(), 1u);
  EXPECT_FALSE(last.value().items[0].ready);
  EXPECT_TRUE(last.value().items[0].unschedulable);

  Result<PodList> pods = ParsePodList(Load("pods_page2.json"));
  ASSERT_TRUE(pods.ok()) << pods.status().message();
  EXPECT_EQ(pods.value().resource_version, "1005");
  ASSERT_EQ(pods.value().items.size(), 2u);
  EXPECT_EQ(pods.value().items[0].key(), "vision/resnet-0");
  EXPECT_EQ(pods.value().items[0].requests_milli.at("cpu"), 7500);
  EXPECT_EQ(pods.value().items[0].requests_milli.at("nvidia.com/gpu"), 2000);
  EXPECT_EQ(pods.value().items[1].node_name, "");
  EXPECT_EQ(pods.value().items[1].phase, "Pending");
}

TEST(K8sObjects, WatchLinesOfEveryType) {
  std::vector<std::string> lines = Lines("watch_pods.jsonl");
  ASSERT_EQ(lines.size(), 6u);
  using T = WatchEvent::Type;
  const T types[] = {T::kAdded, T::kModified, T::kModified, T::kBookmark, T::kDeleted, T::kError};
  const char* rvs[] = {"1010", "1011", "1012", "1020", "1030", ""};
  for (size_t i = 0; i < lines.size(); ++i) {
    Result<PodWatchEvent> ev = ParsePodWatchEvent(lines[i]);
    ASSERT_TRUE(ev.ok()) << i << ": " << ev.status().message();
    EXPECT_EQ(ev.value().event.type, types[i]) << i;
    EXPECT_EQ(ev.value().event.resource_version, rvs[i]) << i;
    bool has_object = types[i] != T::kBookmark && types[i] != T::kError;
    EXPECT_EQ(ev.value().pod.has_value(), has_object) << i;
  }
  PodWatchEvent running = ParsePodWatchEvent(lines[2]).value();
  EXPECT_EQ(running.pod->node_name, "gpu-a01");
  EXPECT_EQ(running.pod->phase, "Running");
  EXPECT_EQ(running.pod->requests_milli.at("nvidia.com/gpu"), 8000);
  PodWatchEvent deleted = ParsePodWatchEvent(lines[4]).value();
  EXPECT_TRUE(deleted.pod->deleting);
  EXPECT_TRUE(deleted.pod->terminal());
  PodWatchEvent gone = ParsePodWatchEvent(lines[5]).value();
  EXPECT_EQ(gone.event.error_code, 410);
  EXPECT_EQ(gone.event.error_message, "too old resource version: 1 (5)");
  // The exact upstream ERROR line.
  Result<NodeWatchEvent> err = ParseNodeWatchEvent(
      R"json({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}})json");
  ASSERT_TRUE(err.ok()) << err.status().message();
  EXPECT_EQ(err.value().event.type, T::kError);
  EXPECT_EQ(err.value().event.error_code, 410);

  std::vector<std::string> nodes = Lines("watch_nodes.jsonl");
  ASSERT_EQ(nodes.size(), 3u);
  NodeWatchEvent cordoned = ParseNodeWatchEvent(nodes[1]).value();
  EXPECT_EQ(cordoned.event.type, T::kModified);
  EXPECT_TRUE(cordoned.node->unschedulable);
  EXPECT_EQ(cordoned.node->taints.at(0).key, "node.kubernetes.io/unschedulable");
  EXPECT_EQ(cordoned.node->allocatable_milli.at("memory"), 250 * kGi * 1000);
  NodeWatchEvent bookmark = ParseNodeWatchEvent(nodes[2]).value();
  EXPECT_EQ(bookmark.event.type, T::kBookmark);
  EXPECT_EQ(bookmark.event.resource_version, "1050");
  EXPECT_FALSE(bookmark.node.has_value());
}

// The message of a failed read.
template <typename T>
std::string ErrorOf(const Result<T>& r) {
  return r.ok() ? "<no error>" : r.status().message();
}

TEST(K8sObjects, BadInputNamesThePath) {
  json list = Load("pods_page1.json");
  list["items"].push_back(list["items"][0]);
  list["items"].push_back(list["items"][0]);
  list["items"].push_back(list["items"][0]);
  list["items"][3]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "abc";
  EXPECT_EQ(ErrorOf(ParsePodList(list)),
            "items[3].spec.containers[0].resources.requests.cpu: expected a quantity, got 'abc' "
            "(no digits)");

  json pod = Load("pod_gpu.json");
  pod["metadata"]["name"] = 12;
  EXPECT_EQ(ErrorOf(ParsePod(pod)), "metadata.name: expected a string, got 12");
  pod = Load("pod_gpu.json");
  pod["metadata"].erase("name");
  EXPECT_EQ(ErrorOf(ParsePod(pod)), "metadata.name: missing");
  pod = Load("pod_gpu.json");
  pod["spec"]["initContainers"][1]["resources"]["limits"]["nvidia.com/gpu"] = true;
  EXPECT_EQ(ErrorOf(ParsePod(pod, "object")),
            "object.spec.initContainers[1].resources.limits.nvidia.com/gpu: expected a "
            "quantity, got true");
  pod = Load("pod_gpu.json");
  pod["spec"]["tolerations"] = "all";
  EXPECT_EQ(ErrorOf(ParsePod(pod)), "spec.tolerations: expected a list, got \"all\"");
  pod = Load("pod_gpu.json");
  pod["spec"]["overhead"]["memory"] = "100E";
  EXPECT_NE(ErrorOf(ParsePod(pod)).find("spec.overhead.memory: quantity '100E' is out of range"),
            std::string::npos)
      << ErrorOf(ParsePod(pod));
  EXPECT_EQ(ErrorOf(ParsePod(json::array())), "expected a Pod object, got []");

  json node = Load("node_gpu.json");
  node["spec"]["taints"][1]["effect"] = json::object();
  EXPECT_EQ(ErrorOf(ParseNode(node, "items[0]")),
            "items[0].spec.taints[1].effect: expected a string, got {}");
  node = Load("node_gpu.json");
  node["spec"]["unschedulable"] = "yes";
  EXPECT_EQ(ErrorOf(ParseNode(node)), "spec.unschedulable: expected true or false, got \"yes\"");
  node = Load("node_gpu.json");
  node["metadata"]["labels"]["nvidia.com/gpu.count"] = 8;
  EXPECT_EQ(ErrorOf(ParseNode(node)),
            "metadata.labels.nvidia.com/gpu.count: expected a string, got 8");

  EXPECT_NE(ErrorOf(ParsePodWatchEvent("{\"type\":\"ADDED\"")).find("watch event: not JSON"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(ParsePodWatchEvent(R"({"type":"SYNC","object":{}})")),
            "type: expected ADDED, MODIFIED, DELETED, BOOKMARK or ERROR, got \"SYNC\"");
  EXPECT_EQ(ErrorOf(ParsePodWatchEvent(R"({"type":"ADDED"})")), "object: missing");
  EXPECT_EQ(ErrorOf(ParsePodWatchEvent(R"({"type":"ADDED","object":{"metadata":{}}})")),
            "object.metadata.name: missing");
  EXPECT_EQ(ErrorOf(ParseNodeList(json{{"items", {{{"metadata", {{"name", 1}}}}}}})),
            "items[0].metadata.name: expected a string, got 1");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
