// A Prometheus HTTP API client (query and query_range, domain.md §4.4) and
// the poller that turns dcgm-exporter series into MeasuredSnapshots
// (measured.h). Contract (implementation may add, not change):
//
//   auto prom = PromClient::Create("http://127.0.0.1:9090");
//   auto r = prom.value().Query("DCGM_FI_DEV_GPU_UTIL[1m]", now_s);  // data.result
//   MeasuredUtil util(prom.value(), options);
//   auto snap = util.Poll(now_unix_ms);       // one query -> a snapshot
//   util.Start(); util.Current(); util.Stop();  // the same on a thread
//
// Staleness: a series whose newest sample is older than 2 x
// options.scrape_interval_s at the query time is unknown (counted stale,
// absent from the snapshot); the extender then uses its stated fallback.
// query_range steps are sized so a query returns at most 11,000 points per
// series (Prometheus' limit): StepFor(). Errors name the URL and quote
// Prometheus' errorType and error. Thread-safety: PromClient calls may run
// concurrently; MeasuredUtil::Current is thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "utilsim/engine/status.h"
#include "utilsim/live/measured.h"

namespace utilsim::live {

// Smallest step (seconds, whole, >= min_step_s) so that a query_range over
// [start_s, end_s] returns at most 11,000 points per series.
int64_t StepFor(int64_t start_s, int64_t end_s, int64_t min_step_s = 1);

class PromClient {
 public:
  // `url`: "http://host:port" (a path prefix allowed, e.g. ".../prometheus").
  // Error: not an http(s) URL.
  static Result<PromClient> Create(const std::string& url, int32_t timeout_ms = 5000);
  // GET /api/v1/query?query=..&time=..: the JSON "data" object
  // ({"resultType":..,"result":[..]}). Errors: transport, HTTP status,
  // status "error" (quoting errorType and error), malformed JSON.
  Result<nlohmann::json> Query(const std::string& expr, double time_s) const;
  // GET /api/v1/query_range: "data" likewise. Error: more than 11,000 points.
  Result<nlohmann::json> QueryRange(const std::string& expr, double start_s, double end_s,
                                    int64_t step_s) const;
  const std::string& url() const { return url_; }

 private:
  PromClient(std::string url, std::string scheme_host_port, std::string prefix, int32_t timeout_ms)
      : url_(std::move(url)), base_(std::move(scheme_host_port)), prefix_(std::move(prefix)),
        timeout_ms_(timeout_ms) {}
  std::string url_, base_, prefix_;
  int32_t timeout_ms_;
};

struct MeasuredUtilOptions {
  // The busy signal: DCGM_FI_DEV_GPU_UTIL (percent, divided by 100),
  // DCGM_FI_PROF_GR_ENGINE_ACTIVE or DCGM_FI_PROF_SM_ACTIVE (ratios).
  std::string metric = "DCGM_FI_DEV_GPU_UTIL";
  int32_t scrape_interval_s = 30;  // dcgm-exporter's default collect interval
  int32_t poll_s = 15;             // Start()'s period
  std::string extra_selector;      // PromQL label matchers added, e.g. job="dcgm"
};

class MeasuredUtil {
 public:
  MeasuredUtil(PromClient client, MeasuredUtilOptions options);
  ~MeasuredUtil();  // Stop()
  // One query at `now_unix_ms` (the staleness reference).
  Result<MeasuredSnapshot> Poll(int64_t now_unix_ms) const;
  void Start();  // polls every poll_s on a thread (idempotent)
  void Stop();
  // The latest successful snapshot (null before the first).
  std::shared_ptr<const MeasuredSnapshot> Current() const;
  std::string last_error() const;
  uint64_t polls() const;
  uint64_t errors() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace utilsim::live
