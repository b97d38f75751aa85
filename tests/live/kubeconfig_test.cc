// LoadKubeconfig and InClusterConfig (utilsim/live/kube_client.h): the
// fixture kubeconfig (tests/fixtures/k8s/kubeconfig.yaml: two contexts,
// token and tokenFile, *-data fields, relative paths) copied into a
// temporary folder, and the errors, which name the file and the key.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "testutil/testutil.h"
#include "utilsim/live/kube_client.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

namespace fs = std::filesystem;

// Sets an environment variable for the scope, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testutil::TempDir();
    path_ = dir_ + "/kubeconfig.yaml";
    testutil::WriteFile(path_, testutil::ReadFile(testutil::Fixture("k8s/kubeconfig.yaml")));
    fs::create_directories(dir_ + "/certs");
    fs::create_directories(dir_ + "/tokens");
    testutil::WriteFile(dir_ + "/certs/dev-ca.crt", "dev ca\n");
    testutil::WriteFile(dir_ + "/tokens/ci.token", "ci-token-123\n");
  }
  // The fixture with `from` replaced by `to`, as another file.
  std::string Variant(const std::string& from, const std::string& to) {
    std::string text = testutil::ReadFile(path_);
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return testutil::WriteFile(dir_ + "/variant.yaml", text);
  }
  std::string dir_, path_;
};

