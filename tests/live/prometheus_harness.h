// A real Prometheus for the live-mode tests: a prometheus.yml in a fresh
// temp dir (scrape_interval = scrape_s, one static target, job "dcgm"),
// `prometheus --config.file=... --storage.tsdb.path=... --web.listen-address=
// 127.0.0.1:<free port>` as a ChildProcess (its own process group, killed
// by the destructor, also when the test fails), ready once GET /-/ready
// answers 200. The binary: $UTILSIM_PROMETHEUS, else /usr/bin/prometheus,
// else `prometheus` on PATH; tests skip with a one-line reason without one.
#pragma once

#include <memory>
#include <string>

#include "child_process.h"

namespace utilsim::testutil {

class PrometheusHarness {
 public:
  // The binary, or "" with *why set.
  static std::string FindBinary(std::string* why);
  // Starts and waits up to timeout_ms for ready. Null and *error (with the
  // log's tail) on failure.
  static std::unique_ptr<PrometheusHarness> Start(const std::string& target, int scrape_s,
                                                  int timeout_ms, std::string* error);
  ~PrometheusHarness();  // kills Prometheus, removes the temp dir
  // Waits until Prometheus has tried its target once (GET /api/v1/targets:
  // health no longer "unknown"). Prometheus 2.x applies its scrape targets
  // on a 5 s tick, so this takes up to ~5 s after ready; a test that starts
  // its target afterwards knows the next scrape is at most one interval
  // away. False and *error on timeout.
  bool WaitForFirstScrape(int timeout_ms, std::string* error) const;
  const std::string& url() const { return url_; }  // "http://127.0.0.1:PORT"
  std::string Log() const { return child_->Log(); }

 private:
  PrometheusHarness() = default;
  std::unique_ptr<ChildProcess> child_;
  std::string url_, dir_;
};

}  // namespace utilsim::testutil
