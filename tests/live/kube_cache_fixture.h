// Shared by the KubeCache tests (kube_cache_test.cc,
// kube_cache_errors_test.cc): fixtures, a recording listener that also
// notices overlapping calls, and KubeCacheTest, a cache against a
// FakeKubeApi serving the recorded pages of tests/fixtures/k8s.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fake_kube_api.h"
#include "testutil/testutil.h"
#include "utilsim/live/kube_client.h"

namespace utilsim::live::testing {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

inline json Load(const std::string& name) {
  return json::parse(testutil::ReadFile(testutil::Fixture("k8s/" + name)));
}

inline std::vector<std::string> Lines(const std::string& name) {
  std::istringstream in(testutil::ReadFile(testutil::Fixture("k8s/" + name)));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

inline const char* TypeName(WatchEvent::Type t) {
  switch (t) {
    case WatchEvent::Type::kAdded:
      return "ADDED";
    case WatchEvent::Type::kModified:
      return "MODIFIED";
    case WatchEvent::Type::kDeleted:
      return "DELETED";
    default:
      return "OTHER";
  }
}

// Records what the cache says, as "pod ADDED ml/bert-0@950", "synced".
class Recorder : public KubeListener {
 public:
  void OnNode(WatchEvent::Type t, const K8sNode& n) override {
    Add(std::string("node ") + TypeName(t) + " " + n.name + "@" + n.resource_version);
  }
  void OnPod(WatchEvent::Type t, const K8sPod& p) override {
    Add(std::string("pod ") + TypeName(t) + " " + p.key() + "@" + p.resource_version);
  }
  void OnSynced() override { Add("synced"); }

  // The events whose text starts with `prefix`, in order.
  std::vector<std::string> Events(const std::string& prefix = "") const {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<std::string> out;
    for (const std::string& e : events_) {
      if (e.rfind(prefix, 0) == 0) out.push_back(e);
    }
    return out;
  }
  size_t Count(const std::string& prefix) const { return Events(prefix).size(); }
  bool overlapped() const { return overlapped_; }

 private:
  void Add(std::string e) {
    if (inside_.fetch_add(1) != 0) overlapped_ = true;
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // widen any overlap
    {
      std::lock_guard<std::mutex> l(mu_);
      events_.push_back(std::move(e));
    }
    inside_.fetch_sub(1);
  }
  mutable std::mutex mu_;
  std::vector<std::string> events_;
  std::atomic<int> inside_{0};
  std::atomic<bool> overlapped_{false};
};

template <typename F>
inline bool WaitFor(F done, int ms = 2000) {
  auto deadline = Clock::now() + std::chrono::milliseconds(ms);
  while (!done()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

inline std::string PodLine(const std::string& type, const std::string& ns, const std::string& name,
                           const std::string& rv) {
  json pod = {{"kind", "Pod"},
              {"apiVersion", "v1"},
              {"metadata", {{"name", name}, {"namespace", ns}, {"resourceVersion", rv}}},
              {"spec", {{"containers", {{{"name", "main"}}}}}},
              {"status", {{"phase", "Pending"}}}};
  return json{{"type", type}, {"object", pod}}.dump();
}

inline constexpr const char* kGoneLine =
    R"json({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}})json";

class KubeCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(api_.ok());
    api_.SetPages("nodes", {Load("nodes_page1.json"), Load("nodes_page2.json")});
    api_.SetPages("pods", {Load("pods_page1.json"), Load("pods_page2.json")});
    config_.server = api_.url();
    options_.page_size = 2;
    options_.watch_timeout_s = 30;
    options_.resync_s = 0;
    options_.request_timeout_ms = 1000;
    options_.backoff_initial_ms = 20;
    options_.backoff_max_ms = 200;
  }
  void TearDown() override {
    if (cache_) cache_->Stop();
    EXPECT_FALSE(rec_.overlapped()) << "listener calls overlapped";
  }
  KubeCache& Start() {
    cache_ = std::make_unique<KubeCache>(config_, options_, &rec_);
    cache_->Start();
    return *cache_;
  }
  // Waits for the first sync and the first watch of each kind.
  void WaitSynced() {
    ASSERT_TRUE(WaitFor([&] { return cache_->synced(); })) << cache_->last_error();
    ASSERT_TRUE(WaitFor([&] {
      return !api_.requests("nodes", true).empty() && !api_.requests("pods", true).empty();
    }));
  }

  FakeKubeApi api_;
  KubeConfig config_;
  KubeCacheOptions options_;
  Recorder rec_;
  std::unique_ptr<KubeCache> cache_;
};

}  // namespace utilsim::live::testing
