// The API connection of KubeCache (kube_http.h), on cpp-httplib.
#include "kube_http.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace utilsim::live::internal {

namespace {

void SetTimeout(httplib::Client* c, int32_t ms, bool read) {
  ms = std::max<int32_t>(ms, 1);
  time_t sec = ms / 1000;
  time_t usec = static_cast<time_t>(ms % 1000) * 1000;
  if (read) {
    c->set_read_timeout(sec, usec);
  } else {
    c->set_connection_timeout(sec, usec);
  }
}

httplib::Headers JsonHeaders() {
  return {{"Accept", "application/json"}, {"User-Agent", "utilsim-live"}};
}

}  // namespace

std::string HttpErrorText(int status, const std::string& body) {
  std::string text;
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("message") && j["message"].is_string()) {
    text = j["message"].get<std::string>();
  } else {
    text = body.substr(0, 200);
    std::replace(text.begin(), text.end(), '\n', ' ');
  }
  return "HTTP " + std::to_string(status) + (text.empty() ? "" : ": " + text);
}

ApiConnection::ApiConnection(const KubeConfig& config, int32_t connect_timeout_ms)
    : server_(config.server) {
  // scheme://host[:port] for httplib, the rest as a path prefix.
  std::string origin = config.server;
  size_t scheme_end = origin.find("://");
  std::string scheme = scheme_end == std::string::npos ? "" : origin.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    setup_error_ = "server '" + config.server + "': expected http://host:port or https://host:port";
    return;
  }
  size_t slash = origin.find('/', scheme_end + 3);
  if (slash != std::string::npos) {
    prefix_ = origin.substr(slash);
    origin.resize(slash);
    while (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
  }
  try {
    if (!config.client_cert_file.empty()) {
      client_ = std::make_unique<httplib::Client>(origin, config.client_cert_file,
                                                  config.client_key_file);
    } else {
      client_ = std::make_unique<httplib::Client>(origin);
    }
  } catch (const std::exception& e) {
    setup_error_ = "server '" + config.server + "': " + e.what();
    client_.reset();
    return;
  }
  if (!client_->is_valid()) {
    setup_error_ = "server '" + config.server + "': cannot set up the client" +
                   (config.client_cert_file.empty()
                        ? ""
                        : " (does the client certificate " + config.client_cert_file +
                              " load, with its key " + config.client_key_file + "?)");
    client_.reset();
    return;
  }
  if (scheme == "https") {
    if (!config.ca_file.empty()) client_->set_ca_cert_path(config.ca_file.c_str());
    client_->enable_server_certificate_verification(!config.insecure_skip_tls_verify);
  }
  if (!config.token.empty()) client_->set_bearer_token_auth(config.token.c_str());
  client_->set_keep_alive(true);
  SetTimeout(client_.get(), connect_timeout_ms, /*read=*/false);
}

ApiConnection::~ApiConnection() = default;

void ApiConnection::Cancel() {
  if (client_) client_->stop();
}

Result<ApiConnection::Response> ApiConnection::Get(const std::string& path,
                                                   const httplib::Params& params,
                                                   int32_t read_timeout_ms) {
  if (!client_) return Status::Error(setup_error_);
  SetTimeout(client_.get(), read_timeout_ms, /*read=*/true);
  httplib::Result res = client_->Get(prefix_ + path, params, JsonHeaders());
  if (!res) {
    return Status::Error(StatusCode::kIo, server_ + ": " + httplib::to_string(res.error()));
  }
  return Response{res->status, res->body};
}

Result<ApiConnection::Response> ApiConnection::Post(const std::string& path,
                                                    const std::string& json_body,
                                                    int32_t read_timeout_ms) {
  if (!client_) return Status::Error(setup_error_);
  SetTimeout(client_.get(), read_timeout_ms, /*read=*/true);
  httplib::Result res = client_->Post(prefix_ + path, JsonHeaders(), json_body, "application/json");
  if (!res) {
    return Status::Error(StatusCode::kIo, server_ + ": " + httplib::to_string(res.error()));
  }
  return Response{res->status, res->body};
}

Status ApiConnection::Stream(const std::string& path, const httplib::Params& params,
                             int32_t read_timeout_ms,
                             const std::function<bool(std::string_view)>& on_line, int* status,
                             std::string* error_body) {
  *status = 0;
  error_body->clear();
  if (!client_) return Status::Error(setup_error_);
  SetTimeout(client_.get(), read_timeout_ms, /*read=*/true);
  std::string buffer;
  size_t scanned = 0;  // buffer[0, scanned) holds no '\n'
  bool ended_by_caller = false;
  auto on_response = [&](const httplib::Response& r) {
    *status = r.status;
    return true;
  };
  auto on_data = [&](const char* data, size_t n) {
    if (*status != 200) {
      size_t room = error_body->size() < 4096 ? 4096 - error_body->size() : 0;
      error_body->append(data, std::min(n, room));
      return true;
    }
    buffer.append(data, n);
    size_t start = 0;
    for (size_t nl; (nl = buffer.find('\n', std::max(start, scanned))) != std::string::npos;) {
      std::string_view line(buffer.data() + start, nl - start);
      start = nl + 1;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty()) continue;
      if (!on_line(line)) {
        ended_by_caller = true;
        return false;
      }
    }
    buffer.erase(0, start);
    scanned = buffer.size();
    return true;
  };
  httplib::Result res = client_->Get(prefix_ + path, params, JsonHeaders(), on_response, on_data);
  if (ended_by_caller || res) return Status::Ok();
  return Status::Error(StatusCode::kIo, server_ + ": " + httplib::to_string(res.error()));
}

}  // namespace utilsim::live::internal
