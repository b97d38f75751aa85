// A stand-in for Prometheus' HTTP API in the unit tests: an httplib server
// on 127.0.0.1 (a free port) whose every GET is answered by `reply` and
// recorded (path and query parameters), on its own thread.
#pragma once

#include <httplib.h>

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace utilsim::testutil {

class FakePrometheus {
 public:
  struct Request {
    std::string path;
    std::map<std::string, std::string> params;
  };
  using Reply = std::function<void(const Request&, httplib::Response&)>;

  explicit FakePrometheus(Reply reply) : reply_(std::move(reply)) {
    server_.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      Request r{req.path, {}};
      for (const auto& [k, v] : req.params) r.params[k] = v;
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(r);
      }
      reply_(r, res);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakePrometheus() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<Request> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

  // {"status":"success","data":<data>}
  static void Success(httplib::Response& res, const std::string& data) {
    res.set_content("{\"status\":\"success\",\"data\":" + data + "}", "application/json");
  }

 private:
  Reply reply_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<Request> requests_;
};

}  // namespace utilsim::testutil
