// KubeCache over TLS (httplib::SSLServer) with certificates the openssl
// CLI makes at test time (skipped with a reason without it): the server
// verified with ca_file, refused without it, accepted with
// insecure_skip_tls_verify; a client certificate the server requires.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "fake_kube_api.h"
#include "testutil/testutil.h"
#include "utilsim/live/kube_client.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

using testing::FakeKubeApi;

class NullListener : public KubeListener {
 public:
  void OnNode(WatchEvent::Type, const K8sNode&) override { ++nodes; }
  void OnPod(WatchEvent::Type, const K8sPod&) override { ++pods; }
  std::atomic<int> nodes{0}, pods{0};
};

class KubeCacheTls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (std::system("command -v openssl > /dev/null 2>&1") != 0) {
      skip_ = "the openssl command is not installed (apt-get install openssl)";
      return;
    }
    dir_ = testutil::TempDir();
    auto make = [&](const std::string& name, const std::string& extra) {
      std::string cmd =
          "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
          "-days 2 -keyout " +
          dir_ + "/" + name + ".key -out " + dir_ + "/" + name + ".crt " + extra + " > " + dir_ +
          "/openssl.log 2>&1";
      return std::system(cmd.c_str()) == 0;
    };
    if (!make("server", "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1,DNS:localhost") ||
        !make("client", "-subj /CN=utilsim-test")) {
      skip_ =
          "openssl could not make test certificates: " + testutil::ReadFile(dir_ + "/openssl.log");
    }
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
  }
  static std::string File(const std::string& name) { return dir_ + "/" + name; }

  // An HTTPS API server; with `client_ca`, it requires client
  // certificates signed by it.
  std::unique_ptr<FakeKubeApi> Serve(const std::string& client_ca = "") {
    auto server =
        std::make_unique<httplib::SSLServer>(File("server.crt").c_str(), File("server.key").c_str(),
                                             client_ca.empty() ? nullptr : client_ca.c_str());
    auto api = std::make_unique<FakeKubeApi>(std::move(server));
    EXPECT_TRUE(api->ok());
    api->SetPages(
        "nodes",
        {nlohmann::json::parse(testutil::ReadFile(testutil::Fixture("k8s/nodes_page2.json")))});
    api->SetPages(
        "pods",
        {nlohmann::json::parse(testutil::ReadFile(testutil::Fixture("k8s/pods_page2.json")))});
    return api;
  }

  // Whether a cache with `config` syncs within `ms`; *error: its last error.
  static bool Syncs(const KubeConfig& config, int ms, std::string* error) {
    NullListener listener;
    KubeCacheOptions o;
    o.backoff_initial_ms = 20;
    o.request_timeout_ms = 1000;
    KubeCache cache(config, o, &listener);
    cache.Start();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!cache.synced() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    bool synced = cache.synced();
    cache.Stop();
    *error = cache.last_error();
    if (synced) {
      EXPECT_EQ(listener.nodes.load(), 1);
    }
    return synced;
  }

  static std::string skip_, dir_;
};

std::string KubeCacheTls::skip_;
std::string KubeCacheTls::dir_;

TEST_F(KubeCacheTls, VerifiesTheServerWithTheCaFile) {
  auto api = Serve();
  KubeConfig c;
  c.server = api->url();
  c.ca_file = File("server.crt");
  c.token = "t";
  std::string error;
  EXPECT_TRUE(Syncs(c, 2000, &error)) << error;
  EXPECT_EQ(api->requests("nodes", false).at(0).authorization, "Bearer t");

  c.ca_file = File("client.crt");  // not the server's
  EXPECT_FALSE(Syncs(c, 300, &error));
  EXPECT_NE(error.find("SSL"), std::string::npos) << error;
  EXPECT_NE(error.find("list /api/v1/"), std::string::npos) << error;

  c.ca_file.clear();
  c.insecure_skip_tls_verify = true;
  EXPECT_TRUE(Syncs(c, 2000, &error)) << error;
}

TEST_F(KubeCacheTls, ClientCertificate) {
  auto api = Serve(File("client.crt"));
  KubeConfig c;
  c.server = api->url();
  c.ca_file = File("server.crt");
  std::string error;
  EXPECT_FALSE(Syncs(c, 300, &error));  // none given
  EXPECT_NE(error, "");

  c.client_cert_file = File("client.crt");
  c.client_key_file = File("client.key");
  EXPECT_TRUE(Syncs(c, 2000, &error)) << error;

  c.client_cert_file = File("missing.crt");
  EXPECT_FALSE(Syncs(c, 100, &error));
  EXPECT_NE(error.find("does the client certificate " + File("missing.crt") + " load"),
            std::string::npos)
      << error;
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
