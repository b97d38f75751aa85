// The scripted Kubernetes API server of the KubeCache tests (fake_kube_api.h).
#include "fake_kube_api.h"

namespace utilsim::live::testing {

namespace {

std::string StatusBody(int code, const std::string& message) {
  nlohmann::json s = {{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", nlohmann::json::object()},
                      {"status", "Failure"},
                      {"message", message},
                      {"reason", code == 410 ? "Expired" : "InternalError"},
                      {"code", code}};
  return s.dump();
}

}  // namespace

FakeKubeApi::FakeKubeApi(std::unique_ptr<httplib::Server> server, const std::string& prefix)
    : server_(server ? std::move(server) : std::make_unique<httplib::Server>()) {
  const bool tls = dynamic_cast<httplib::SSLServer*>(server_.get()) != nullptr;
  server_->set_keep_alive_timeout(1);
  for (std::string kind : {"nodes", "pods"}) {
    server_->Get(prefix + "/api/v1/" + kind,
                 [this, kind](const httplib::Request& req, httplib::Response& res) {
                   Handle(kind, req, res);
                 });
  }
  if (!server_->is_valid()) return;
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) return;
  url_ = std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!server_->is_running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

FakeKubeApi::~FakeKubeApi() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

void FakeKubeApi::SetPages(const std::string& kind, std::vector<nlohmann::json> pages) {
  std::lock_guard<std::mutex> l(mu_);
  kinds_[kind].pages = std::move(pages);
}

void FakeKubeApi::FailLists(const std::string& kind, int count, int status,
                            const std::string& message) {
  std::lock_guard<std::mutex> l(mu_);
  Kind& k = kinds_[kind];
  k.fail_count = count;
  k.fail_status = status;
  k.fail_message = message;
}

void FakeKubeApi::AddWatch(const std::string& kind, WatchScript script) {
  std::lock_guard<std::mutex> l(mu_);
  kinds_[kind].scripts.push_back(std::move(script));
}

void FakeKubeApi::Push(const std::string& kind, const std::string& line) {
  {
    std::lock_guard<std::mutex> l(mu_);
    Kind& k = kinds_[kind];
    if (k.open && !k.open->closed) {
      k.open->lines.push_back(line);
    } else {
      k.pending.push_back(line);
    }
  }
  cv_.notify_all();
}

std::vector<FakeKubeApi::Request> FakeKubeApi::requests(const std::string& kind, bool watch) const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<Request> out;
  for (const Request& r : requests_) {
    if (r.kind == kind && r.watch == watch) out.push_back(r);
  }
  return out;
}

size_t FakeKubeApi::request_count() const {
  std::lock_guard<std::mutex> l(mu_);
  return requests_.size();
}

void FakeKubeApi::Handle(const std::string& kind, const httplib::Request& req,
                         httplib::Response& res) {
  std::unique_lock<std::mutex> l(mu_);
  Request r;
  r.kind = kind;
  r.watch = req.has_param("watch");
  r.params = req.params;
  r.authorization = req.get_header_value("Authorization");
  r.at = std::chrono::steady_clock::now();
  requests_.push_back(r);
  Kind& k = kinds_[kind];
  if (r.watch) {
    ServeWatch(k, req, res);
    return;
  }
  if (k.fail_count > 0) {
    --k.fail_count;
    res.status = k.fail_status;
    res.set_content(StatusBody(k.fail_status, k.fail_message), "application/json");
    return;
  }
  const std::string cont = req.get_param_value("continue");
  for (size_t i = 0; i < k.pages.size(); ++i) {
    bool match =
        cont.empty() ? i == 0 : i > 0 && k.pages[i - 1]["metadata"].value("continue", "") == cont;
    if (match) {
      res.set_content(k.pages[i].dump(), "application/json");
      return;
    }
  }
  res.status = cont.empty() ? 404 : 410;
  res.set_content(StatusBody(res.status, cont.empty() ? "no pages" : "continue token too old"),
                  "application/json");
}

void FakeKubeApi::ServeWatch(Kind& k, const httplib::Request& req, httplib::Response& res) {
  WatchScript script;
  if (!k.scripts.empty()) {
    script = std::move(k.scripts.front());
    k.scripts.pop_front();
  }
  if (script.status != 200) {
    res.status = script.status;
    res.set_content(
        StatusBody(script.status,
                   script.status == 410 ? "too old resource version: 1 (5)" : "watch failed"),
        "application/json");
    return;
  }
  auto w = std::make_shared<Watch>();
  w->lines.assign(script.lines.begin(), script.lines.end());
  w->lines.insert(w->lines.end(), k.pending.begin(), k.pending.end());
  k.pending.clear();
  w->after = script.after;
  int timeout_s = 300;
  if (req.has_param("timeoutSeconds")) timeout_s = std::stoi(req.get_param_value("timeoutSeconds"));
  w->deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  if (k.open) k.open->closed = true;
  k.open = w;
  cv_.notify_all();
  res.set_chunked_content_provider("application/json", [this, w](size_t, httplib::DataSink& sink) {
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      if (stopping_ || w->closed) return false;
      if (!w->lines.empty()) {
        std::string line = w->lines.front() + "\n";
        w->lines.pop_front();
        l.unlock();
        return sink.write(line.data(), line.size());
      }
      if (w->after == After::kAbort) {
        w->closed = true;
        return false;
      }
      if (w->after == After::kEnd || std::chrono::steady_clock::now() >= w->deadline) {
        w->closed = true;
        l.unlock();
        sink.done();
        return true;
      }
      cv_.wait_for(l, std::chrono::milliseconds(20));
    }
  });
}

}  // namespace utilsim::live::testing
