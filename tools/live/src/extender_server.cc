#include "utilsim/live/extender_server.h"

#include <httplib.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>

namespace utilsim::live {
namespace {

using Clock = std::chrono::steady_clock;

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Latency histogram bucket bounds, seconds (Prometheus "le").
constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02,
                                             0.05,   0.1,   0.2,   0.5,   1.0,  5.0};
const char* const kVerbs[] = {"filter", "prioritize", "preempt", "bind"};

struct VerbStats {
  std::atomic<uint64_t> opinion{0}, no_opinion{0}, shed{0}, bad_request{0}, errors{0};
  std::array<std::atomic<uint64_t>, kBuckets.size() + 1> buckets{};
  std::atomic<uint64_t> count{0};
  std::atomic<int64_t> sum_us{0}, max_us{0};
};

}  // namespace

struct ExtenderServer::Impl {
  ServerOptions options;
  const Extender* extender;
  LiveState* state;
  ShadowLog* log;
  Extender::Binder binder;
  std::unique_ptr<httplib::Server> server;
  std::thread thread;
  std::atomic<int> in_flight{0};
  std::array<VerbStats, 4> stats;
  std::mutex recs_mu;  // last prioritize top per pod uid, for the bound lines
  std::map<std::string, std::string> recommended;
  uint64_t logged_generation = 0;  // of the last cluster line (under recs_mu)

  // Logs the modelled cluster when it changed since the last line of it.
  void LogClusterIfChanged() {
    if (!log || state->model_generation() == logged_generation_copy()) return;
    uint64_t g = 0;
    const ClusterSpec spec = state->Model(&g);
    std::lock_guard<std::mutex> lock(recs_mu);
    if (g == logged_generation) return;
    logged_generation = g;
    log->Cluster(spec, NowUnixMs());
  }
  uint64_t logged_generation_copy() {
    std::lock_guard<std::mutex> lock(recs_mu);
    return logged_generation;
  }

  VerbStats& Of(const std::string& verb) {
    for (size_t i = 0; i < 4; ++i)
      if (verb == kVerbs[i]) return stats[i];
    return stats[0];
  }

  void Observe(VerbStats& s, int64_t us) {
    const double secs = static_cast<double>(us) / 1e6;
    size_t b = 0;
    while (b < kBuckets.size() && secs > kBuckets[b]) ++b;
    ++s.buckets[b];
    ++s.count;
    s.sum_us += us;
    for (int64_t m = s.max_us.load(); us > m && !s.max_us.compare_exchange_weak(m, us);) {
    }
  }

  void Handle(const std::string& verb, const httplib::Request& req, httplib::Response& res) {
    const auto t0 = Clock::now();
    const auto deadline = t0 + std::chrono::milliseconds(options.deadline_ms);
    VerbStats& s = Of(verb);
    VerbRecord rec;
    HttpReply reply;
    const int now_in = ++in_flight;
    bool shed = false;
    try {
      if (now_in > options.max_in_flight) {
        shed = true;
        reply = extender->NoOpinion(verb, req.body, "shed: too many requests in flight", &rec);
      } else if (verb == "filter") {
        reply = extender->Filter(req.body, deadline, &rec);
      } else if (verb == "prioritize") {
        reply = extender->Prioritize(req.body, deadline, &rec);
      } else if (verb == "preempt") {
        reply = extender->Preempt(req.body, deadline, &rec);
      } else {
        reply = extender->Bind(req.body, binder, &rec);
      }
    } catch (const std::exception& e) {
      reply = {500, std::string("{\"Error\":\"internal error\"}")};
      rec.reason = std::string("internal error: ") + e.what();
      ++s.errors;
    }
    --in_flight;
    const int64_t us =
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
    Observe(s, us);
    if (reply.status == 400) {
      ++s.bad_request;
    } else if (shed) {
      ++s.shed;
    } else if (reply.status == 200) {
      ++(rec.opinion ? s.opinion : s.no_opinion);
    }
    if (verb == "prioritize" && rec.opinion && !rec.top.empty()) {
      std::lock_guard<std::mutex> lock(recs_mu);
      recommended[rec.uid.empty() ? rec.pod : rec.uid] = rec.top;
    }
    if (log && !shed) LogClusterIfChanged();
    if (log) log->Verb(rec, reply.status, NowUnixMs(), us);
    res.status = reply.status;
    res.set_content(reply.body, "application/json");
  }

