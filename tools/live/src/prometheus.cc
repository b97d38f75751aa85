// PromClient and StepFor (prometheus.h): the Prometheus HTTP API's query
// and query_range over cpp-httplib, the envelope checked here
// (prom_envelope.h). Each call makes its own httplib::Client, so calls may
// run concurrently. Errors start with "prometheus <url><path>: ".
#include "utilsim/live/prometheus.h"

#include <httplib.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "prom_envelope.h"

namespace utilsim::live {

namespace {

constexpr int64_t kMaxPoints = 11000;  // Prometheus' points-per-series limit

std::string FormatTime(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

}  // namespace

int64_t StepFor(int64_t start_s, int64_t end_s, int64_t min_step_s) {
  const int64_t floor_step = std::max<int64_t>(1, min_step_s);
  if (end_s <= start_s) return floor_step;
  // points = floor(range / step) + 1 <= 11,000  <=>  step > range / 11,000.
  return std::max(floor_step, (end_s - start_s) / kMaxPoints + 1);
}

Result<PromClient> PromClient::Create(const std::string& url, int32_t timeout_ms) {
  auto bad = [&](const std::string& why) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "prometheus URL '" + url + "': " + why +
                             " (expected http://host:port or https://host:port, a path prefix "
                             "allowed)");
  };
  if (timeout_ms <= 0) return bad("timeout must be > 0 ms");
  const size_t colon = url.find("://");
  if (colon == std::string::npos) return bad("no scheme");
  const std::string scheme = url.substr(0, colon);
  if (scheme != "http" && scheme != "https") return bad("scheme '" + scheme + "' is not http(s)");
  const size_t host_at = colon + 3;
  const size_t slash = url.find('/', host_at);
  const std::string authority =
      url.substr(host_at, slash == std::string::npos ? slash : slash - host_at);
  std::string prefix = slash == std::string::npos ? "" : url.substr(slash);
  if (prefix.find_first_of("?#") != std::string::npos) return bad("a query or fragment");
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (authority.empty()) return bad("no host");
  if (authority.find('@') != std::string::npos) return bad("user info is not supported");
  // host, [v6]:port or host:port
  std::string port;
  if (authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string::npos) return bad("unclosed '['");
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return bad("junk after ']'");
      port = authority.substr(close + 2);
      if (port.empty()) return bad("empty port");
    }
  } else if (const size_t c = authority.rfind(':'); c != std::string::npos) {
    port = authority.substr(c + 1);
    if (c == 0) return bad("no host");
    if (port.empty()) return bad("empty port");
  }
  if (!port.empty()) {
    int p = 0;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (ec != std::errc() || ptr != port.data() + port.size() || p < 1 || p > 65535)
      return bad("port '" + port + "' is not 1..65535");
  }
  return PromClient(url, scheme + "://" + authority, prefix, timeout_ms);
}

namespace {

Result<nlohmann::json> Fetch(const std::string& base, const std::string& prefix, int32_t timeout_ms,
                             const std::string& api, const httplib::Params& params) {
  const std::string where = "prometheus " + base + prefix + api;
  try {
    httplib::Client cli(base);
    if (!cli.is_valid()) return Status::Error(where + ": cannot make an HTTP client for " + base);
    const auto t = std::chrono::milliseconds(timeout_ms);
    cli.set_connection_timeout(t);
    cli.set_read_timeout(t);
    cli.set_write_timeout(t);
    auto res = cli.Get(prefix + api, params, httplib::Headers{{"Accept", "application/json"}});
    if (!res) {
      return Status::Error(StatusCode::kIo,
                           where + ": request failed (" + httplib::to_string(res.error()) + ")");
    }
    return internal::ParseEnvelope(where, res->status, res->body);
  } catch (const std::exception& e) {  // defensive: httplib or json internals
    return Status::Error(where + ": " + e.what());
  }
}

}  // namespace

Result<nlohmann::json> PromClient::Query(const std::string& expr, double time_s) const {
  if (!std::isfinite(time_s))
    return Status::Error(StatusCode::kInvalidArgument, "prometheus query: time is not finite");
  return Fetch(base_, prefix_, timeout_ms_, "/api/v1/query",
               {{"query", expr}, {"time", FormatTime(time_s)}});
}

Result<nlohmann::json> PromClient::QueryRange(const std::string& expr, double start_s, double end_s,
                                              int64_t step_s) const {
  const std::string where = "prometheus " + base_ + prefix_ + "/api/v1/query_range: ";
  if (!std::isfinite(start_s) || !std::isfinite(end_s) || end_s < start_s)
    return Status::Error(StatusCode::kInvalidArgument, where + "need finite start <= end, got " +
                                                           FormatTime(start_s) + " .. " +
                                                           FormatTime(end_s));
  if (step_s <= 0)
    return Status::Error(StatusCode::kInvalidArgument,
                         where + "step must be >= 1 s, got " + std::to_string(step_s));
  const double points = std::floor((end_s - start_s) / static_cast<double>(step_s)) + 1;
  if (points > static_cast<double>(kMaxPoints)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         where + "step " + std::to_string(step_s) + " s gives " +
                             FormatTime(points).substr(0, FormatTime(points).find('.')) +
                             " points per series, more than Prometheus' 11,000 (use StepFor: " +
                             std::to_string(StepFor(static_cast<int64_t>(std::floor(start_s)),
                                                    static_cast<int64_t>(std::ceil(end_s)))) +
                             " s)");
  }
  return Fetch(base_, prefix_, timeout_ms_, "/api/v1/query_range",
               {{"query", expr},
                {"start", FormatTime(start_s)},
                {"end", FormatTime(end_s)},
                {"step", std::to_string(step_s)}});
}

}  // namespace utilsim::live
