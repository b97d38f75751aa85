// KubeCache against a scripted local API server (fake_kube_api.h): the
// first sync over paged lists, watch events in order, bookmarks, 410 Gone
// (ERROR event and HTTP status) and the relist's differences, a stream that
// breaks off.
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

using testing::kGoneLine;
using testing::Lines;
using testing::PodLine;

TEST_F(KubeCacheTest, InitialSyncDeliversEveryNodeAndPod) {
  options_.pod_field_selector = "status.phase!=Succeeded";
  KubeCache& cache = Start();
  WaitSynced();
  EXPECT_EQ(rec_.Events("node"),
            (std::vector<std::string>{"node ADDED gpu-a01@901", "node ADDED gpu-b01@902",
                                      "node ADDED gpu-c01@903"}));
  EXPECT_EQ(
      rec_.Events("pod"),
      (std::vector<std::string>{"pod ADDED ml/bert-0@950", "pod ADDED ml/bert-1@951",
                                "pod ADDED vision/resnet-0@960", "pod ADDED vision/resnet-1@961"}));
  EXPECT_EQ(rec_.Events().back(), "synced");
  EXPECT_EQ(rec_.Count("synced"), 1u);
  EXPECT_EQ(cache.stats().lists.load(), 2u);
  EXPECT_EQ(cache.stats().errors.load(), 0u);
  EXPECT_GT(cache.stats().last_event_unix_ms.load(), 0);
  EXPECT_EQ(cache.last_error(), "");

  // Two pages each: limit=2, then continue= the first page's token.
  auto lists = api_.requests("nodes", false);
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[0].param("limit"), "2");
  EXPECT_EQ(lists[0].param("continue"), "");
  EXPECT_EQ(lists[1].param("continue"), Load("nodes_page1.json")["metadata"]["continue"]);
  auto pod_lists = api_.requests("pods", false);
  ASSERT_EQ(pod_lists.size(), 2u);
  EXPECT_EQ(pod_lists[1].param("fieldSelector"), "status.phase!=Succeeded");
  // The watches start at the lists' resourceVersion.
  auto w = api_.requests("pods", true).at(0);
  EXPECT_EQ(w.param("watch"), "1");
  EXPECT_EQ(w.param("allowWatchBookmarks"), "true");
  EXPECT_EQ(w.param("resourceVersion"), "1005");
  EXPECT_EQ(w.param("timeoutSeconds"), "30");
  EXPECT_EQ(w.param("fieldSelector"), "status.phase!=Succeeded");
  EXPECT_EQ(api_.requests("nodes", true).at(0).param("resourceVersion"), "1000");
  EXPECT_EQ(api_.requests("nodes", true).at(0).param("fieldSelector"), "");
}

TEST_F(KubeCacheTest, WatchEventsArriveInOrder) {
  std::vector<std::string> pods =
      Lines("watch_pods.jsonl");  // ADDED, MODIFIED x2, BOOKMARK, DELETED
  api_.AddWatch("pods", {200, {pods.begin(), pods.begin() + 5}, FakeKubeApi::After::kHold});
  api_.AddWatch("nodes", {200, Lines("watch_nodes.jsonl"), FakeKubeApi::After::kHold});
  KubeCache& cache = Start();
  WaitSynced();
  ASSERT_TRUE(WaitFor([&] { return rec_.Count("pod") == 8 && rec_.Count("node") == 5; }))
      << cache.stats().events.load();
  EXPECT_TRUE(WaitFor([&] { return cache.stats().events.load() == 6; }));
  auto after_sync = [&](const std::string& prefix) {
    std::vector<std::string> all = rec_.Events(prefix), out;
    for (const std::string& e : all) {
      if (e.find("ADDED ml/bert") == std::string::npos &&
          e.find("ADDED vision/") == std::string::npos && e.find("gpu-a01") == std::string::npos &&
          e.find("gpu-b01") == std::string::npos && e.find("gpu-c01") == std::string::npos) {
        out.push_back(e);
      }
    }
    return out;
  };
  EXPECT_EQ(after_sync("pod"),
            (std::vector<std::string>{"pod ADDED ml/gpt-0@1010", "pod MODIFIED ml/gpt-0@1011",
                                      "pod MODIFIED ml/gpt-0@1012", "pod DELETED ml/gpt-0@1030"}));
  EXPECT_EQ(after_sync("node"),
            (std::vector<std::string>{"node ADDED gpu-d01@1040", "node MODIFIED gpu-d01@1041"}));
  EXPECT_TRUE(WaitFor([&] { return cache.stats().bookmarks.load() == 2; }));
  EXPECT_EQ(cache.stats().errors.load(), 0u);
  // A new event on the open stream arrives too.
  api_.Push("pods", PodLine("ADDED", "ml", "gpt-1", "1031"));
  EXPECT_TRUE(WaitFor([&] { return rec_.Count("pod ADDED ml/gpt-1@1031") == 1; }));
}

