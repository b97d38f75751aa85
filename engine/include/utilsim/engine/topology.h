// The cluster's topology (design §4): GPUs in NVLink domains, domains in
// nodes, nodes in racks, racks under switches, switches up to one root. Built
// once from a ClusterSpec (as a Boost.Graph, checked to be connected, then
// flattened into per-node ancestor chains for O(depth) queries); immutable.
//
// What it answers, for gang placement (locality scores) and the progress
// model (communication stalls):
//  * the level a set of GPUs spans: 0 one GPU (or none), 1 one NVLink domain,
//    2 one node, 3 one rack, 4 racks under one switch, 4 + h when the joining
//    switch is h levels above the lowest rack's switch;
//  * the bottleneck bandwidth between them, per GPU: NVLink inside a domain,
//    PCIe across domains or out of the node, and across nodes the NIC share
//    left after the oversubscription of every uplink the path climbs.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/placement.h"
#include "utilsim/engine/status.h"

namespace utilsim {

inline constexpr double kUnlimitedBandwidth = std::numeric_limits<double>::infinity();

// How far apart a set of GPUs is, and the slowest link joining them.
struct Reach {
  int32_t level = 0;                     // see the file comment
  double bytes_s = kUnlimitedBandwidth;  // bottleneck per GPU; unlimited at level 0
  bool operator==(const Reach&) const = default;
};

class Topology {
 public:
  // Errors (the offending entry's `where` first when it has one): a rack or
  // switch named twice, a member that names no node or group, a node in two
  // racks or in none (when racks are listed), an unknown parent, no root or
  // two roots, a switch cycle or any other part not connected to the root
  // (naming an unreachable node), bandwidths <= 0, oversubscription < 1.
  static Result<Topology> Build(const ClusterSpec& spec);

  size_t num_nodes() const { return node_rack_.size(); }
  size_t num_racks() const { return rack_names_.size(); }
  size_t num_switches() const { return switch_names_.size(); }
  // Vertices and edges of the graph it was built from (GPUs, domains, nodes,
  // racks, switches).
  size_t num_vertices() const { return vertices_; }
  size_t num_edges() const { return edges_; }

  uint32_t rack_of(NodeIndex n) const { return node_rack_[n]; }
  const std::string& rack_name(uint32_t r) const { return rack_names_[r]; }
  const std::string& switch_name(uint32_t s) const { return switch_names_[s]; }
  // GPUs per NVLink domain on node n (its GPU count when the whole node is one).
  int32_t domain_size(NodeIndex n) const { return node_domain_[n]; }

  // Hops from node a up to the lowest point that joins a and b: 0 same node,
  // 1 same rack, 2 racks under one switch, 3 one switch higher, ...
  int32_t NodeDistance(NodeIndex a, NodeIndex b) const;

  // Level and bottleneck of the GPUs a placement uses.
  Reach Assess(const Placement& p) const;
  // Same for `gpus_per_node[i]` GPUs on nodes[i], packed into the fewest
  // NVLink domains (how a recorded host list is read).
  Reach AssessPacked(const std::vector<NodeIndex>& nodes,
                     const std::vector<int32_t>& gpus_per_node) const;
  // Where a job is assumed to have run when the trace does not say: a single
  // task in one NVLink domain if some domain is that large, else in one node;
  // a gang of several tasks one task per node within one rack (the usual
  // shape of a multi-node job; assumed large enough).
  Reach AssumedRecorded(int32_t tasks, int32_t gpus_per_task) const;

  // Node index by name; -1 if none.
  int64_t FindNode(const std::string& name) const;

 private:
  Reach MultiNode(const std::vector<NodeIndex>& nodes) const;
  int32_t SwitchLca(int32_t a, int32_t b) const;

  double nvlink_ = 0, pcie_ = 0, nic_ = 0;
  size_t vertices_ = 0, edges_ = 0;
  std::vector<int32_t> node_domain_, node_gpus_;
  std::vector<uint32_t> node_rack_;
  std::vector<std::string> rack_names_, switch_names_;
  std::vector<int32_t> rack_parent_;    // switch index
  std::vector<double> rack_os_;         // oversubscription of the rack's uplink
  std::vector<int32_t> switch_parent_;  // switch index, -1 for the root
  std::vector<int32_t> switch_depth_;   // root = 0
  std::vector<double> switch_os_;
  int32_t max_domain_ = 0, max_node_gpus_ = 0;
  std::shared_ptr<const std::vector<std::pair<std::string, NodeIndex>>> names_;  // sorted
};

}  // namespace utilsim
