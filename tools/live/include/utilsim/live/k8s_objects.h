// Kubernetes objects as the live modes need them (docs/live-k8s.md): the
// fields of core/v1 Pod and Node that placement uses, read from the API's
// JSON (the upstream shapes: metadata, spec, status; k8s.io/api/core/v1).
// Everything else in an object is ignored, so newer API versions read too.
//
// Quantities (resource.Quantity strings: "2", "500m", "1.5", "4Gi", "1e3",
// "128974848", "129M") are kept as integers: CPU and fractional GPU counts
// in milli-units, memory in bytes (ParseQuantity documents the rounding).
//
// Readers never throw; an error names the JSON path of the bad field
// ("metadata.name: expected a string, got 12") and what was expected.
// Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "utilsim/engine/status.h"

namespace utilsim::live {

// A resource.Quantity in milli-units of its base unit, rounded up (as the
// API server rounds requests): "500m" -> 500, "2" -> 2000, "1Gi" ->
// 1073741824000, "0.1" -> 100, "1u" -> 1, "1e3" -> 1000000. Suffixes:
// n u m "" k M G T P E (decimal), Ki Mi Gi Ti Pi Ei (binary), e/E exponent.
// Errors: empty, a sign other than leading +/-, an unknown suffix, a value
// beyond int64 milli-units.
Result<int64_t> ParseQuantityMilli(std::string_view q);

struct Taint {
  std::string key, value, effect;  // effect: NoSchedule, PreferNoSchedule, NoExecute
};
struct Toleration {
  std::string key, op, value, effect;  // op: "Exists" or "Equal" ("" = Equal)
};
// True when `tolerations` tolerate every NoSchedule and NoExecute taint of
// `taints` (the TaintToleration filter's rule).
bool ToleratesAll(const std::vector<Taint>& taints, const std::vector<Toleration>& tolerations);

struct K8sNode {
  std::string name, uid, resource_version;
  std::map<std::string, std::string> labels;
  // status.allocatable, milli-units (cpu, memory, nvidia.com/gpu, ...).
  std::map<std::string, int64_t> allocatable_milli;
  std::vector<Taint> taints;
  bool unschedulable = false;  // spec.unschedulable (cordoned)
  bool ready = true;           // status.conditions[type=Ready].status == "True" (absent: true)
  // labels["nvidia.com/gpu.product"] (GPU feature discovery), "" when absent.
  std::string gpu_product() const;
};

struct K8sPod {
  std::string name, namespace_name, uid, resource_version;
  std::string node_name;       // spec.nodeName: "" while pending
  std::string phase;           // status.phase: Pending, Running, Succeeded, Failed, Unknown
  std::string scheduler_name;  // spec.schedulerName ("" = default-scheduler)
  std::map<std::string, std::string> labels, annotations;
  std::map<std::string, std::string> node_selector;  // spec.nodeSelector
  std::vector<Toleration> tolerations;
  // The pod's effective request per resource, milli-units: for each
  // resource the larger of the sum over spec.containers and the largest
  // over spec.initContainers, plus spec.overhead (the scheduler's rule).
  std::map<std::string, int64_t> requests_milli;
  bool deleting = false;  // metadata.deletionTimestamp set
  // Succeeded or Failed: holds nothing.
  bool terminal() const { return phase == "Succeeded" || phase == "Failed"; }
  // "namespace/name", the cache's key.
  std::string key() const { return namespace_name + "/" + name; }
};

// `path` prefixes error messages (e.g. "items[3]"); "" = the object itself.
Result<K8sNode> ParseNode(const nlohmann::json& j, const std::string& path = "");
Result<K8sPod> ParsePod(const nlohmann::json& j, const std::string& path = "");

// A list response (v1 NodeList / PodList): the items and
// metadata.resourceVersion (where a watch starts) and metadata.continue
// (the next page's token, "" for the last page).
struct NodeList {
  std::vector<K8sNode> items;
  std::string resource_version, continue_token;
};
struct PodList {
  std::vector<K8sPod> items;
  std::string resource_version, continue_token;
};
Result<NodeList> ParseNodeList(const nlohmann::json& j);
Result<PodList> ParsePodList(const nlohmann::json& j);

// One line of a watch stream (meta/v1 WatchEvent): {"type":..,"object":..}.
// type ADDED, MODIFIED, DELETED carry the object; BOOKMARK carries only
// metadata.resourceVersion; ERROR carries a meta/v1 Status (code 410 =
// the resourceVersion is too old: relist).
struct WatchEvent {
  enum class Type { kAdded, kModified, kDeleted, kBookmark, kError };
  Type type = Type::kAdded;
  std::string resource_version;  // of the object (or of the bookmark)
  int32_t error_code = 0;        // kError: Status.code (410 = Gone)
  std::string error_message;     // kError: Status.message
};
struct NodeWatchEvent {
  WatchEvent event;
  std::optional<K8sNode> node;  // ADDED, MODIFIED, DELETED
};
struct PodWatchEvent {
  WatchEvent event;
  std::optional<K8sPod> pod;
};
Result<NodeWatchEvent> ParseNodeWatchEvent(std::string_view line);
Result<PodWatchEvent> ParsePodWatchEvent(std::string_view line);

}  // namespace utilsim::live
