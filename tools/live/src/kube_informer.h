// Private: the informer of one kind (nodes or pods) of KubeCache and the
// state both informers share (kube_cache.cc has the overview). Included
// by kube_cache.cc only.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kube_http.h"
#include "utilsim/live/kube_client.h"

namespace utilsim::live::internal {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

inline int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What both informers share.
struct Shared {
  KubeConfig config;
  KubeCacheOptions options;
  KubeListener* listener = nullptr;
  KubeCacheStats stats;

  std::mutex mu;  // listener calls, listed[]
  bool listed[2] = {false, false};
  std::atomic<bool> synced{false};

  std::mutex state_mu;  // (after mu, never before) stop's wake-up, conns, last_error
  std::condition_variable wake;
  std::atomic<bool> stop{false};
  std::vector<ApiConnection*> conns;
  std::string last_error;

  void RecordError(const Status& s) {
    stats.errors++;
    std::lock_guard<std::mutex> l(state_mu);
    last_error = s.message();
  }
  // Waits ms or until Stop(); false when stopping.
  bool Sleep(int64_t ms) {
    std::unique_lock<std::mutex> l(state_mu);
    return !wake.wait_for(l, std::chrono::milliseconds(ms), [&] { return stop.load(); });
  }
  // After a complete list of kind `kind` (mu held).
  void Listed(int kind) {
    listed[kind] = true;
    if (listed[0] && listed[1]) {
      synced = true;
      listener->OnSynced();
    }
  }
};

struct NodeKind {
  using Object = K8sNode;
  static constexpr int kIndex = 0;
  static constexpr const char* kPath = "/api/v1/nodes";
  static std::string Key(const K8sNode& n) { return n.name; }
  static Result<K8sNode> Parse(const json& j, const std::string& p) { return ParseNode(j, p); }
  static Result<NodeWatchEvent> ParseEvent(std::string_view l) { return ParseNodeWatchEvent(l); }
  static const std::optional<K8sNode>& Of(const NodeWatchEvent& e) { return e.node; }
  static void Notify(KubeListener* l, WatchEvent::Type t, const K8sNode& n) { l->OnNode(t, n); }
};

struct PodKind {
  using Object = K8sPod;
  static constexpr int kIndex = 1;
  static constexpr const char* kPath = "/api/v1/pods";
  static std::string Key(const K8sPod& p) { return p.key(); }
  static Result<K8sPod> Parse(const json& j, const std::string& p) { return ParsePod(j, p); }
  static Result<PodWatchEvent> ParseEvent(std::string_view l) { return ParsePodWatchEvent(l); }
  static const std::optional<K8sPod>& Of(const PodWatchEvent& e) { return e.pod; }
  static void Notify(KubeListener* l, WatchEvent::Type t, const K8sPod& p) { l->OnPod(t, p); }
};

// The resourceVersion of a watch line whose object did not parse ("").
inline std::string RawResourceVersion(std::string_view line) {
  json j = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  const json* p = &j;
  for (const char* key : {"object", "metadata", "resourceVersion"}) {
    if (!p->is_object() || !p->contains(key)) return "";
    p = &(*p)[key];
  }
  return p->is_string() ? p->get<std::string>() : "";
}

template <typename Kind>
class Informer {
 public:
  explicit Informer(Shared* sh) : sh_(sh) {}

  void Run() {
    ApiConnection conn(sh_->config, sh_->options.request_timeout_ms);
    if (!conn.setup_error().empty()) {
      sh_->RecordError(Status::Error(std::string(Kind::kPath) + ": " + conn.setup_error()));
      return;  // a configuration error: retrying would not help
    }
    {
      std::lock_guard<std::mutex> l(sh_->state_mu);
      sh_->conns.push_back(&conn);
    }
    Loop(conn);
    std::lock_guard<std::mutex> l(sh_->state_mu);
    std::erase(sh_->conns, &conn);
  }

 private:
  using Object = typename Kind::Object;
  enum class End { kEnded, kGone, kResync, kError, kStopped };

  bool Stopping() const { return sh_->stop.load(); }
  bool ResyncDue() const {
    return sh_->options.resync_s > 0 &&
           Clock::now() - listed_at_ >= std::chrono::seconds(sh_->options.resync_s);
  }
  httplib::Params BaseParams() const {
    httplib::Params p;
    if (Kind::kIndex == PodKind::kIndex && !sh_->options.pod_field_selector.empty()) {
      p.emplace("fieldSelector", sh_->options.pod_field_selector);
    }
    return p;
  }

