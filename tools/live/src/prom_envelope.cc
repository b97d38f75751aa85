// The Prometheus API envelope (prom_envelope.h).
#include "prom_envelope.h"

#include <utility>

namespace utilsim::live::internal {

namespace {

std::string Snippet(const std::string& body) {
  std::string s = body.substr(0, 200);
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s.empty() ? "(empty body)" : "'" + s + (body.size() > 200 ? "...'" : "'");
}

}  // namespace

Result<nlohmann::json> ParseEnvelope(const std::string& where, int http_status,
                                     const std::string& body) {
  const std::string http =
      http_status == 200 ? std::string() : "HTTP " + std::to_string(http_status) + ": ";
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    if (!http.empty()) return Status::Error(where + ": " + http + Snippet(body));
    return Status::Error(where + ": malformed JSON in the response: " + Snippet(body));
  }
  const auto str = [&](const char* k) -> std::string {
    if (!j.is_object() || !j.contains(k)) return "?";
    return j[k].is_string() ? j[k].get<std::string>()
                            : j[k].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  const std::string status = j.is_object() && j.contains("status") && j["status"].is_string()
                                 ? j["status"].get<std::string>()
                                 : "";
  if (status == "error") {
    return Status::Error(where + ": " + http + "query failed: " + str("errorType") + ": " +
                         str("error"));
  }
  if (!http.empty()) return Status::Error(where + ": " + http + Snippet(body));
  if (status != "success") {
    return Status::Error(where + ": not a Prometheus API response (status " +
                         (status.empty() ? std::string("missing") : "'" + status + "'") +
                         "): " + Snippet(body));
  }
  if (!j.contains("data") || !j["data"].is_object())
    return Status::Error(where + ": response without a \"data\" object: " + Snippet(body));
  return std::move(j["data"]);
}

}  // namespace utilsim::live::internal
