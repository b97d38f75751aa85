// The extender's HTTP server (extender_server.h) on loopback: verbs over
// HTTP, health and readiness, metrics, 400s for oversized and malformed
// bodies, shedding, /bind only when enabled, and the shadow log's lines.
#include "utilsim/live/extender_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "live_fixtures.h"
#include "testutil/testutil.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

using nlohmann::json;
using testing_live::BoundPod;
using testing_live::GpuNode;
using testing_live::PendingPod;

struct Rig {
  explicit Rig(ServerOptions o = {}, const std::string& log_path = "") {
    auto s = LiveState::Create(LiveStateOptions{});
    EXPECT_TRUE(s.ok());
    state = std::move(s).value();
    for (const char* n : {"g-0", "g-1"})
      state->OnNode(WatchEvent::Type::kAdded, ParseNode(GpuNode(n, 8)).value());
    ext = std::make_unique<Extender>(state.get(), ExtenderOptions{});
    if (!log_path.empty()) log = std::move(ShadowLog::Open(log_path)).value();
    o.host = "127.0.0.1";
    o.port = 0;
    server = std::make_unique<ExtenderServer>(o, ext.get(), state.get(), log.get(),
                                              [](auto&, auto&, auto&, auto&) { return ""; });
    EXPECT_TRUE(server->Start().ok());
    client = std::make_unique<httplib::Client>("127.0.0.1", server->port());
  }
  httplib::Result Post(const std::string& path, const std::string& body) {
    return client->Post(path.c_str(), body, "application/json");
  }
  std::unique_ptr<LiveState> state;
  std::unique_ptr<Extender> ext;
  std::unique_ptr<ShadowLog> log;
  std::unique_ptr<ExtenderServer> server;
  std::unique_ptr<httplib::Client> client;
};

// Sends `request` on a new connection and returns what the server answers
// (up to when it closes, or 10 s).
std::string RawExchange(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "connect failed";
  }
  (void)!::write(fd, request.data(), request.size());
  timeval tv{10, 0};  // the server's read timeout comes first
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

std::string Args(int gpus, const std::vector<std::string>& nodes) {
  return json{{"Pod", PendingPod("default", "p", "uid-p", gpus)}, {"NodeNames", nodes}}.dump();
}

