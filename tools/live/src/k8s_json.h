// Private helpers of the Kubernetes object readers (k8s_objects.cc): typed
// access to the fields of an API object's JSON that never throws, with
// errors naming the JSON path ("spec.containers[0].name: expected a string,
// got 12"). A field that is absent or JSON null reads as its zero value
// (the API server omits empty fields and clients write null), so only a
// value of the wrong type is an error.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "live_status.h"
#include "utilsim/engine/status.h"

namespace utilsim::live::internal {

using nlohmann::json;

// "a.b" ("b" when `path` is empty) and "a[3]".
inline std::string Sub(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}
inline std::string At(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// The value as the message shows it: its JSON text, cut to 60 characters.
std::string Describe(const json& j);
// "<path>: expected <what>, got <value>".
Status Expected(const std::string& path, const std::string& what, const json& got);

// The member `key` of the object `obj`, nullptr when absent or null.
const json* Field(const json& obj, const std::string& key);

// Readers of obj[key] (obj must be an object); `path` is obj's path.
Status ReadString(const json& obj, const std::string& path, const std::string& key,
                  std::string* out);
Status ReadBool(const json& obj, const std::string& path, const std::string& key, bool* out);
// An object of strings (labels, annotations, nodeSelector).
Status ReadStringMap(const json& obj, const std::string& path, const std::string& key,
                     std::map<std::string, std::string>* out);
// An object of quantities (a ResourceList: requests, limits, allocatable,
// overhead) in milli-units.
Status ReadQuantities(const json& obj, const std::string& path, const std::string& key,
                      std::map<std::string, int64_t>* out);
// obj[key] as an object (*out = nullptr when absent or null).
Status ReadObject(const json& obj, const std::string& path, const std::string& key,
                  const json** out);
// obj[key] as an array (*out = nullptr when absent or null).
Status ReadArray(const json& obj, const std::string& path, const std::string& key,
                 const json** out);

}  // namespace utilsim::live::internal