TEST_F(KubeCacheTest, BookmarkAdvancesTheNextWatch) {
  api_.AddWatch(
      "pods",
      {200,
       {R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"1020"}}})"},
       FakeKubeApi::After::kEnd});
  KubeCache& cache = Start();
  WaitSynced();
  ASSERT_TRUE(WaitFor([&] { return api_.requests("pods", true).size() >= 2; }));
  auto watches = api_.requests("pods", true);
  EXPECT_EQ(watches[0].param("resourceVersion"), "1005");
  EXPECT_EQ(watches[1].param("resourceVersion"), "1020");
  EXPECT_EQ(cache.stats().bookmarks.load(), 1u);
  EXPECT_EQ(api_.requests("pods", false).size(), 2u);  // no relist
  EXPECT_EQ(rec_.Count("pod"), 4u);                    // a bookmark is no event
}

TEST_F(KubeCacheTest, GoneEventRelistsAndReportsTheDifferences) {
  KubeCache& cache = Start();
  WaitSynced();
  // Meanwhile: ml/bert-1 went away, vision/resnet-0 changed, ml/gpt-9 came.
  json page = Load("pods_page2.json");
  json first = Load("pods_page1.json");
  page["metadata"]["resourceVersion"] = "2000";
  page["items"][0]["metadata"]["resourceVersion"] = "1970";
  json gpt9 = first["items"][0];
  gpt9["metadata"]["name"] = "gpt-9";
  gpt9["metadata"]["resourceVersion"] = "1999";
  page["items"] = {first["items"][0], page["items"][0], page["items"][1], gpt9};
  api_.SetPages("pods", {page});
  api_.Push("pods", kGoneLine);
  ASSERT_TRUE(WaitFor([&] { return rec_.Count("synced") == 2; })) << cache.last_error();
  std::vector<std::string> all = rec_.Events();
  std::vector<std::string> tail(all.end() - 4, all.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"pod MODIFIED vision/resnet-0@1970",
                                            "pod ADDED ml/gpt-9@1999", "pod DELETED ml/bert-1@951",
                                            "synced"}));
  EXPECT_EQ(cache.stats().gone.load(), 1u);
  EXPECT_EQ(cache.stats().errors.load(), 0u);
  ASSERT_TRUE(WaitFor([&] { return api_.requests("pods", true).size() >= 2; }));
  EXPECT_EQ(api_.requests("pods", true)[1].param("resourceVersion"), "2000");
}

TEST_F(KubeCacheTest, Http410OnWatchRelists) {
  api_.AddWatch("nodes", {410, {}, FakeKubeApi::After::kEnd});
  KubeCache& cache = Start();
  WaitSynced();
  ASSERT_TRUE(WaitFor([&] { return api_.requests("nodes", true).size() >= 2; }));
  EXPECT_EQ(api_.requests("nodes", false).size(), 4u);  // two pages, twice
  EXPECT_EQ(cache.stats().gone.load(), 1u);
  EXPECT_EQ(rec_.Count("node"), 3u);  // nothing changed: no events
  EXPECT_TRUE(WaitFor([&] { return rec_.Count("synced") == 2; }));
}

TEST_F(KubeCacheTest, BrokenStreamResumesFromTheLastResourceVersion) {
  api_.AddWatch("pods", {200,
                         {PodLine("ADDED", "ml", "gpt-0", "1010"),
                          PodLine("MODIFIED", "ml", "gpt-0", "1011")},
                         FakeKubeApi::After::kAbort});
  KubeCache& cache = Start();
  WaitSynced();
  ASSERT_TRUE(WaitFor([&] { return api_.requests("pods", true).size() >= 2; }));
  EXPECT_EQ(api_.requests("pods", true)[1].param("resourceVersion"), "1011");
  EXPECT_EQ(api_.requests("pods", false).size(), 2u);  // no relist
  EXPECT_EQ(rec_.Count("pod ADDED ml/gpt-0@1010"), 1u);
  EXPECT_EQ(rec_.Count("pod MODIFIED ml/gpt-0@1011"), 1u);
  EXPECT_EQ(cache.stats().errors.load(), 0u);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