  void Loop(ApiConnection& conn) {
    const KubeCacheOptions& o = sh_->options;
    int64_t backoff = std::max(o.backoff_initial_ms, 1);
    auto back_off = [&] {
      bool go_on = sh_->Sleep(backoff);
      backoff = std::min<int64_t>(backoff * 2, std::max(o.backoff_max_ms, 1));
      return go_on;
    };
    bool need_list = true;
    int watch_errors = 0;  // in a row: from the third on, list again
    while (!Stopping()) {
      if (need_list || ResyncDue()) {
        Status s = List(conn);
        if (Stopping()) return;
        if (!s.ok()) {
          sh_->RecordError(s);
          if (!back_off()) return;
          continue;
        }
        need_list = false;
        watch_errors = 0;
        backoff = std::max(o.backoff_initial_ms, 1);
      }
      Status error;
      bool got_200 = false;
      size_t lines = 0;
      const Clock::time_point began = Clock::now();
      switch (Watch(conn, &error, &got_200, &lines)) {
        case End::kStopped:
          return;
        case End::kGone:
          sh_->stats.gone++;
          need_list = true;
          break;
        case End::kResync:
          need_list = true;
          break;
        case End::kError:
          sh_->RecordError(error);
          need_list = ++watch_errors >= 3;  // e.g. a resourceVersion the server rejects
          if (!back_off()) return;
          break;
        case End::kEnded:
          // A server that ends every watch at once must not be polled
          // in a tight loop.
          if (lines == 0 && Clock::now() - began < std::chrono::seconds(1)) {
            if (!back_off()) return;
          } else if (got_200) {
            watch_errors = 0;
            backoff = std::max(o.backoff_initial_ms, 1);
          }
          break;
      }
    }
  }

  Status List(ApiConnection& conn) {
    const std::string what = std::string("list ") + Kind::kPath;
    std::vector<Object> items;
    std::vector<Status> item_errors;
    std::string cont, rv;
    bool restarted = false;
    for (;;) {
      httplib::Params p = BaseParams();
      if (sh_->options.page_size > 0) p.emplace("limit", std::to_string(sh_->options.page_size));
      if (!cont.empty()) p.emplace("continue", cont);
      auto res = conn.Get(Kind::kPath, p, sh_->options.request_timeout_ms);
      if (Stopping()) return Status::Error(StatusCode::kCancelled, what + ": stopped");
      if (!res.ok()) return res.status().Prefixed(what + ": ");
      const ApiConnection::Response& r = res.value();
      if (r.status == 410 && !cont.empty() && !restarted) {  // the continue token expired
        sh_->stats.gone++;
        restarted = true;
        cont.clear();
        items.clear();
        item_errors.clear();
        continue;
      }
      if (r.status != 200) return Status::Error(what + ": " + HttpErrorText(r.status, r.body));
      json j = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
      if (!j.is_object()) return Status::Error(what + ": the response is not a JSON object");
      if (j.contains("metadata") && j["metadata"].is_object()) {
        const json& m = j["metadata"];
        rv = m.contains("resourceVersion") && m["resourceVersion"].is_string()
                 ? m["resourceVersion"].get<std::string>()
                 : "";
        cont = m.contains("continue") && m["continue"].is_string()
                   ? m["continue"].get<std::string>()
                   : "";
      } else {
        rv.clear();
        cont.clear();
      }
      if (j.contains("items") && j["items"].is_array()) {
        const json& list = j["items"];
        for (size_t i = 0; i < list.size(); ++i) {
          auto item = Kind::Parse(list[i], "items[" + std::to_string(i) + "]");
          if (item.ok()) {
            items.push_back(std::move(item).value());
          } else {
            item_errors.push_back(item.status().Prefixed(what + ": "));
          }
        }
      }
      if (cont.empty()) break;
    }
    Replace(std::move(items), rv);
    for (const Status& e : item_errors) sh_->RecordError(e);
    return Status::Ok();
  }

