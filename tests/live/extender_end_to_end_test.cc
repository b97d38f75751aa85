// End to end, every part real except the API server (none runs on these
// machines; a scripted one serves core/v1 lists and watches):
//   utilsim exporter (replaying tests/fixtures/live/two_nodes.prom)
//     -> Prometheus (Debian's, on loopback, scraping every second)
//     -> utilsim serve k8s-extender (the binary, polling Prometheus)
//     <- prioritize requests over HTTP, as kube-scheduler sends them.
// The node whose GPUs are measured idle scores above the busy one, and the
// scores swap when the replayed series swap.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "child_process.h"
#include "fake_kube_api.h"
#include "live_fixtures.h"
#include "prometheus_harness.h"
#include "testutil/testutil.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

json List(const char* kind, const json& items) {
  return {{"kind", kind},
          {"apiVersion", "v1"},
          {"metadata", {{"resourceVersion", "100"}}},
          {"items", items}};
}

// Polls prioritize until `want(scores)` or the deadline; the last reply.
json PollScores(httplib::Client& cli, const std::string& body, Clock::time_point deadline,
                const std::function<bool(const json&)>& want) {
  json last;
  while (Clock::now() < deadline) {
    auto r = cli.Post("/prioritize", body, "application/json");
    if (r && r->status == 200) {
      last = json::parse(r->body);
      if (want(last)) return last;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return last;
}

int64_t Score(const json& reply, const std::string& host) {
  for (const json& h : reply)
    if (h["Host"] == host) return h["Score"].get<int64_t>();
  return -1;
}

TEST(ExtenderEndToEnd, MeasuredIdleNodeScoresAboveTheBusyOneAndScoresFollowTheSeries) {
  std::string why;
  if (testutil::PrometheusHarness::FindBinary(&why).empty()) GTEST_SKIP() << why;
  // The API server: two 2-GPU nodes, one 1-GPU pod on each (the pods the
  // replayed series name), watches held open.
  testing::FakeKubeApi api;
  ASSERT_TRUE(api.ok());
  api.SetPages(
      "nodes",
      {List("NodeList", {testing_live::GpuNode("node-a", 2), testing_live::GpuNode("node-b", 2)})});
  api.SetPages("pods",
               {List("PodList", {testing_live::BoundPod("ml", "train-a", "ua", "node-a", 1),
                                 testing_live::BoundPod("ml", "train-b", "ub", "node-b", 1)})});
  api.AddWatch("nodes", {});
  api.AddWatch("pods", {});
  const std::string dir = testutil::TempDir();
  testutil::WriteFile(dir + "/kubeconfig",
                      "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
                      "clusters: [{name: c, cluster: {server: \"" +
                          api.url() +
                          "\"}}]\n"
                          "users: [{name: u, user: {token: tk}}]\n"
                          "contexts: [{name: t, context: {cluster: c, user: "
                          "u}}]\n");
  // Prometheus first (it applies targets on a 5 s tick), then the exporter.
  const int port = testutil::FreeLocalPort();
  const std::string target = "127.0.0.1:" + std::to_string(port);
  std::string error;
  auto prom = testutil::PrometheusHarness::Start(target, 1, 15000, &error);
  ASSERT_NE(prom, nullptr) << error;
  ASSERT_TRUE(prom->WaitForFirstScrape(10000, &error)) << error;
  testutil::WriteFile(dir + "/extender.yaml",
                      "listen: 127.0.0.1:0\npolicy: least-loaded\n"
                      "kubernetes: {kubeconfig: " +
                          dir +
                          "/kubeconfig}\n"
                          "prometheus: {url: \"" +
                          prom->url() +
                          "\", scrape_interval_s: 1, poll_s: 1}\n"
                          "shadow_log: " +
                          dir + "/shadow.jsonl\n");
  auto ext = testutil::ChildProcess::Start(
      {testutil::BinaryPath(), "serve", "k8s-extender", "--config", dir + "/extender.yaml"},
      dir + "/extender.log", &error);
  ASSERT_NE(ext, nullptr) << error;
  std::string line;
  ASSERT_TRUE(ext->ReadLine(&line, 10000)) << ext->Log();
  const std::string prefix = "utilsim k8s-extender listening on http://127.0.0.1:";
  ASSERT_EQ(line.rfind(prefix, 0), 0u) << line;
  httplib::Client cli("127.0.0.1", std::stoi(line.substr(prefix.size())));
  // Trace seconds 0..25 (node-a at 90 %, node-b at 10 %) last 6.25 s of
  // wall time at --speed 4 (the swap is at trace second 30, 7.5 s), then the
  // reverse until trace second 90.
  auto exporter = testutil::ChildProcess::Start(
      {testutil::BinaryPath(), "exporter", "--telemetry", testutil::Fixture("live/two_nodes.prom"),
       "--listen", target, "--speed", "4"},
      dir + "/exporter.log", &error);
  ASSERT_NE(exporter, nullptr) << error;
  ASSERT_TRUE(exporter->ReadLine(&line, 10000)) << exporter->Log();
  const auto t0 = Clock::now();
  const std::string body = json{
      {"Pod", testing_live::PendingPod("ml", "new", "un", 1)},
      {"NodeNames",
       {"node-a", "node-b"}}}.dump();
  // Loads: node-a 0.9 (train-a) / 2 GPUs = 0.45, node-b 0.05: node-b first.
  json r = PollScores(cli, body, t0 + std::chrono::milliseconds(6200), [](const json& s) {
    return Score(s, "node-b") == 10 && Score(s, "node-a") == 8;
  });
  ASSERT_EQ(Score(r, "node-b"), 10) << r.dump() << "\n" << ext->Log() << prom->Log();
  EXPECT_EQ(Score(r, "node-a"), 8);
  // After the swap node-a is the idle one.
  r = PollScores(cli, body, t0 + std::chrono::seconds(20),
                 [](const json& s) { return Score(s, "node-a") == 10 && Score(s, "node-b") == 8; });
  EXPECT_EQ(Score(r, "node-a"), 10) << r.dump() << "\n" << ext->Log();
  EXPECT_EQ(Score(r, "node-b"), 8);
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(6200)) << "swapped too early";
  // A clean stop, and the shadow log holds the cluster and the requests.
  const int st = ext->Signal(SIGTERM, 5000);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st << " " << ext->Log();
  const std::string log = testutil::ReadFile(dir + "/shadow.jsonl");
  EXPECT_NE(log.find("\"event\":\"cluster\""), std::string::npos);
  EXPECT_NE(log.find("\"event\":\"prioritize\""), std::string::npos);
  EXPECT_NE(log.find("\"top\":\"node-a\""), std::string::npos);
  EXPECT_NE(log.find("\"top\":\"node-b\""), std::string::npos);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
