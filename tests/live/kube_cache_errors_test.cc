// KubeCache's errors and life cycle against a scripted local API server:
// backoff after HTTP 500 and recovery, failing watches, the bearer token, resync, a server
// URL with a path prefix, a prompt Stop() (watching, backing off), servers
// that cannot be reached.
#include "kube_cache_fixture.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

using testing::FakeKubeApi;
using testing::KubeCacheTest;
using testing::Load;
using testing::Recorder;
using testing::WaitFor;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

TEST_F(KubeCacheTest, ServerErrorsBackOffThenRecover) {
  api_.FailLists("nodes", 3, 500, "etcdserver: request timed out");
  KubeCache& cache = Start();
  ASSERT_TRUE(WaitFor([&] { return cache.last_error().find("HTTP 500") != std::string::npos; }));
  EXPECT_EQ(
      cache.last_error().rfind("list /api/v1/nodes: HTTP 500: etcdserver: request timed out", 0),
      0u)
      << cache.last_error();
  WaitSynced();
  EXPECT_EQ(cache.stats().errors.load(), 3u);
  EXPECT_EQ(cache.last_error(), "");
  EXPECT_EQ(rec_.Count("node ADDED"), 3u);
  // 20, 40, 80 ms between the attempts.
  auto lists = api_.requests("nodes", false);
  ASSERT_EQ(lists.size(), 5u);
  auto gap = [&](size_t i) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(lists[i + 1].at - lists[i].at)
        .count();
  };
  EXPECT_GE(gap(0), 18);
  EXPECT_GE(gap(1), 38);
  EXPECT_GE(gap(2), 78);
}

TEST_F(KubeCacheTest, FailingWatchesListAgain) {
  for (int i = 0; i < 3; ++i) api_.AddWatch("pods", {500, {}, FakeKubeApi::After::kEnd});
  KubeCache& cache = Start();
  WaitSynced();
  ASSERT_TRUE(WaitFor([&] { return api_.requests("pods", true).size() >= 4; }));
  auto lists = api_.requests("pods", false);
  auto watches = api_.requests("pods", true);
  ASSERT_EQ(lists.size(), 4u);  // the first list, then one after the third failed watch
  EXPECT_LT(watches[2].at, lists[2].at);
  EXPECT_LT(lists[3].at, watches[3].at);
  EXPECT_EQ(cache.stats().errors.load(), 3u);
  EXPECT_EQ(rec_.Count("pod"), 4u);  // the relist found nothing new
}

TEST_F(KubeCacheTest, SendsTheBearerToken) {
  config_.token = "eyJhbGciOiJSUzI1NiJ9.test-token";
  Start();
  WaitSynced();
  auto check = [&](const std::vector<FakeKubeApi::Request>& rs) {
    for (const auto& r : rs) EXPECT_EQ(r.authorization, "Bearer eyJhbGciOiJSUzI1NiJ9.test-token");
    return rs.size();
  };
  EXPECT_EQ(check(api_.requests("nodes", false)) + check(api_.requests("pods", false)), 4u);
  EXPECT_GE(check(api_.requests("nodes", true)) + check(api_.requests("pods", true)), 2u);
}

TEST_F(KubeCacheTest, ResyncRelistsWithoutEventsWhenNothingChanged) {
  options_.resync_s = 1;
  KubeCache& cache = Start();
  WaitSynced();
  int64_t timeout_s = std::stoi(api_.requests("pods", true).at(0).param("timeoutSeconds"));
  EXPECT_GE(timeout_s, 1);
  EXPECT_LE(timeout_s, 2);  // cut to the resync, not watch_timeout_s
  ASSERT_TRUE(WaitFor([&] { return rec_.Count("synced") >= 3; }, 2800));  // both kinds relisted
  EXPECT_GE(cache.stats().lists.load(), 4u);
  EXPECT_EQ(rec_.Count("node"), 3u);
  EXPECT_EQ(rec_.Count("pod"), 4u);
}

TEST_F(KubeCacheTest, ServerUrlWithAPathPrefix) {
  FakeKubeApi proxied(nullptr, "/k8s/clusters/c-1");
  ASSERT_TRUE(proxied.ok());
  proxied.SetPages("nodes", {Load("nodes_page2.json")});
  proxied.SetPages("pods", {Load("pods_page2.json")});
  config_.server = proxied.url() + "/k8s/clusters/c-1/";
  KubeCache cache(config_, options_, &rec_);
  cache.Start();
  EXPECT_TRUE(WaitFor([&] { return cache.synced(); })) << cache.last_error();
  EXPECT_EQ(rec_.Count("node ADDED gpu-c01@903"), 1u);
  cache.Stop();
}

TEST_F(KubeCacheTest, StopIsPromptWhileWatching) {
  KubeCache& cache = Start();
  WaitSynced();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // both streams idle and open
  auto t0 = Clock::now();
  cache.Stop();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  EXPECT_LT(ms, 1000);
  EXPECT_LT(ms, 300) << "Stop() took " << ms << " ms";
  cache.Stop();  // again: nothing to do
  EXPECT_TRUE(cache.synced());
}

TEST_F(KubeCacheTest, StopIsPromptDuringBackoff) {
  api_.FailLists("nodes", 1000, 503, "the server is shutting down");
  options_.backoff_initial_ms = 10000;
  KubeCache& cache = Start();
  ASSERT_TRUE(WaitFor([&] { return cache.stats().errors.load() >= 1; }));
  auto t0 = Clock::now();
  cache.Stop();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  EXPECT_LT(ms, 1000);
  EXPECT_FALSE(cache.synced());
  EXPECT_NE(cache.last_error().find("HTTP 503: the server is shutting down"), std::string::npos)
      << cache.last_error();
}

TEST(KubeCache, UnreachableAndBadServers) {
  Recorder rec;
  KubeCacheOptions o;
  o.backoff_initial_ms = 10;
  o.request_timeout_ms = 500;
  KubeConfig bad;
  bad.server = "ftp://example";
  KubeCache c1(bad, o, &rec);
  c1.Start();
  EXPECT_TRUE(WaitFor([&] { return !c1.last_error().empty(); }));
  EXPECT_NE(c1.last_error().find("expected http://host:port"), std::string::npos)
      << c1.last_error();
  c1.Stop();

  KubeConfig refused;
  refused.server = "http://127.0.0.1:1";  // nothing listens there
  KubeCache c2(refused, o, &rec);
  c2.Start();
  EXPECT_TRUE(WaitFor([&] { return c2.stats().errors.load() >= 2; }));
  EXPECT_NE(c2.last_error().find("list /api/v1/"), std::string::npos) << c2.last_error();
  EXPECT_FALSE(c2.synced());
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
