// Private: one connection to the Kubernetes API server (an httplib client)
// as KubeCache uses it: GETs of JSON and watch streams split into lines.
//
// A connection belongs to one thread, except Cancel(), which any thread
// may call: it shuts the socket of the request in progress (httplib's
// Client::stop), so that request ends at once with an error; with none in
// progress it does nothing lasting. The server URL may carry a path prefix
// ("https://host/k8s/clusters/c-1", as API proxies do): request paths are
// appended to it.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "utilsim/engine/status.h"
#include "utilsim/live/kube_client.h"

namespace utilsim::live::internal {

class ApiConnection {
 public:
  ApiConnection(const KubeConfig& config, int32_t connect_timeout_ms);
  ~ApiConnection();
  ApiConnection(const ApiConnection&) = delete;
  ApiConnection& operator=(const ApiConnection&) = delete;

  // Why the connection cannot be used ("" = it can): a server URL that is
  // not http(s)://host[:port][/prefix], client TLS files that do not load.
  const std::string& setup_error() const { return setup_error_; }

  struct Response {
    int status = 0;  // HTTP status
    std::string body;
  };
  // GET path?params. An error when no response came (connection refused,
  // TLS failure, timeout, Cancel); any HTTP status is a response.
  Result<Response> Get(const std::string& path, const httplib::Params& params,
                       int32_t read_timeout_ms);

  // POST path with a JSON body; as Get otherwise.
  Result<Response> Post(const std::string& path, const std::string& json_body,
                        int32_t read_timeout_ms);

  // GET path?params as a stream: for a 200 response, on_line gets every
  // line ending in '\n' (without it and a '\r' before it; empty lines are
  // skipped) as it arrives, partial lines being kept across chunks; a last
  // line without '\n' is dropped. on_line returning false ends the request
  // (then the result is OK). *status is the HTTP status (0: none came);
  // for another status the body's first 4 KiB are in *error_body. The
  // result is OK when the stream ended normally, else the transport error
  // (a 200 stream that broke off reads as such an error).
  Status Stream(const std::string& path, const httplib::Params& params, int32_t read_timeout_ms,
                const std::function<bool(std::string_view)>& on_line, int* status,
                std::string* error_body);

  void Cancel();

 private:
  std::string server_, prefix_, setup_error_;
  std::unique_ptr<httplib::Client> client_;
};

// "HTTP 403: pods is forbidden: ..." (the message of a meta/v1 Status body,
// else the start of the body).
std::string HttpErrorText(int status, const std::string& body);

}  // namespace utilsim::live::internal
