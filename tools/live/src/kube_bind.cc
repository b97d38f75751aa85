// BindPod (kube_client.h): the pods/binding subresource.
#include <nlohmann/json.hpp>

#include "kube_http.h"
#include "utilsim/live/kube_client.h"

namespace utilsim::live {

Status BindPod(const KubeConfig& config, const std::string& namespace_name, const std::string& name,
               const std::string& uid, const std::string& node, int32_t timeout_ms) {
  internal::ApiConnection api(config, timeout_ms);
  if (!api.setup_error().empty()) return Status::Error(api.setup_error());
  nlohmann::json meta = {{"name", name}, {"namespace", namespace_name}};
  if (!uid.empty()) meta["uid"] = uid;
  const nlohmann::json body = {
      {"apiVersion", "v1"},
      {"kind", "Binding"},
      {"metadata", meta},
      {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  auto r =
      api.Post("/api/v1/namespaces/" + namespace_name + "/pods/" + name + "/binding",
               body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), timeout_ms);
  if (!r.ok()) return r.status();
  if (r.value().status != 201 && r.value().status != 200)
    return Status::Error(internal::HttpErrorText(r.value().status, r.value().body));
  return Status::Ok();
}

}  // namespace utilsim::live
