// A scripted Kubernetes API server for KubeCache's tests, on
// httplib::Server (or SSLServer) at 127.0.0.1 on a free port.
//
// Lists (GET /api/v1/{nodes,pods}): the pages set with SetPages, as
// recorded: the first page without continue=, the page after the one whose
// metadata.continue is the request's continue=. FailLists makes the next n
// list requests of a kind answer an HTTP error with a meta/v1 Status body.
//
// Watches (?watch=1): each request takes the next script queued by
// AddWatch (none queued: an open stream with no lines). A 200 script sends
// its lines, one chunk per line, then ends the response (kEnd), breaks the
// connection (kAbort) or stays open (kHold) for Push()ed lines until its
// timeoutSeconds= pass, a newer watch of the kind starts, or the server
// stops. Every request is recorded (path, query, Authorization header).
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace utilsim::live::testing {

class FakeKubeApi {
 public:
  struct Request {
    std::string kind;  // "nodes" or "pods"
    bool watch = false;
    std::multimap<std::string, std::string> params;
    std::string authorization;
    std::chrono::steady_clock::time_point at;
    std::string param(const std::string& key) const {
      auto it = params.find(key);
      return it == params.end() ? "" : it->second;
    }
  };
  enum class After { kEnd, kAbort, kHold };
  struct WatchScript {
    int status = 200;
    std::vector<std::string> lines;
    After after = After::kHold;
  };

  // `server`: an httplib::Server or SSLServer (nullptr: a plain one);
  // `prefix`: a path before /api/v1 (an API proxy's, "/k8s/clusters/c-1").
  explicit FakeKubeApi(std::unique_ptr<httplib::Server> server = nullptr,
                       const std::string& prefix = "");
  ~FakeKubeApi();

  // "http://127.0.0.1:<port>" (https for an SSLServer).
  std::string url() const { return url_; }
  bool ok() const { return port_ > 0; }

  void SetPages(const std::string& kind, std::vector<nlohmann::json> pages);
  void FailLists(const std::string& kind, int count, int status, const std::string& message);
  void AddWatch(const std::string& kind, WatchScript script);
  // A line for the newest watch of `kind` (kept for the next one if none is open).
  void Push(const std::string& kind, const std::string& line);

  std::vector<Request> requests(const std::string& kind, bool watch) const;
  size_t request_count() const;

 private:
  struct Watch {
    std::deque<std::string> lines;
    After after = After::kHold;
    bool closed = false;
    std::chrono::steady_clock::time_point deadline;
  };
  struct Kind {
    std::vector<nlohmann::json> pages;
    int fail_count = 0, fail_status = 0;
    std::string fail_message;
    std::deque<WatchScript> scripts;
    std::shared_ptr<Watch> open;      // the newest watch
    std::deque<std::string> pending;  // pushed while none was open
  };

  void Handle(const std::string& kind, const httplib::Request& req, httplib::Response& res);
  void ServeWatch(Kind& k, const httplib::Request& req, httplib::Response& res);

  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  std::string url_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::map<std::string, Kind> kinds_;
  std::vector<Request> requests_;
};

}  // namespace utilsim::live::testing
