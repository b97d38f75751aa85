// Static description of a cluster: node groups of identical nodes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace utilsim {

struct GpuModelSpec {
  std::string name;          // e.g. "A100-80GB", "V100M32", "G2"
  int64_t memory_bytes = 0;  // GPU memory per GPU
  double speed = 1.0;        // relative compute speed (1.0 = reference)
};

struct NodeGroup {
  std::string name;           // group name, used in node names: <name>-<k>
  int32_t count = 0;          // number of identical nodes (>= 1)
  std::string gpu_model;      // name of a GpuModelSpec, or "" for CPU-only nodes
  int32_t gpus = 0;           // GPUs per node, 0..64
  int64_t cpu_milli = 0;      // CPU per node, milli-cores (> 0)
  int64_t mem_bytes = 0;      // host memory per node, bytes (> 0)
  int32_t nvlink_domain = 0;  // GPUs per NVLink domain (0 = whole node)
  // MIG layouts of the GPUs (docs/mig.md), each canonical ("1g.5gb@0,...",
  // valid on gpu_model, see utilsim/engine/mig.h): empty = MIG not declared;
  // one entry = every GPU of every node; else one entry per GPU (size gpus).
  // (A default member initializer keeps positional NodeGroup{...} free of
  // -Wmissing-field-initializers.)
  std::vector<std::string> mig = {};
};

// The network above the nodes (design §4; docs/topology.md). A tree: GPUs in
// NVLink domains, domains in nodes, nodes in racks (one top-of-rack switch
// each), racks under switches, switches under switches up to one root.
// Bandwidths are per GPU / per node, bytes per second.
struct RackSpec {
  std::string name;
  std::string parent;                // a switch name; "" = the root switch
  std::vector<std::string> members;  // node names or node-group names
  double oversubscription = 1.0;     // >= 1: uplink share per node = nic / this
  std::string where;                 // "<file>:<line>: key '<path>'" for errors, or ""
};

struct SwitchSpec {
  std::string name;
  std::string parent;             // "" = this is the root switch (exactly one)
  double oversubscription = 1.0;  // >= 1, applied on top of the levels below
  std::string where;
};

struct TopologySpec {
  // Defaults are stated assumptions (docs/topology.md): NVLink 2.0 per-GPU
  // aggregate, PCIe 3.0 x16, a 100 Gb/s NIC per node.
  double nvlink_bytes_s = 300e9;  // between GPUs of one NVLink domain
  double pcie_bytes_s = 16e9;     // GPU to the rest of its node (other domains, the NIC)
  double nic_bytes_s = 12.5e9;    // node to its rack switch
  // Storage read bandwidth of each node (local disk or its share of a
  // filer), shared by the jobs on the node; 0 = unlimited (no contention).
  double storage_bytes_s = 0;
  // Generated racks: nodes in spec order, nodes_per_rack to a rack named
  // "rack-<k>", racks_per_switch racks to a switch "switch-<k>" under the root
  // "core". 0 = not generated. Ignored when racks are listed explicitly.
  int32_t nodes_per_rack = 0;
  int32_t racks_per_switch = 0;
  double rack_oversubscription = 1.0;    // for generated racks
  double switch_oversubscription = 1.0;  // for generated switches
  // Explicit racks and switches. With neither listed nor generated, every
  // node sits in one rack "rack-0" under the root "core".
  std::vector<RackSpec> racks;
  std::vector<SwitchSpec> switches;
};

struct ClusterSpec {
  std::string name;
  std::vector<GpuModelSpec> models;
  std::vector<NodeGroup> groups;
  TopologySpec topology;
  // Individually named nodes (from traces such as openb) may be listed by
  // readers as groups of count 1 with the node's name as the group name.

  int64_t total_gpus() const;
  int64_t total_nodes() const;
  // Index into models, or -1.
  int FindModel(const std::string& model) const;
};

}  // namespace utilsim