  void OnBound(const BindingSeen& b) {
    std::string rec;
    {
      std::lock_guard<std::mutex> lock(recs_mu);
      auto it = recommended.find(b.uid.empty() ? b.pod_key : b.uid);
      if (it != recommended.end()) {
        rec = it->second;
        recommended.erase(it);
      }
    }
    if (!log) return;
    LogClusterIfChanged();
    auto chosen = state->Facts(b.node);
    std::optional<LiveState::NodeFacts> other;
    if (!rec.empty()) other = state->Facts(rec);
    log->Bound(b, rec, chosen, other);
  }
};

ExtenderServer::ExtenderServer(ServerOptions options, const Extender* extender, LiveState* state,
                               ShadowLog* log, Extender::Binder binder)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->extender = extender;
  impl_->state = state;
  impl_->log = log;
  impl_->binder = std::move(binder);
}

ExtenderServer::~ExtenderServer() { Stop(); }

Status ExtenderServer::Start() {
  Impl& m = *impl_;
  if (m.server) return Status::Ok();
  const bool tls = !m.options.tls_cert_file.empty() || !m.options.tls_key_file.empty();
  if (tls) {
    for (const std::string& f : {m.options.tls_cert_file, m.options.tls_key_file})
      if (f.empty() || !std::filesystem::is_regular_file(f))
        return Status::Error(
            StatusCode::kInvalidArgument,
            "tls: need both a certificate and a key file; '" + f + "' is not a readable file");
    auto ssl = std::make_unique<httplib::SSLServer>(m.options.tls_cert_file.c_str(),
                                                    m.options.tls_key_file.c_str());
    if (!ssl->is_valid())
      return Status::Error(StatusCode::kInvalidArgument, "tls: cannot load certificate " +
                                                             m.options.tls_cert_file +
                                                             " with key " + m.options.tls_key_file);
    m.server = std::move(ssl);
  } else {
    m.server = std::make_unique<httplib::Server>();
  }
  httplib::Server& srv = *m.server;
  const int threads = std::max(1, m.options.threads);
  srv.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  // One byte over the limit is enough to know; the error handler turns
  // httplib's 413 into the 400 the extender contract promises.
  srv.set_payload_max_length(m.options.max_body_bytes);
  srv.set_tcp_nodelay(
      true);  // answers are small writes; Nagle would hold them (Go clients set it too)
  srv.set_read_timeout(m.options.read_timeout_ms / 1000, (m.options.read_timeout_ms % 1000) * 1000);
  srv.set_write_timeout(5, 0);
  srv.set_keep_alive_timeout(30);
  const size_t limit = m.options.max_body_bytes;
  srv.set_error_handler([limit](const httplib::Request&, httplib::Response& res) {
    if (res.status == 413) {
      res.status = 400;
      res.set_content("{\"Error\":\"request body over " + std::to_string(limit) + " bytes\"}",
                      "application/json");
    } else if (res.status == 400 && res.body.empty()) {
      res.set_content(
          "{\"Error\":\"malformed request: unreadable headers, or a body shorter than its "
          "Content-Length\"}",
          "application/json");
    } else if (res.body.empty()) {
      res.set_content("{\"Error\":\"" + std::to_string(res.status) + "\"}", "application/json");
    }
  });
  srv.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        res.status = 500;
        res.set_content("{\"Error\":\"internal error\"}", "application/json");
      });
  for (const char* verb : kVerbs) {
    const std::string v = verb;
    if (v == "bind" && !m.options.bind_enabled) continue;
    srv.Post("/" + v, [this, v](const httplib::Request& req, httplib::Response& res) {
      impl_->Handle(v, req, res);
    });
  }
  srv.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  srv.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    if (impl_->state->synced()) {
      res.set_content("ready\n", "text/plain");
    } else {
      res.status = 503;
      res.set_content("not ready: the cluster state is not synced yet\n", "text/plain");
    }
  });
  srv.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(MetricsText(), "text/plain; version=0.0.4");
  });
  m.state->set_on_bound([this](const BindingSeen& b) { impl_->OnBound(b); });
  if (m.log) m.state->set_on_finished([this](const BindingSeen& b) { impl_->log->Finished(b); });
  const int port = m.options.port == 0
                       ? srv.bind_to_any_port(m.options.host)
                       : (srv.bind_to_port(m.options.host, m.options.port) ? m.options.port : -1);
  if (port < 0) {
    m.server.reset();
    return Status::Error(StatusCode::kRuntime, "cannot listen on " + m.options.host + ":" +
                                                   std::to_string(m.options.port));
  }
  port_ = port;
  m.thread = std::thread([&srv] { srv.listen_after_bind(); });
  return Status::Ok();
}

void ExtenderServer::Stop() {
  Impl& m = *impl_;
  if (!m.server) return;
  m.server->stop();
  if (m.thread.joinable()) m.thread.join();
  m.state->set_on_bound(nullptr);
  m.state->set_on_finished(nullptr);
  m.server.reset();
}