TEST_F(KubeconfigTest, CurrentContextWithTokenAndDataFields) {
  Result<KubeConfig> r = LoadKubeconfig(path_, "");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const KubeConfig& c = r.value();
  EXPECT_EQ(c.server, "https://10.0.0.1:6443");
  EXPECT_EQ(c.token, "eyJhbGciOiJSUzI1NiJ9.prod-admin-token");
  EXPECT_FALSE(c.insecure_skip_tls_verify);
  // *-data: decoded into private files.
  ASSERT_TRUE(fs::exists(c.ca_file)) << c.ca_file;
  EXPECT_EQ(testutil::ReadFile(c.ca_file),
            "-----BEGIN CERTIFICATE-----\ntest-ca\n-----END CERTIFICATE-----\n");
  ASSERT_TRUE(fs::exists(c.client_cert_file));
  EXPECT_EQ(testutil::ReadFile(c.client_cert_file),
            "-----BEGIN CERTIFICATE-----\nclient-cert\n-----END CERTIFICATE-----\n");
  ASSERT_TRUE(fs::exists(c.client_key_file));
  EXPECT_EQ(testutil::ReadFile(c.client_key_file),
            "-----BEGIN PRIVATE KEY-----\nclient-key\n-----END PRIVATE KEY-----\n");
  struct stat st {};
  ASSERT_EQ(stat(c.client_key_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(KubeconfigTest, OtherContextWithTokenFileAndRelativePaths) {
  Result<KubeConfig> r = LoadKubeconfig(path_, "dev-ci");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const KubeConfig& c = r.value();
  EXPECT_EQ(c.server, "http://127.0.0.1:8001/k8s/clusters/c-dev");
  EXPECT_EQ(c.token, "ci-token-123");  // the file's, trimmed
  EXPECT_EQ(fs::path(c.ca_file), fs::path(dir_) / "certs/dev-ca.crt");
  EXPECT_TRUE(c.insecure_skip_tls_verify);
  EXPECT_EQ(c.client_cert_file, "");
  EXPECT_EQ(c.client_key_file, "");
}

TEST_F(KubeconfigTest, TildeIsHome) {
  ScopedEnv home("HOME", dir_.c_str());
  Result<KubeConfig> r = LoadKubeconfig("~/kubeconfig.yaml", "dev-ci");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().token, "ci-token-123");
  std::string v = Variant("tokenFile: tokens/ci.token", "tokenFile: ~/tokens/ci.token");
  r = LoadKubeconfig(v, "dev-ci");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().token, "ci-token-123");
}

TEST_F(KubeconfigTest, ErrorsNameTheFileAndKey) {
  Result<KubeConfig> r = LoadKubeconfig(path_, "staging");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            path_ + ": context 'staging' not found in contexts (prod-admin, dev-ci)");

  r = LoadKubeconfig(dir_ + "/absent.yaml", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), dir_ + "/absent.yaml: cannot read the kubeconfig");

  std::string v = Variant("current-context: prod-admin\n", "");
  r = LoadKubeconfig(v, "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), v + ": current-context: not set, and no context was given");

  v = Variant("    cluster: dev\n", "    cluster: qa\n");
  r = LoadKubeconfig(v, "dev-ci");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), v + ": cluster 'qa' not found in clusters (prod, dev)");

  v = Variant("tokens/ci.token", "tokens/missing.token");
  r = LoadKubeconfig(v, "dev-ci");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            v + ": users[1].user.tokenFile: cannot read '" + dir_ + "/tokens/missing.token'");

  v = Variant("certs/dev-ca.crt", "certs/none.crt");
  r = LoadKubeconfig(v, "dev-ci");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), v + ": clusters[1].cluster.certificate-authority: '" + dir_ +
                                      "/certs/none.crt' does not exist");

  v = Variant("client-key-data: LS0t", "client-key-data: not!base64!LS0t");
  r = LoadKubeconfig(v, "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), v + ": users[0].user.client-key-data: not valid base64");

  v = Variant("insecure-skip-tls-verify: true", "insecure-skip-tls-verify: maybe");
  r = LoadKubeconfig(v, "dev-ci");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            v + ": clusters[1].cluster.insecure-skip-tls-verify: expected true or false, got "
                "'maybe'");

  v = Variant("    server: https://10.0.0.1:6443\n", "    server: [a, b]\n");
  r = LoadKubeconfig(v, "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), v + ": clusters[0].cluster.server: expected a string");

  v = Variant("    tokenFile: tokens/ci.token\n",
              "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: aws\n");
  r = LoadKubeconfig(v, "dev-ci");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(v + ": users[1].user.exec: credential plugins are not "
                                          "supported"),
            std::string::npos)
      << r.status().message();

  v = testutil::WriteFile(dir_ + "/shape.yaml", "current-context: a\ncontexts: {a: b}\n");
  r = LoadKubeconfig(v, "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), v + ": contexts: expected a list");
  v = testutil::WriteFile(dir_ + "/shape.yaml", "contexts:\n- name: a\n  context: [x]\n");
  r = LoadKubeconfig(v, "a");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), v + ": contexts[0].context: expected a mapping");
  v = testutil::WriteFile(dir_ + "/shape.yaml", "- just\n- a list\n");
  r = LoadKubeconfig(v, "a");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), v + ": expected a mapping (a kubeconfig)");

  v = testutil::WriteFile(dir_ + "/broken.yaml", "clusters:\n- name: a\n  cluster: {server: [\n");
  r = LoadKubeconfig(v, "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind(v + ":", 0), 0u) << r.status().message();
}

TEST(KubeInClusterConfig, ServiceAccountFiles) {
  std::string dir = testutil::TempDir();
  testutil::WriteFile(dir + "/token", "sa-token\n");
  testutil::WriteFile(dir + "/ca.crt", "cluster ca\n");
  {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
    Result<KubeConfig> r = InClusterConfig(dir);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r.value().server, "https://10.96.0.1:443");
    EXPECT_EQ(r.value().token, "sa-token");
    EXPECT_EQ(r.value().ca_file, dir + "/ca.crt");

    ScopedEnv v6("KUBERNETES_SERVICE_HOST", "fd00::1");
    r = InClusterConfig(dir);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r.value().server, "https://[fd00::1]:443");

    r = InClusterConfig(dir + "/nothing");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(),
              "not in a cluster: cannot read the service account token " + dir + "/nothing/token");
  }
  ScopedEnv host("KUBERNETES_SERVICE_HOST", nullptr);
  Result<KubeConfig> r = InClusterConfig(dir);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("KUBERNETES_SERVICE_HOST"), std::string::npos);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
