// The extender's YAML configuration (extender_config.h): every key read,
// defaults kept, and bad files refused with file:line:key.
#include "utilsim/live/extender_config.h"

#include <gtest/gtest.h>

#include "testutil/testutil.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

std::string Write(const std::string& text) {
  return testutil::WriteFile(testutil::TempDir() + "/extender.yaml", text);
}

TEST(ExtenderConfig, ReadsEveryKey) {
  auto c = LoadExtenderConfig(Write(R"(listen: 0.0.0.0:9443
policy: colocate:threshold=0.8
rank_depth: 3
fallback_util: 0.5
managed_resources: [nvidia.com/gpu, aliyun.com/gpu-mem]
resources:
  whole: [nvidia.com/gpu]
  share: [{name: aliyun.com/gpu-mem, unit: gib}]
  node_count: [aliyun.com/gpu-count]
kubernetes: {in_cluster: true, resync_s: 60}
prometheus: {url: "http://prom:9090", metric: DCGM_FI_PROF_GR_ENGINE_ACTIVE, scrape_interval_s: 10, poll_s: 5}
safety: {threads: 4, max_in_flight: 2, deadline_ms: 30, max_body_bytes: 65536}
tls: {cert_file: a.crt, key_file: a.key}
bind: {enabled: true}
shadow_log: /var/log/shadow.jsonl
)"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  const ExtenderConfig& x = c.value();
  EXPECT_EQ(x.server.host, "0.0.0.0");
  EXPECT_EQ(x.server.port, 9443);
  EXPECT_EQ(x.state.policy, "colocate:threshold=0.8");
  EXPECT_EQ(x.state.rank_depth, 3);
  EXPECT_FLOAT_EQ(x.state.fallback_util, 0.5f);
  EXPECT_EQ(x.extender.managed_resources.size(), 2u);
  ASSERT_EQ(x.state.resources.share.size(), 1u);
  EXPECT_EQ(x.state.resources.share[0].unit, ShareResource::Unit::kGpuMemGiB);
  EXPECT_EQ(x.state.resources.node_count.front(), "aliyun.com/gpu-count");
  EXPECT_TRUE(x.in_cluster);
  EXPECT_EQ(x.resync_s, 60);
  EXPECT_EQ(x.prometheus_url, "http://prom:9090");
  EXPECT_EQ(x.metric, "DCGM_FI_PROF_GR_ENGINE_ACTIVE");
  EXPECT_EQ(x.scrape_interval_s, 10);
  EXPECT_EQ(x.poll_s, 5);
  EXPECT_EQ(x.server.threads, 4);
  EXPECT_EQ(x.server.max_in_flight, 2);
  EXPECT_EQ(x.server.deadline_ms, 30);
  EXPECT_EQ(x.server.max_body_bytes, 65536u);
  EXPECT_EQ(x.server.tls_cert_file, "a.crt");
  EXPECT_TRUE(x.server.bind_enabled);
  EXPECT_EQ(x.shadow_log, "/var/log/shadow.jsonl");
  // An empty file: every default (loopback, least-loaded, advisory).
  auto d = LoadExtenderConfig(Write(""));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value().server.host, "127.0.0.1");
  EXPECT_EQ(d.value().server.port, 8888);
  EXPECT_EQ(d.value().state.policy, "least-loaded");
  EXPECT_FALSE(d.value().server.bind_enabled);
}

TEST(ExtenderConfig, BadFilesNameLineAndKey) {
  struct Case {
    std::string text, want;
  };
  const Case cases[] = {
      {"lisen: 1.2.3.4:5\n", ":1: key 'lisen': expected one of the known keys"},
      {"listen: nowhere\n", ":1: key 'listen': expected HOST:PORT"},
      {"rank_depth: 11\n", ":1: key 'rank_depth': expected an integer 1..10, got '11'"},
      {"fallback_util: lots\n", "key 'fallback_util': expected a number"},
      {"safety:\n  threads: [1]\n", ":2: key 'safety.threads': expected an integer"},
      {"tls: {cert_file: a.crt}\n", "key 'tls': expected both cert_file and key_file"},
      {"kubernetes: {kubeconfig: k, in_cluster: true}\n", "either kubeconfig or in_cluster"},
      {"prometheus: {metric: GPU_BUSY}\n",
       "key 'prometheus.metric': expected DCGM_FI_DEV_GPU_UTIL"},
      {"resources: {share: [{name: x, unit: pct}]}\n", "key 'resources.share[0].unit'"},
      {"bind: {enabled: yes}\n", "key 'bind.enabled': expected true or false"},
      {"listen: [\n", "not YAML"},
  };
  for (const Case& c : cases) {
    auto r = LoadExtenderConfig(Write(c.text));
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.want), std::string::npos)
        << c.text << " -> " << r.status().message();
  }
  EXPECT_EQ(LoadExtenderConfig("/nonexistent/x.yaml").status().code(), StatusCode::kNotFound);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
