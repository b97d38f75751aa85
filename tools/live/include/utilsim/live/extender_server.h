// The extender's HTTP(S) server (`utilsim serve k8s-extender`,
// docs/live-k8s.md "Safety"): the verbs of extender.h on POST /filter,
// /prioritize, /preempt and, only when enabled, /bind; GET /healthz
// (alive), /readyz (200 once the cluster state is synced, else 503 with the
// reason) and /metrics (Prometheus text: requests by verb and outcome, a
// latency histogram, errors, cache and measurement age).
//
// Safety: binds 127.0.0.1 unless told otherwise; a fixed pool of worker
// threads (one per open connection, as cpp-httplib serves keep-alive
// connections); at most max_in_flight requests decide at once, the rest are
// answered "no opinion" at once (shed); a request that cannot get the state
// before its deadline (deadline_ms after it was read) is answered "no
// opinion" too, never late; bodies over max_body_bytes, malformed or
// truncated get 400 with a reason; an exception in a handler gives 500 and
// is counted, never a crash. TLS when cert and key files are given.
// Thread-safety: Start/Stop from one thread; handlers run on the pool.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "utilsim/engine/status.h"
#include "utilsim/live/extender.h"
#include "utilsim/live/shadow_log.h"

namespace utilsim::live {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8888;  // 0 = any free port (port() tells which)
  int threads = 16;
  int max_in_flight = 8;
  int deadline_ms = 50;
  size_t max_body_bytes = size_t{16} << 20;
  // A request (headers and body) must arrive within this; a body shorter
  // than its Content-Length gets 400 when it runs out.
  int read_timeout_ms = 2000;
  std::string tls_cert_file, tls_key_file;  // both or neither
  bool bind_enabled = false;
};

class ExtenderServer {
 public:
  // `extender` and `log` (may be null) must outlive the server; `binder`
  // is used only when options.bind_enabled.
  ExtenderServer(ServerOptions options, const Extender* extender, LiveState* state, ShadowLog* log,
                 Extender::Binder binder = nullptr);
  ~ExtenderServer();  // Stop()
  // Binds and starts serving on a thread. Errors: the address cannot be
  // bound, TLS files unreadable.
  Status Start();
  void Stop();
  int port() const { return port_; }
  // The /metrics text (also for tests).
  std::string MetricsText() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace utilsim::live
