// Kubernetes objects in the core/v1 JSON shapes for the live tests: a GPU
// node as GPU feature discovery labels it, pods pending and bound.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace utilsim::live::testing_live {

// A node with `gpus` nvidia.com/gpu (A100 80GB labels), 64 cores, 512 GiB.
inline nlohmann::json GpuNode(const std::string& name, int gpus) {
  nlohmann::json alloc = {{"cpu", "64"}, {"memory", "512Gi"}, {"pods", "110"}};
  nlohmann::json labels = {{"kubernetes.io/hostname", name}};
  if (gpus > 0) {
    alloc["nvidia.com/gpu"] = std::to_string(gpus);
    labels["nvidia.com/gpu.product"] = "NVIDIA-A100-SXM4-80GB";
    labels["nvidia.com/gpu.memory"] = "81920";
  }
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name}, {"uid", "uid-" + name}, {"resourceVersion", "1"}, {"labels", labels}}},
          {"spec", nlohmann::json::object()},
          {"status",
           {{"allocatable", alloc},
            {"capacity", alloc},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

// A pod whose one container requests `requests` (quantity strings).
inline nlohmann::json PodWithRequests(const std::string& ns, const std::string& name,
                                      const nlohmann::json& requests, const std::string& uid = "",
                                      const std::string& node = "") {
  nlohmann::json spec = {
      {"schedulerName", "default-scheduler"},
      {"containers",
       {{{"name", "main"}, {"image", "train:1"}, {"resources", {{"requests", requests}}}}}}};
  if (!node.empty()) spec["nodeName"] = node;
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", ns},
            {"uid", uid.empty() ? "uid-" + name : uid},
            {"resourceVersion", "1"}}},
          {"spec", spec},
          {"status", {{"phase", node.empty() ? "Pending" : "Running"}}}};
}

// A pending pod asking for `gpus` whole GPUs (0: none), 4 cores, 16 GiB.
inline nlohmann::json PendingPod(const std::string& ns, const std::string& name,
                                 const std::string& uid, int gpus) {
  nlohmann::json req = {{"cpu", "4"}, {"memory", "16Gi"}};
  if (gpus > 0) req["nvidia.com/gpu"] = std::to_string(gpus);
  return PodWithRequests(ns, name, req, uid);
}

// The same pod bound to `node` and running.
inline nlohmann::json BoundPod(const std::string& ns, const std::string& name,
                               const std::string& uid, const std::string& node, int gpus) {
  nlohmann::json req = {{"cpu", "4"}, {"memory", "16Gi"}};
  if (gpus > 0) req["nvidia.com/gpu"] = std::to_string(gpus);
  return PodWithRequests(ns, name, req, uid, node);
}

}  // namespace utilsim::live::testing_live