std::string ExtenderServer::MetricsText() const {
  const Impl& m = *impl_;
  std::ostringstream o;
  o << "# HELP utilsim_extender_requests_total Extender requests by verb and outcome.\n"
       "# TYPE utilsim_extender_requests_total counter\n";
  for (size_t i = 0; i < 4; ++i) {
    const VerbStats& s = m.stats[i];
    const std::pair<const char*, uint64_t> outs[] = {{"opinion", s.opinion.load()},
                                                     {"no_opinion", s.no_opinion.load()},
                                                     {"shed", s.shed.load()},
                                                     {"bad_request", s.bad_request.load()},
                                                     {"error", s.errors.load()}};
    for (const auto& [name, v] : outs)
      o << "utilsim_extender_requests_total{verb=\"" << kVerbs[i] << "\",outcome=\"" << name
        << "\"} " << v << "\n";
  }
  o << "# HELP utilsim_extender_request_seconds Time to answer one request.\n"
       "# TYPE utilsim_extender_request_seconds histogram\n";
  for (size_t i = 0; i < 4; ++i) {
    const VerbStats& s = m.stats[i];
    uint64_t cum = 0;
    for (size_t b = 0; b <= kBuckets.size(); ++b) {
      cum += s.buckets[b].load();
      o << "utilsim_extender_request_seconds_bucket{verb=\"" << kVerbs[i] << "\",le=\"";
      if (b < kBuckets.size()) {
        o << kBuckets[b];
      } else {
        o << "+Inf";
      }
      o << "\"} " << cum << "\n";
    }
    o << "utilsim_extender_request_seconds_sum{verb=\"" << kVerbs[i] << "\"} "
      << static_cast<double>(s.sum_us.load()) / 1e6 << "\n";
    o << "utilsim_extender_request_seconds_count{verb=\"" << kVerbs[i] << "\"} " << s.count.load()
      << "\n";
  }
  o << "# HELP utilsim_extender_request_max_seconds The longest time to answer one request.\n"
       "# TYPE utilsim_extender_request_max_seconds gauge\n";
  for (size_t i = 0; i < 4; ++i)
    o << "utilsim_extender_request_max_seconds{verb=\"" << kVerbs[i] << "\"} "
      << static_cast<double>(m.stats[i].max_us.load()) / 1e6 << "\n";
  const int64_t now = NowUnixMs();
  const int64_t measured = m.state->last_measured_unix_ms();
  const int64_t heard = m.state->last_event_unix_ms();
  o << "# HELP utilsim_extender_in_flight Requests being answered now.\n"
       "# TYPE utilsim_extender_in_flight gauge\n"
    << "utilsim_extender_in_flight " << m.in_flight.load() << "\n"
    << "# HELP utilsim_extender_synced 1 once the cluster state is synced.\n"
       "# TYPE utilsim_extender_synced gauge\n"
    << "utilsim_extender_synced " << (m.state->synced() ? 1 : 0) << "\n"
    << "# HELP utilsim_extender_nodes Nodes in the cluster state.\n"
       "# TYPE utilsim_extender_nodes gauge\n"
    << "utilsim_extender_nodes " << m.state->nodes() << "\n"
    << "# HELP utilsim_extender_bound_pods Bound pods in the cluster state.\n"
       "# TYPE utilsim_extender_bound_pods gauge\n"
    << "utilsim_extender_bound_pods " << m.state->bound_pods() << "\n"
    << "# HELP utilsim_extender_unmodelled_pods Bound pods utilsim's model cannot place.\n"
       "# TYPE utilsim_extender_unmodelled_pods gauge\n"
    << "utilsim_extender_unmodelled_pods " << m.state->unmodelled_pods() << "\n"
    << "# HELP utilsim_extender_cache_age_seconds Time since the Kubernetes cache last reported an "
       "event or a completed list (-1: never; a quiet cluster has few events, a watch that "
       "stopped shows here).\n"
       "# TYPE utilsim_extender_cache_age_seconds gauge\n"
    << "utilsim_extender_cache_age_seconds "
    << (heard > 0 ? static_cast<double>(now - heard) / 1000.0 : -1.0) << "\n"
    << "# HELP utilsim_extender_measured_age_seconds Age of the latest utilization snapshot "
       "(-1: none yet).\n"
       "# TYPE utilsim_extender_measured_age_seconds gauge\n"
    << "utilsim_extender_measured_age_seconds "
    << (measured > 0 ? static_cast<double>(now - measured) / 1000.0 : -1.0) << "\n";
  return o.str();
}

}  // namespace utilsim::live