  // The cache becomes `items`; the listener hears the differences.
  void Replace(std::vector<Object> items, const std::string& rv) {
    std::lock_guard<std::mutex> l(sh_->mu);
    std::map<std::string, Object> next;
    for (Object& o : items) {
      std::string key = Kind::Key(o);
      auto it = objects_.find(key);
      if (it == objects_.end()) {
        Kind::Notify(sh_->listener, WatchEvent::Type::kAdded, o);
      } else if (it->second.resource_version != o.resource_version) {
        Kind::Notify(sh_->listener, WatchEvent::Type::kModified, o);
      }
      next.insert_or_assign(std::move(key), std::move(o));
    }
    for (const auto& [key, o] : objects_) {
      if (next.count(key) == 0) Kind::Notify(sh_->listener, WatchEvent::Type::kDeleted, o);
    }
    objects_.swap(next);
    rv_ = rv;
    listed_at_ = Clock::now();
    sh_->stats.lists++;
    sh_->stats.last_event_unix_ms = NowUnixMs();
    {
      std::lock_guard<std::mutex> s(sh_->state_mu);
      sh_->last_error.clear();
    }
    sh_->Listed(Kind::kIndex);
  }

  void Apply(WatchEvent::Type type, const Object& o) {
    std::lock_guard<std::mutex> l(sh_->mu);
    if (type == WatchEvent::Type::kDeleted) {
      objects_.erase(Kind::Key(o));
    } else {
      objects_.insert_or_assign(Kind::Key(o), o);
    }
    Kind::Notify(sh_->listener, type, o);
    sh_->stats.events++;  // after the listener heard it
    sh_->stats.last_event_unix_ms = NowUnixMs();
  }

  End Watch(ApiConnection& conn, Status* error, bool* got_200, size_t* lines) {
    const KubeCacheOptions& o = sh_->options;
    const std::string what = std::string("watch ") + Kind::kPath;
    int64_t timeout_s = std::max(o.watch_timeout_s, 1);
    if (o.resync_s > 0) {
      auto left = std::chrono::seconds(o.resync_s) - (Clock::now() - listed_at_);
      int64_t left_s = std::chrono::duration_cast<std::chrono::seconds>(left).count() + 1;
      timeout_s = std::clamp<int64_t>(left_s, 1, timeout_s);
    }
    httplib::Params p = BaseParams();
    p.emplace("watch", "1");
    p.emplace("allowWatchBookmarks", "true");
    p.emplace("resourceVersion", rv_);
    p.emplace("timeoutSeconds", std::to_string(timeout_s));
    sh_->stats.watches++;
    End end = End::kEnded;
    auto on_line = [&](std::string_view line) {
      if (Stopping()) {
        end = End::kStopped;
        return false;
      }
      ++*lines;
      auto ev = Kind::ParseEvent(line);
      if (!ev.ok()) {
        sh_->RecordError(ev.status().Prefixed(what + ": "));
        if (std::string rv = RawResourceVersion(line); !rv.empty()) rv_ = rv;
        return true;
      }
      const WatchEvent& e = ev.value().event;
      switch (e.type) {
        case WatchEvent::Type::kBookmark:
          if (!e.resource_version.empty()) rv_ = e.resource_version;
          sh_->stats.bookmarks++;
          return true;
        case WatchEvent::Type::kError:
          if (e.error_code == 410) {
            end = End::kGone;
          } else {
            *error = Status::Error(what + ": ERROR event " + std::to_string(e.error_code) + ": " +
                                   e.error_message);
            end = End::kError;
          }
          return false;
        default:
          Apply(e.type, *Kind::Of(ev.value()));
          if (!e.resource_version.empty()) rv_ = e.resource_version;
          if (ResyncDue()) {
            end = End::kResync;
            return false;
          }
          return true;
      }
    };
    int status = 0;
    std::string body;
    const int64_t read_ms = timeout_s * 1000 + std::max(o.request_timeout_ms, 1);
    Status s =
        conn.Stream(Kind::kPath, p, static_cast<int32_t>(std::min<int64_t>(read_ms, INT32_MAX)),
                    on_line, &status, &body);
    *got_200 = status == 200;
    if (Stopping()) return End::kStopped;
    if (end != End::kEnded) return end;
    if (status == 410) return End::kGone;
    if (status == 0) {
      *error = s.ok() ? Status::Error(what + ": no response") : s.Prefixed(what + ": ");
      return End::kError;
    }
    if (status != 200) {
      *error = Status::Error(what + ": " + HttpErrorText(status, body));
      return End::kError;
    }
    // The stream ended (timeoutSeconds, or the server closed or broke it):
    // watch again from rv_.
    return ResyncDue() ? End::kResync : End::kEnded;
  }

  Shared* sh_;
  std::map<std::string, Object> objects_;  // this thread's; the listener hears changes under mu
  std::string rv_;
  Clock::time_point listed_at_;
};

}  // namespace utilsim::live::internal
