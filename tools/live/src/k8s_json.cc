// Typed field readers for the Kubernetes object readers (k8s_json.h).
#include "k8s_json.h"

#include "utilsim/live/k8s_objects.h"

namespace utilsim::live::internal {

std::string Describe(const json& j) {
  std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

Status Expected(const std::string& path, const std::string& what, const json& got) {
  return Status::Error(
      StatusCode::kInvalidArgument,
      (path.empty() ? "" : path + ": ") + "expected " + what + ", got " + Describe(got));
}

const json* Field(const json& obj, const std::string& key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

Status ReadString(const json& obj, const std::string& path, const std::string& key,
                  std::string* out) {
  const json* v = Field(obj, key);
  if (v == nullptr) return Status::Ok();
  if (!v->is_string()) return Expected(Sub(path, key), "a string", *v);
  *out = v->get<std::string>();
  return Status::Ok();
}

Status ReadBool(const json& obj, const std::string& path, const std::string& key, bool* out) {
  const json* v = Field(obj, key);
  if (v == nullptr) return Status::Ok();
  if (!v->is_boolean()) return Expected(Sub(path, key), "true or false", *v);
  *out = v->get<bool>();
  return Status::Ok();
}

Status ReadStringMap(const json& obj, const std::string& path, const std::string& key,
                     std::map<std::string, std::string>* out) {
  const json* v = Field(obj, key);
  if (v == nullptr) return Status::Ok();
  if (!v->is_object()) return Expected(Sub(path, key), "an object of strings", *v);
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (!it->is_string()) return Expected(Sub(Sub(path, key), it.key()), "a string", *it);
    (*out)[it.key()] = it->get<std::string>();
  }
  return Status::Ok();
}

Status ReadQuantities(const json& obj, const std::string& path, const std::string& key,
                      std::map<std::string, int64_t>* out) {
  const json* v = Field(obj, key);
  if (v == nullptr) return Status::Ok();
  const std::string here = Sub(path, key);
  if (!v->is_object()) return Expected(here, "an object of quantities", *v);
  for (auto it = v->begin(); it != v->end(); ++it) {
    // Upstream's Quantity also reads a bare JSON number.
    std::string text;
    if (it->is_string()) {
      text = it->get<std::string>();
    } else if (it->is_number()) {
      text = it->dump();
    } else {
      return Expected(Sub(here, it.key()), "a quantity", *it);
    }
    Result<int64_t> q = ParseQuantityMilli(text);
    if (!q.ok()) return q.status().Prefixed(Sub(here, it.key()) + ": ");
    (*out)[it.key()] = q.value();
  }
  return Status::Ok();
}

Status ReadObject(const json& obj, const std::string& path, const std::string& key,
                  const json** out) {
  *out = Field(obj, key);
  if (*out != nullptr && !(*out)->is_object()) return Expected(Sub(path, key), "an object", **out);
  return Status::Ok();
}

Status ReadArray(const json& obj, const std::string& path, const std::string& key,
                 const json** out) {
  *out = Field(obj, key);
  if (*out != nullptr && !(*out)->is_array()) return Expected(Sub(path, key), "a list", **out);
  return Status::Ok();
}

}  // namespace utilsim::live::internal