TEST(ExtenderServer, VerbsHealthReadinessAndMetrics) {
  Rig rig;
  auto r = rig.client->Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = rig.client->Get("/readyz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);  // not synced yet
  // Not synced: no opinion, every node kept.
  r = rig.Post("/filter", Args(1, {"g-0", "g-1"}));
  ASSERT_TRUE(r);
  EXPECT_EQ(json::parse(r->body)["NodeNames"], json({"g-0", "g-1"}));
  rig.state->OnSynced();
  EXPECT_EQ(rig.client->Get("/readyz")->status, 200);
  r = rig.Post("/prioritize", Args(1, {"g-0", "g-1"}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  // Both empty: least-loaded ties to best fit, then the lowest node, g-0.
  EXPECT_EQ(json::parse(r->body),
            json::parse(R"([{"Host":"g-0","Score":10},{"Host":"g-1","Score":8}])"));
  // /bind is not served unless enabled.
  r = rig.Post("/bind", R"({"PodName":"p","PodNamespace":"d","PodUID":"u","Node":"g-0"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  const std::string m = rig.server->MetricsText();
  EXPECT_NE(m.find("utilsim_extender_requests_total{verb=\"prioritize\",outcome=\"opinion\"} 1"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("utilsim_extender_requests_total{verb=\"filter\",outcome=\"no_opinion\"} 1"),
            std::string::npos);
  EXPECT_NE(m.find("utilsim_extender_request_seconds_count{verb=\"prioritize\"} 1"),
            std::string::npos);
  EXPECT_NE(m.find("utilsim_extender_nodes 2"), std::string::npos);
  EXPECT_NE(m.find("utilsim_extender_cache_age_seconds "), std::string::npos);
  EXPECT_EQ(m.find("utilsim_extender_cache_age_seconds -1"), std::string::npos);  // events came
  r = rig.client->Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("utilsim_extender_synced 1"), std::string::npos);
}

TEST(ExtenderServer, OversizedMalformedAndTruncatedBodiesAre400) {
  ServerOptions o;
  o.max_body_bytes = 4096;
  o.read_timeout_ms = 300;
  Rig rig(o);
  rig.state->OnSynced();
  auto r = rig.Post("/filter", std::string(5000, ' '));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(json::parse(r->body)["Error"], "request body over 4096 bytes");
  r = rig.Post("/prioritize", "{\"Pod\":");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(json::parse(r->body)["Error"].get<std::string>().find("not JSON"), std::string::npos);
  // A body shorter than its Content-Length (the client stops sending):
  // 400 once the read timeout runs out, not a crash or a hang.
  const std::string answer = RawExchange(
      rig.server->port(),
      "POST /filter HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
      "Content-Length: 100\r\n\r\n{\"Pod\":");
  EXPECT_EQ(answer.substr(0, 12), "HTTP/1.1 400") << answer;
  EXPECT_NE(answer.find("shorter than its Content-Length"), std::string::npos) << answer;
  // A JSON prefix (a body cut where the Content-Length agrees).
  const std::string full = Args(1, {"g-0"});
  r = rig.Post("/filter", full.substr(0, full.size() - 3));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  // And the server still answers.
  r = rig.Post("/filter", full);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(ExtenderServer, ShedsWithNoOpinionBeyondMaxInFlight) {
  ServerOptions o;
  o.max_in_flight = 0;  // every request is over the limit
  Rig rig(o);
  rig.state->OnSynced();
  auto r = rig.Post("/filter", Args(16, {"g-0", "g-1"}));  // would fail both if decided
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["NodeNames"], json({"g-0", "g-1"}));
  r = rig.Post("/prioritize", Args(1, {"g-0"}));
  EXPECT_EQ(json::parse(r->body), json::parse(R"([{"Host":"g-0","Score":0}])"));
  EXPECT_NE(rig.server->MetricsText().find(
                "utilsim_extender_requests_total{verb=\"filter\",outcome=\"shed\"} 1"),
            std::string::npos);
}

TEST(ExtenderServer, ShadowLogRecordsRequestsAndBindings) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("shadow-" + std::to_string(::getpid()) + ".jsonl"))
          .string();
  std::filesystem::remove(path);
  {
    Rig rig({}, path);
    rig.state->OnSynced();
    auto r = rig.Post("/prioritize", Args(2, {"g-0", "g-1"}));
    ASSERT_TRUE(r);
    // The scheduler binds it elsewhere than recommended (g-1, not g-0).
    rig.state->OnPod(WatchEvent::Type::kModified,
                     ParsePod(BoundPod("default", "p", "uid-p", "g-1", 2)).value());
    rig.state->OnPod(WatchEvent::Type::kDeleted,
                     ParsePod(BoundPod("default", "p", "uid-p", "g-1", 2)).value());
  }
  std::ifstream in(path);
  std::vector<json> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(json::parse(l));
  ASSERT_EQ(lines.size(), 4u);
  // The modelled cluster first, so the log replays on it.
  EXPECT_EQ(lines[0]["event"], "cluster");
  ASSERT_EQ(lines[0]["nodes"].size(), 2u);
  EXPECT_EQ(lines[0]["nodes"][1], json::parse(R"({"name":"g-1","gpu_model":"NVIDIA-A100-SXM4-80GB",
      "gpus":8,"cpu_milli":64000,"mem_bytes":549755813888})"));
  EXPECT_EQ(lines[0]["models"][0]["memory_bytes"], int64_t{81920} << 20);
  lines.erase(lines.begin());
  EXPECT_EQ(lines[0]["event"], "prioritize");
  EXPECT_EQ(lines[0]["top"], "g-0");
  EXPECT_EQ(lines[0]["gpus"], 2);
  EXPECT_EQ(lines[0]["best"], json::parse(R"([["g-0",10],["g-1",8]])"));
  EXPECT_EQ(lines[1]["event"], "bound");
  EXPECT_EQ(lines[1]["node"], "g-1");
  EXPECT_EQ(lines[1]["recommended"], "g-0");
  EXPECT_EQ(lines[1]["chosen"]["free_gpus"], 6);  // with the pod on it
  EXPECT_EQ(lines[1]["recommended_facts"]["free_gpus"], 8);
  EXPECT_EQ(lines[2]["event"], "finished");
  EXPECT_EQ(lines[2]["pod"], "default/p");
  std::filesystem::remove(path);
  // A symbolic link is refused as a shadow log.
  const std::string link = path + ".link";
  std::filesystem::create_symlink("/etc/hostname", link);
  auto refused = ShadowLog::Open(link);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("symbolic link"), std::string::npos);
  std::filesystem::remove(link);
}

// TLS when a certificate and key are given (made by the openssl CLI here;
// skipped with a reason without it): an HTTPS client that trusts the
// certificate gets answers; half a TLS configuration is refused at start.
TEST(ExtenderServer, ServesHttpsWithACertificate) {
  if (std::system("command -v openssl > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "the openssl command is not installed";
  const std::string dir = testutil::TempDir();
  const std::string cmd =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
      "-keyout " +
      dir + "/s.key -out " + dir +
      "/s.crt -subj /CN=127.0.0.1 "
      "-addext subjectAltName=IP:127.0.0.1 > " +
      dir + "/openssl.log 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << testutil::ReadFile(dir + "/openssl.log");
  ServerOptions o;
  o.tls_cert_file = dir + "/s.crt";
  o.tls_key_file = dir + "/s.key";
  auto s = LiveState::Create(LiveStateOptions{});
  ASSERT_TRUE(s.ok());
  Extender ext(s.value().get(), ExtenderOptions{});
  o.port = 0;
  ExtenderServer server(o, &ext, s.value().get(), nullptr);
  ASSERT_TRUE(server.Start().ok());
  httplib::SSLClient cli("127.0.0.1", server.port());
  cli.set_ca_cert_path((dir + "/s.crt").c_str());
  cli.enable_server_certificate_verification(true);
  auto r = cli.Get("/healthz");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  r = cli.Post("/filter", Args(1, {"g-0"}), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(json::parse(r->body)["NodeNames"], json({"g-0"}));  // not synced: no opinion
  server.Stop();
  ServerOptions half;
  half.tls_cert_file = dir + "/s.crt";
  ExtenderServer bad(half, &ext, s.value().get(), nullptr);
  const Status st = bad.Start();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("need both a certificate and a key"), std::string::npos);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
