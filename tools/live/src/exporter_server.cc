// ExporterServer and ParseListen (exporter.h): cpp-httplib's server on one
// listener thread (and httplib's worker pool), GET /metrics answered by the
// render callback, GET / by a one-line pointer to it, anything else 404.
#include <httplib.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <thread>
#include <utility>

#include "utilsim/live/exporter.h"

namespace utilsim::live {

struct ExporterServer::Impl {
  httplib::Server server;
  std::thread thread;
  std::string host;
  int port = 0;
  std::atomic<bool> running{false};
};

ExporterServer::ExporterServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ExporterServer::~ExporterServer() { Stop(); }

Result<std::unique_ptr<ExporterServer>> ExporterServer::Start(const std::string& host, int port,
                                                              std::function<std::string()> render) {
  Routes routes;
  routes["/metrics"] = [render] {
    return Reply{200, "text/plain; version=0.0.4; charset=utf-8", render()};
  };
  return Start(host, port, std::move(routes), "utilsim exporter");
}

Result<std::unique_ptr<ExporterServer>> ExporterServer::Start(const std::string& host, int port,
                                                              Routes routes,
                                                              const std::string& title) {
  auto impl = std::make_unique<Impl>();
  impl->host = host;
  httplib::Server& srv = impl->server;
  std::string index = title + ":";
  for (const auto& route : routes) {
    index += " " + route.first;
    // (Not a structured binding: clang 14 cannot capture one.)
    auto handler = route.second;
    srv.Get(route.first, [handler](const httplib::Request&, httplib::Response& res) {
      Reply r = handler();
      res.status = r.status;
      res.set_content(r.body, r.content_type);
    });
  }
  index += "\n";
  if (!routes.count("/"))
    srv.Get("/", [index](const httplib::Request&, httplib::Response& res) {
      res.set_content(index, "text/plain");
    });
  if (port == 0) {
    impl->port = srv.bind_to_any_port(host);
    if (impl->port <= 0) return Status::Error(StatusCode::kIo, "cannot listen on " + host + ":0");
  } else {
    if (!srv.bind_to_port(host, port))
      return Status::Error(StatusCode::kIo, "cannot listen on " + host + ":" +
                                                std::to_string(port) +
                                                " (address in use or not local?)");
    impl->port = port;
  }
  Impl* raw = impl.get();
  raw->running = true;
  raw->thread = std::thread([raw] {
    raw->server.listen_after_bind();
    raw->running = false;
  });
  // httplib's stop() is a no-op until the loop runs: wait for it, so a Stop
  // right after Start cannot miss it.
  while (raw->running && !raw->server.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!raw->running) {
    raw->thread.join();
    return Status::Error(StatusCode::kIo,
                         "cannot serve on " + host + ":" + std::to_string(raw->port));
  }
  return std::unique_ptr<ExporterServer>(new ExporterServer(std::move(impl)));
}

void ExporterServer::Stop() {
  if (!impl_) return;
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

int ExporterServer::port() const { return impl_->port; }

std::string ExporterServer::address() const {
  const bool v6 = impl_->host.find(':') != std::string::npos;
  return (v6 ? "[" + impl_->host + "]" : impl_->host) + ":" + std::to_string(impl_->port);
}

bool ExporterServer::running() const { return impl_->running.load(); }

Result<std::pair<std::string, int>> ParseListen(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "'" + text + "': " + why + " (expected HOST:PORT or [V6]:PORT)");
  };
  std::string host, port;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return bad("no ]:PORT");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const size_t c = text.rfind(':');
    if (c == std::string::npos) return bad("no port");
    host = text.substr(0, c);
    port = text.substr(c + 1);
    if (host.find(':') != std::string::npos) return bad("an IPv6 address needs [brackets]");
  }
  if (host.empty()) return bad("no host (0.0.0.0 listens on every interface)");
  int p = -1;
  auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (port.empty() || ec != std::errc() || ptr != port.data() + port.size() || p < 0 || p > 65535)
    return bad("port '" + port + "' is not 0..65535");
  return std::pair{host, p};
}

}  // namespace utilsim::live
