// Static description of a cluster: node groups of identical nodes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace utilsim {

struct GpuModelSpec {
  std::string name;            // e.g. "A100-80GB", "V100M32", "G2"
  int64_t memory_bytes = 0;    // GPU memory per GPU
  double speed = 1.0;          // relative compute speed (1.0 = reference)
};

struct NodeGroup {
  std::string name;            // group name, used in node names: <name>-<k>
  int32_t count = 0;           // number of identical nodes (>= 1)
  std::string gpu_model;       // name of a GpuModelSpec, or "" for CPU-only nodes
  int32_t gpus = 0;            // GPUs per node, 0..64
  int64_t cpu_milli = 0;       // CPU per node, milli-cores (> 0)
  int64_t mem_bytes = 0;       // host memory per node, bytes (> 0)
  int32_t nvlink_domain = 0;   // GPUs per NVLink domain (0 = whole node)
  std::string rack_prefix;     // optional, for topology (later issues)
};

struct ClusterSpec {
  std::string name;
  std::vector<GpuModelSpec> models;
  std::vector<NodeGroup> groups;
  // Individually named nodes (from traces such as openb) may be listed by
  // readers as groups of count 1 with the node's name as the group name.

  int64_t total_gpus() const;
  int64_t total_nodes() const;
  // Index into models, or -1.
  int FindModel(const std::string& model) const;
};

}  // namespace utilsim
